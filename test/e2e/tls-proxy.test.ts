import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, Server } from 'node:http'
import { AddressInfo, connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { CLIENT, expectFailure, expectNoLeaks, json, runAction, startServer, TestServer, TOKEN } from './harness.js'

// Hosts that never resolve (RFC 6761): only the proxy can reach them, by mapping them to loopback.
const IDP_HOST = 'idp.m2m.invalid'
const API_HOST = 'api.m2m.invalid'

let dir: string
let caFile: string
let idp: TestServer
let api: TestServer
let proxy: Server
let proxyUrl: string
const connects: { target: string; auth?: string }[] = []
const plainProxied: string[] = []
const tunnels = new Set<{ destroy(): void }>()

/** A throwaway CA and a server certificate for localhost and the two test hosts, made with openssl. */
function makeCertificates(): { key: string; cert: string } {
  const run = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' })
  run(
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    'ca.key',
    '-out',
    'ca.pem',
    '-days',
    '2',
    '-subj',
    '/CN=m2m test CA'
  )
  run('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=localhost')
  writeFileSync(join(dir, 'san.ext'), `subjectAltName=DNS:localhost,DNS:${IDP_HOST},DNS:${API_HOST},IP:127.0.0.1\n`)
  run(
    'x509',
    '-req',
    '-in',
    'server.csr',
    '-CA',
    'ca.pem',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-out',
    'server.pem',
    '-days',
    '2',
    '-extfile',
    'san.ext'
  )
  return { key: readFileSync(join(dir, 'server.key'), 'utf8'), cert: readFileSync(join(dir, 'server.pem'), 'utf8') }
}

/** A CONNECT proxy that maps the test hosts to loopback and records what it was asked for. */
async function startProxy(): Promise<void> {
  proxy = createServer((req, res) => {
    plainProxied.push(`${req.method} ${req.url}`)
    res.writeHead(502).end()
  })
  proxy.on('connect', (req, socket, head) => {
    connects.push({ target: req.url ?? '', auth: req.headers['proxy-authorization'] })
    const [host, port] = (req.url ?? '').split(':')
    if (![IDP_HOST, API_HOST].includes(host)) {
      socket.end('HTTP/1.1 502 Bad Gateway\r\n\r\n')
      return
    }
    tunnels.add(socket)
    const upstream = connect(Number(port), '127.0.0.1', () => {
      socket.write('HTTP/1.1 200 Connection Established\r\n\r\n')
      upstream.write(head)
      upstream.pipe(socket)
      socket.pipe(upstream)
    })
    tunnels.add(upstream)
    upstream.on('error', () => socket.destroy())
    socket.on('error', () => upstream.destroy())
  })
  await new Promise<void>(resolve => proxy.listen(0, '127.0.0.1', resolve))
  proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'm2m-tls-'))
  const tls = makeCertificates()
  caFile = join(dir, 'ca.pem')
  idp = await startServer(
    (_req, res) => json(res, 200, { access_token: TOKEN, expires_in: 3600, token_type: 'Bearer' }),
    tls
  )
  api = await startServer((_req, res) => json(res, 200, { targets: [{ id: 'via-tls' }] }), tls)
  await startProxy()
})
afterAll(async () => {
  for (const socket of tunnels) socket.destroy()
  await Promise.all([idp.close(), api.close(), new Promise(resolve => proxy.close(resolve))])
  rmSync(dir, { recursive: true, force: true })
})
beforeEach(() => {
  connects.length = 0
  plainProxied.length = 0
  idp.requests.length = 0
  api.requests.length = 0
})

const port = (server: TestServer) => new URL(server.url).port
const inputs = (idpHost: string, apiHost: string) => ({
  'client-id': CLIENT.id,
  'client-secret': CLIENT.secret,
  'auth-url': `https://${idpHost}:${port(idp)}`,
  audience: CLIENT.audience,
  'base-url': `https://${apiHost}:${port(api)}`
})

describe('NODE_TLS_REJECT_UNAUTHORIZED=0 in the job', () => {
  it('is not obeyed: the certificate is still verified, and a warning says so', async () => {
    const run = await runAction(inputs('localhost', 'localhost'), { env: { NODE_TLS_REJECT_UNAUTHORIZED: '0' } })
    try {
      expectFailure(run, /is not trusted by this machine \(UNABLE_TO_VERIFY_LEAF_SIGNATURE\)/)
      expect(run.stdout).toContain(
        '::warning::NODE_TLS_REJECT_UNAUTHORIZED=0 is set in the job: this step verifies TLS certificates anyway'
      )
      expect(idp.requests).toHaveLength(0)
    } finally {
      run.cleanup()
    }
  })
})

describe.each([false, true])('TLS with an internal CA (debug %s)', debug => {
  it('explains an untrusted certificate and names NODE_EXTRA_CA_CERTS', async () => {
    const run = await runAction(inputs('localhost', 'localhost'), { debug })
    try {
      expectFailure(
        run,
        /Failed to exchange client credentials for a token: POST https:\/\/localhost:\d+ failed: the TLS certificate of localhost:\d+ is not trusted by this machine \(UNABLE_TO_VERIFY_LEAF_SIGNATURE\)\. If it is issued by an internal CA, set NODE_EXTRA_CA_CERTS/
      )
      expect(idp.requests).toHaveLength(0)
      expectNoLeaks(run, [CLIENT.secret])
    } finally {
      run.cleanup()
    }
  })

  it('trusts the CA given in NODE_EXTRA_CA_CERTS', async () => {
    const run = await runAction(inputs('localhost', 'localhost'), { debug, env: { NODE_EXTRA_CA_CERTS: caFile } })
    try {
      expect(run.code).toBe(0)
      expect(run.outputs.targets).toBe('[{"id":"via-tls"}]')
      expectNoLeaks(run, [CLIENT.secret, TOKEN])
    } finally {
      run.cleanup()
    }
  })
})

describe.each([false, true])('corporate proxies (debug %s)', debug => {
  it.each(['HTTPS_PROXY', 'https_proxy'])('tunnels both requests through %s with CONNECT', async variable => {
    const run = await runAction(inputs(IDP_HOST, API_HOST), {
      debug,
      env: { NODE_EXTRA_CA_CERTS: caFile, [variable]: proxyUrl }
    })
    try {
      expect(run.code).toBe(0)
      expect(connects.map(c => c.target)).toEqual([`${IDP_HOST}:${port(idp)}`, `${API_HOST}:${port(api)}`])
      expect(idp.requests).toHaveLength(1)
      expect(api.requests).toHaveLength(1)
      expect(plainProxied).toEqual([])
      expectNoLeaks(run, [CLIENT.secret, TOKEN])
    } finally {
      run.cleanup()
    }
  })

  it('sends the proxy credentials in the URL and never logs them', async () => {
    const withAuth = proxyUrl.replace('http://', 'http://proxy-user:proxy%40pass@')
    const run = await runAction(inputs(IDP_HOST, API_HOST), {
      debug,
      env: { NODE_EXTRA_CA_CERTS: caFile, HTTPS_PROXY: withAuth }
    })
    try {
      expect(run.code).toBe(0)
      expect(connects[0].auth).toBe(`Basic ${Buffer.from('proxy-user:proxy@pass').toString('base64')}`)
      // The proxy password, and the credentials as sent, are in no log line, output or file.
      expectNoLeaks(run, [CLIENT.secret, TOKEN, 'proxy@pass', 'proxy%40pass', String(connects[0].auth).slice(6)])
    } finally {
      run.cleanup()
    }
  })

  it('registers the proxy credentials as secrets, so the runner hides them wherever Node prints them', async () => {
    const withAuth = proxyUrl.replace('http://', 'http://proxy-user:proxy%40pass@')
    const run = await runAction(inputs(IDP_HOST, API_HOST), {
      debug,
      env: { NODE_EXTRA_CA_CERTS: caFile, HTTPS_PROXY: withAuth }
    })
    try {
      expect(run.code).toBe(0)
      const basic = Buffer.from('proxy-user:proxy@pass').toString('base64')
      for (const form of ['proxy@pass', 'proxy%40pass', 'proxy-user:proxy@pass', basic]) {
        expect(run.stdout).toContain(`::add-mask::${form.replace(/%/g, '%25')}\n`)
      }
      // (NODE_DEBUG=net prints proxyAuth and Proxy-Authorization: registered, the runner masks them.)
    } finally {
      run.cleanup()
    }
  })

  it('goes direct for hosts in NO_PROXY', async () => {
    const run = await runAction(inputs(IDP_HOST, API_HOST), {
      debug,
      env: { NODE_EXTRA_CA_CERTS: caFile, HTTPS_PROXY: proxyUrl, NO_PROXY: `localhost,.m2m.example,${API_HOST}` }
    })
    try {
      // The token came through the proxy; the targets request went direct, where the host does not resolve.
      expect(connects.map(c => c.target)).toEqual([`${IDP_HOST}:${port(idp)}`])
      expectFailure(
        run,
        new RegExp(
          `Failed to list targets: GET https://${API_HOST.replace(/\./g, '\\.')}:\\d+ failed: the host ${API_HOST.replace(/\./g, '\\.')} could not be resolved \\(ENOTFOUND\\)`
        )
      )
      expectNoLeaks(run, [CLIENT.secret, TOKEN])
    } finally {
      run.cleanup()
    }
  })

  it('names the proxy, without its credentials, when it refuses the tunnel', async () => {
    const run = await runAction(
      { ...inputs('refused.m2m.invalid', API_HOST), 'max-attempts': '1' },
      { debug, env: { NODE_EXTRA_CA_CERTS: caFile, HTTPS_PROXY: proxyUrl.replace('http://', 'http://u:secret-pw@') } }
    )
    try {
      expectFailure(
        run,
        new RegExp(
          `tunneling socket could not be established, statusCode=502 through the proxy http://127\\.0\\.0\\.1:\\d+`
        )
      )
      expectNoLeaks(run, [CLIENT.secret, 'secret-pw'])
    } finally {
      run.cleanup()
    }
  })
})
