import { jest } from '@jest/globals'
import * as http from 'node:http'
import { AddressInfo } from 'node:net'
import { attempt, Connection } from '../../src/http/attempt.js'
import { dropped } from '../../src/http/dropped.js'
import { AttemptError } from '../../src/http/errors.js'

// One attempt on a real socket: a loopback server per test, no retries, no policy.
type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void

let server: http.Server | undefined
const agent = new http.Agent({ keepAlive: false })
const connection: Connection = { request: http.request, agent }
const limits = { timeoutMs: 5000, idleMs: 5000 }

async function serve(handler: Handler): Promise<URL> {
  server = http.createServer(handler)
  await new Promise<void>(resolve => server!.listen(0, '127.0.0.1', resolve))
  return new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/targets?page=2`)
}

afterEach(async () => {
  const open = server
  server = undefined
  if (!open) return
  open.closeAllConnections()
  await new Promise(resolve => open.close(resolve))
})
afterAll(() => agent.destroy())

const get = (url: URL, maxBytes = 1024) => ({ method: 'GET', url, headers: { Accept: 'application/json' }, maxBytes })
const failureOf = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (err: unknown) => (err instanceof AttemptError ? err.failure : err)
  )

/** What `act` resolves to, and the bytes it told the young-generation count it dropped, in how many notes. */
async function droppedBy<T>(act: () => Promise<T>): Promise<{ result: T; bytes: number; notes: number }> {
  const note = jest.spyOn(dropped, 'note')
  try {
    const result = await act()
    return {
      result,
      bytes: note.mock.calls.reduce((total, [bytes]) => total + bytes, 0),
      notes: note.mock.calls.length
    }
  } finally {
    note.mockRestore()
  }
}

describe('attempt', () => {
  it('returns the status, headers and whole body, and sends the body and headers as given', async () => {
    let seen: { method?: string; length?: string; body: string } = { body: '' }
    const url = await serve((req, res) => {
      req.setEncoding('utf8')
      req.on('data', (c: string) => (seen.body += c))
      req.on('end', () => {
        seen = { ...seen, method: req.method, length: req.headers['content-length'] }
        res.writeHead(201, { 'X-Test': 'yes' }).end('[1,2]')
      })
    })
    const headers = { 'Content-Length': Buffer.byteLength('ü=1') }
    const res = await attempt({ ...get(url), method: 'POST', headers, body: 'ü=1' }, connection, limits)
    expect(res.status).toBe(201)
    expect(res.headers['x-test']).toBe('yes')
    expect(res.body.toString()).toBe('[1,2]')
    expect(seen).toEqual({ method: 'POST', length: String(Buffer.byteLength('ü=1')), body: 'ü=1' })
  })

  it('sends Host first, then the headers as given, each once, on a kept-alive connection', async () => {
    let raw: string[] = []
    const url = await serve((req, res) => {
      raw = req.rawHeaders
      res.end()
    })
    const keepAlive = new http.Agent({ keepAlive: true })
    const headers = { Accept: 'application/json', 'X-Two': 'a b', 'Content-Length': 0 }
    await attempt({ ...get(url), headers }, { request: http.request, agent: keepAlive }, limits)
    keepAlive.destroy()
    expect(raw).toEqual([
      ...['Host', url.host, 'Accept', 'application/json', 'X-Two', 'a b', 'Content-Length', '0'],
      ...['Connection', 'keep-alive']
    ])
  })

  it.each([
    ['http://[::1]:8080/a', '[::1]:8080', '::1'],
    ['https://example.test/a', 'example.test', 'example.test']
  ])('names %s as Host %s and connects to %s', async (given, host, hostname) => {
    const url = await serve((_req, res) => res.end())
    let options: http.RequestOptions = {}
    const request = ((opts: http.RequestOptions, cb: (res: http.IncomingMessage) => void) => {
      options = opts
      return http.request({ ...opts, protocol: 'http:', hostname: url.hostname, port: url.port }, cb)
    }) as typeof http.request
    await attempt(get(new URL(given)), { request, agent }, limits)
    expect(options).toMatchObject({ hostname, headers: ['Host', host, 'Accept', 'application/json'] })
  })

  it('never follows a redirect: it reports where it pointed, resolved against the request', async () => {
    const url = await serve((_req, res) => res.writeHead(307, { Location: '/elsewhere?x=1' }).end())
    await expect(failureOf(attempt(get(url), connection, limits))).resolves.toEqual({
      kind: 'redirect',
      status: 307,
      location: `${url.origin}/elsewhere?x=1`
    })
  })

  it('refuses a body over the cap, declared or streamed, and accepts one of exactly the cap', async () => {
    const declared = await serve((_req, res) => res.writeHead(200, { 'Content-Length': '2048' }).end('x'.repeat(2048)))
    await expect(failureOf(attempt(get(declared), connection, limits))).resolves.toEqual({
      kind: 'too-large',
      maxBytes: 1024
    })
    await new Promise(resolve => server!.close(resolve))
    const streamed = await serve((_req, res) => {
      res.writeHead(200)
      res.write('x'.repeat(1000))
      res.end('x'.repeat(1000))
    })
    await expect(failureOf(attempt(get(streamed), connection, limits))).resolves.toEqual({
      kind: 'too-large',
      maxBytes: 1024
    })
    const exact = await attempt(get(streamed, 2000), connection, limits)
    expect(exact.body).toHaveLength(2000)
  })

  it('keeps only the first keepBytes of a body, counts the rest as it streams, and says it cut', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200)
      for (let i = 0; i < 64; i++) res.write(Buffer.alloc(1024, i % 2 ? 'b' : 'a'))
      res.end('end')
    })
    const cut = await attempt({ ...get(url, 1024 * 1024), keepBytes: 1500 }, connection, limits)
    expect(cut.body.toString()).toBe(`${'a'.repeat(1024)}${'b'.repeat(476)}`)
    expect(cut).toMatchObject({ status: 200, bodyBytes: 64 * 1024 + 3, truncated: true })
    const whole = await attempt({ ...get(url, 1024 * 1024), keepBytes: 64 * 1024 + 3 }, connection, limits)
    expect(whole.body).toHaveLength(64 * 1024 + 3)
    expect(whole.bodyBytes).toBe(64 * 1024 + 3)
    expect(whole.truncated).toBeUndefined()
    const plain = await attempt(get(url, 1024 * 1024), connection, limits)
    expect(plain).not.toHaveProperty('bodyBytes')
  })

  it('counts what it drops of a body for the young-generation collection, and nothing it keeps', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200)
      for (let i = 0; i < 64; i++) res.write(Buffer.alloc(1024, 'a'))
      res.end('end')
    })
    const cut = await droppedBy(() => attempt({ ...get(url, 1024 * 1024), keepBytes: 1500 }, connection, limits))
    expect(cut.bytes).toBe(64 * 1024 + 3 - 1500)
    const plain = await droppedBy(() => attempt(get(url, 1024 * 1024), connection, limits))
    const whole = await droppedBy(() =>
      attempt({ ...get(url, 1024 * 1024), keepBytes: 64 * 1024 + 3 }, connection, limits)
    )
    expect([plain.notes, whole.notes]).toEqual([0, 0])
  })

  it('keeps the head of a chunk that crosses keepBytes after others were kept, and counts its tail', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200)
      res.write('a'.repeat(1000))
      // Later, so that it most likely arrives as a chunk of its own, after 1000 bytes were kept.
      setTimeout(() => res.end('b'.repeat(1000)), 30)
    })
    const { result: cut, bytes } = await droppedBy(() =>
      attempt({ ...get(url, 1024 * 1024), keepBytes: 1500 }, connection, limits)
    )
    expect(cut.body.toString()).toBe(`${'a'.repeat(1000)}${'b'.repeat(500)}`)
    expect(cut).toMatchObject({ bodyBytes: 2000, truncated: true })
    expect(bytes).toBe(500)
  })

  it('still refuses a body over maxBytes when it keeps only part of it', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200)
      res.write('x'.repeat(1000))
      res.end('x'.repeat(1000))
    })
    await expect(failureOf(attempt({ ...get(url, 1500), keepBytes: 10 }, connection, limits))).resolves.toEqual({
      kind: 'too-large',
      maxBytes: 1500
    })
  })

  it('gives up on a server that never answers: at the idle limit, or at the attempt limit when that is shorter', async () => {
    const url = await serve(() => undefined)
    await expect(failureOf(attempt(get(url), connection, { timeoutMs: 5000, idleMs: 50 }))).resolves.toEqual({
      kind: 'idle',
      ms: 50
    })
    await expect(failureOf(attempt(get(url), connection, { timeoutMs: 60, idleMs: 60 }))).resolves.toEqual({
      kind: 'timeout',
      ms: 60
    })
  })

  it('counts silence from the last chunk, not from the request', async () => {
    // A chunk at 200 ms, then silence: idle 1000 ms after that chunk, not after the request.
    const url = await serve((_req, res) => {
      res.writeHead(200)
      res.write('x')
      setTimeout(() => res.write('y'), 200)
    })
    const started = Date.now()
    await expect(failureOf(attempt(get(url), connection, { timeoutMs: 10_000, idleMs: 1000 }))).resolves.toEqual({
      kind: 'idle',
      ms: 1000
    })
    expect(Date.now() - started).toBeGreaterThanOrEqual(1150)
  })

  it('ends a body that keeps coming at the attempt limit: a chunk every 50 ms is never idle', async () => {
    const trickle = await serve((_req, res) => {
      res.writeHead(200)
      const every = setInterval(() => res.write('x'), 50)
      res.on('close', () => clearInterval(every))
    })
    await expect(failureOf(attempt(get(trickle), connection, { timeoutMs: 1500, idleMs: 1000 }))).resolves.toEqual({
      kind: 'timeout',
      ms: 1500
    })
  })

  it.each([
    ['https://api.example.test:8443/v1', 'api.example.test', 'api.example.test'],
    ['https://10.0.0.7/v1', '10.0.0.7', ''],
    ['https://[::1]:8443/v1', '::1', '']
  ])('asks TLS for the name of %s (SNI), none for an address', async (href, hostname, servername) => {
    let options: http.RequestOptions & { servername?: string } = {}
    const request = ((o: typeof options) => {
      options = o
      throw Object.assign(new Error('stop here'), { code: 'ECONNREFUSED' })
    }) as unknown as typeof http.request
    await expect(attempt(get(new URL(href)), { request, agent: new http.Agent() }, limits)).rejects.toThrow()
    expect({ hostname: options.hostname, servername: options.servername }).toEqual({ hostname, servername })
  })

  it('reaches an IPv6 literal, and sends the path with its query', async () => {
    let seen = ''
    server = http.createServer((req, res) => {
      seen = req.url ?? ''
      res.end('ok')
    })
    const listening = await new Promise<boolean>(resolve => {
      server!.once('error', () => resolve(false))
      server!.listen(0, '::1', () => resolve(true))
    })
    if (!listening) return // no IPv6 loopback on this machine: nothing to reach
    const url = new URL(`http://[::1]:${(server.address() as AddressInfo).port}/v1/t%2Fx?page=2`)
    const got = await attempt(get(url), connection, limits)
    expect(got.body.toString()).toBe('ok')
    expect(seen).toBe('/v1/t%2Fx?page=2')
  })

  it('reports a connection that closes mid-body as aborted, or as a socket error', async () => {
    const url = await serve((_req, res) => {
      res.writeHead(200, { 'Content-Length': '100' })
      res.write('partial')
      setImmediate(() => res.socket?.destroy())
    })
    const failure = await failureOf(attempt(get(url), connection, limits))
    expect(failure).toEqual(
      expect.objectContaining({ kind: expect.stringMatching(/^(aborted|network)$/) as unknown as string })
    )
  })

  it("says that a server at an https:// URL did not answer in TLS, without OpenSSL's text", async () => {
    const url = await serve((_req, res) => res.end('plain'))
    const https = await import('node:https')
    const tlsAgent = new https.Agent({ keepAlive: false })
    try {
      const failure = await failureOf(
        attempt(get(new URL(url.href.replace('http:', 'https:'))), { request: https.request, agent: tlsAgent }, limits)
      )
      expect(failure).toEqual({ kind: 'not-tls', reason: 'wrong version number' })
    } finally {
      tlsAgent.destroy()
    }
  })

  it('names the socket error and the proxy it went through', async () => {
    const url = await serve(() => undefined)
    const port = url.port
    await new Promise(resolve => server!.close(resolve))
    server = undefined
    const refused = new URL(`http://127.0.0.1:${port}/`)
    await expect(
      failureOf(attempt(get(refused), { ...connection, proxy: 'http://proxy.test:3128' }, limits))
    ).resolves.toEqual({
      kind: 'network',
      code: 'ECONNREFUSED',
      detail: expect.stringContaining('ECONNREFUSED'),
      proxy: 'http://proxy.test:3128'
    })
  })
})
