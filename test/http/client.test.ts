import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Readable } from 'node:stream'
import nock from 'nock'
import { Gate, Http, HttpRequest, HttpResponse } from '../../src/http/client.js'
import { DEFAULT_POLICY } from '../../src/http/policy.js'
import { operationFailure } from '../../src/http/operation.js'
import { recordingHttp } from '../helpers.js'
import { useNock } from '../nock.js'

useNock()

const ORIGIN = 'https://api.example.test'

function get(path = '/v1/targets', maxBytes = 1024 * 1024): HttpRequest {
  return {
    method: 'GET',
    url: new URL(path, ORIGIN),
    headers: { Accept: 'application/json' },
    label: 'targets request',
    maxBytes
  }
}

/** Sends as the listing does, so that a failure reads as the user would see it. */
function send(
  http: Http,
  request: HttpRequest,
  action = 'list targets',
  redirect = LISTING_REDIRECT
): Promise<HttpResponse> {
  return http.send(request).catch((err: unknown) => {
    throw operationFailure({ action, redirect, request }, err)
  })
}
const LISTING_REDIRECT = 'the bearer token is never sent to an address it was not configured for'

function netError(code: string, message: string): Error {
  return Object.assign(new Error(message), { code })
}

describe('retry policy', () => {
  it.each([408, 429, 500, 502, 503, 504])('retries HTTP %i and then succeeds', async status => {
    nock(ORIGIN).get('/v1/targets').reply(status, 'busy').get('/v1/targets').reply(200, '[]')
    const { http, waits, infos } = recordingHttp()
    const res = await send(http, get())
    expect(res.status).toBe(200)
    expect(res.attempts).toBe(2)
    expect(waits).toEqual([1125]) // equal jitter: half the 1.5 s step, plus random 0.5 of the other half
    expect(infos).toEqual([
      expect.stringMatching(
        new RegExp(`^The targets request failed on attempt 1 of 3 \\(HTTP ${status} .*\\); retrying in 1\\.1 s$`)
      )
    ])
  })

  it.each([400, 401, 403, 404, 409, 422])('never retries HTTP %i', async status => {
    nock(ORIGIN).get('/v1/targets').reply(status, '{}')
    const { http, waits } = recordingHttp()
    const res = await send(http, get())
    expect(res.status).toBe(status)
    expect(res.attempts).toBe(1)
    expect(waits).toEqual([])
  })

  it('stops after max-attempts and returns the last response', async () => {
    nock(ORIGIN).get('/v1/targets').times(4).reply(503, 'down')
    const { http, waits } = recordingHttp({ maxAttempts: 4 })
    const res = await send(http, get())
    expect(res.status).toBe(503)
    expect(res.attempts).toBe(4)
    expect(waits).toEqual([1125, 2250, 4500]) // exponential, equal jitter at 0.5
    expect(nock.isDone()).toBe(true)
  })

  it('caps the exponential backoff', async () => {
    nock(ORIGIN).get('/v1/targets').times(10).reply(500)
    const { http, waits } = recordingHttp({ maxAttempts: 10, random: () => 0.999 })
    await send(http, get())
    expect(Math.max(...waits)).toBeLessThanOrEqual(20_000)
    expect(waits).toHaveLength(9)
  })

  it.each([
    [0, [750, 1500, 3000, 6000, 10_000]],
    [1, [1500, 3000, 6000, 12_000, 20_000]]
  ])('jitters each wait between half and all of its step (random %d)', async (random, expected) => {
    nock(ORIGIN).get('/v1/targets').times(6).reply(503)
    const { http, waits } = recordingHttp({ maxAttempts: 6, random: () => random })
    await send(http, get())
    expect(waits).toEqual(expected)
  })

  it('honours Retry-After in seconds', async () => {
    nock(ORIGIN).get('/v1/targets').reply(429, '', { 'Retry-After': '7' }).get('/v1/targets').reply(200, '[]')
    const { http, waits, infos } = recordingHttp()
    await send(http, get())
    expect(waits).toEqual([7000])
    expect(infos[0]).toMatch(/attempt 1 of 3 \(HTTP 429 Too Many Requests\); retrying in 7\.0 s/)
  })

  it('honours Retry-After as an HTTP date', async () => {
    const now = Date.parse('2026-11-22T06:00:00Z')
    nock(ORIGIN)
      .get('/v1/targets')
      .reply(503, '', { 'Retry-After': 'Sun, 22 Nov 2026 06:00:12 GMT' })
      .get('/v1/targets')
      .reply(200, '[]')
    const { http, waits } = recordingHttp({ now: () => now })
    await send(http, get())
    expect(waits).toEqual([12_000])
  })

  it("honours Auth0's x-ratelimit-reset (UNIX time)", async () => {
    const now = Date.parse('2026-11-22T06:00:00Z')
    nock(ORIGIN)
      .get('/v1/targets')
      .reply(429, '', { 'x-ratelimit-reset': String(now / 1000 + 3) })
      .get('/v1/targets')
      .reply(200, '[]')
    const { http, waits } = recordingHttp({ now: () => now })
    await send(http, get())
    expect(waits).toEqual([3000])
  })

  it('fails at once, saying when to retry, when the server asks for longer than 60 s', async () => {
    const now = Date.parse('2026-11-22T06:00:00Z')
    nock(ORIGIN).get('/v1/targets').reply(429, '', { 'Retry-After': '3600' })
    const { http, waits } = recordingHttp({ now: () => now })
    await expect(send(http, get())).rejects.toThrow(
      'Failed to list targets: api.example.test answered HTTP 429 Too Many Requests and asks to retry in 3600 s, longer than this step waits (60 s). Re-run after 2026-11-22T07:00:00.000Z.'
    )
    expect(waits).toEqual([])
  })

  it('waits exactly the 60 s cap when asked for 60 s', async () => {
    nock(ORIGIN)
      .get('/v1/targets')
      .reply(503, '', { 'Retry-After': String(DEFAULT_POLICY.maxServerWaitMs / 1000) })
      .get('/v1/targets')
      .reply(200, '[]')
    const { http, waits } = recordingHttp()
    await send(http, get())
    expect(waits).toEqual([60_000])
  })

  it.each([
    'ECONNRESET',
    'ECONNREFUSED',
    'ECONNABORTED',
    'ETIMEDOUT',
    'EPIPE',
    'EAI_AGAIN',
    'ENETUNREACH',
    'EHOSTUNREACH'
  ])('retries the connection error %s', async code => {
    nock(ORIGIN)
      .get('/v1/targets')
      .replyWithError(netError(code, `connect ${code}`))
      .get('/v1/targets')
      .reply(200, '[]')
    const { http, infos } = recordingHttp()
    const res = await send(http, get())
    expect(res.status).toBe(200)
    const said = code === 'ECONNREFUSED' ? 'api.example.test refused the connection (ECONNREFUSED)' : `connect ${code}`
    expect(infos[0]).toContain(`attempt 1 of 3 (${said}`)
  })

  it('names the request, the origin and the attempts when connection errors persist', async () => {
    nock(ORIGIN).get('/v1/targets').times(3).replyWithError(netError('ECONNREFUSED', 'connect ECONNREFUSED'))
    const { http } = recordingHttp()
    await expect(send(http, get())).rejects.toThrow(
      'Failed to list targets: GET https://api.example.test failed (after 3 attempts): api.example.test refused the connection (ECONNREFUSED): no server listens on that port; check the URL input'
    )
  })

  it('does not retry a host that does not resolve', async () => {
    nock(ORIGIN).get('/v1/targets').replyWithError(netError('ENOTFOUND', 'getaddrinfo ENOTFOUND'))
    const { http, waits } = recordingHttp()
    await expect(send(http, get())).rejects.toThrow(/could not be resolved \(ENOTFOUND\); check the URL input/)
    expect(waits).toEqual([])
  })

  it.each([
    ['CERT_HAS_EXPIRED', 'certificate has expired'],
    ['ERR_TLS_CERT_ALTNAME_INVALID', "Hostname/IP does not match certificate's altnames"]
  ])('explains an invalid certificate (%s) and does not retry it', async (code, text) => {
    nock(ORIGIN).get('/v1/targets').replyWithError(netError(code, text))
    const { http, waits } = recordingHttp()
    await expect(send(http, get())).rejects.toThrow(
      `Failed to list targets: GET https://api.example.test failed: the TLS certificate of api.example.test is not valid (${code}): ${text}`
    )
    expect(waits).toEqual([])
  })

  it('does not retry an unknown error code', async () => {
    nock(ORIGIN).get('/v1/targets').replyWithError(netError('EWEIRD', 'something odd'))
    const { http, waits } = recordingHttp()
    await expect(send(http, get())).rejects.toThrow('failed: something odd')
    expect(waits).toEqual([])
  })

  it.each([
    'SELF_SIGNED_CERT_IN_CHAIN',
    'DEPTH_ZERO_SELF_SIGNED_CERT',
    'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
    'UNABLE_TO_GET_ISSUER_CERT',
    'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
    'CERT_UNTRUSTED',
    'CERT_SIGNATURE_FAILURE'
  ])('names NODE_EXTRA_CA_CERTS for %s, without retrying', async code => {
    nock(ORIGIN).get('/v1/targets').replyWithError(netError(code, 'tls says no'))
    const { http, waits } = recordingHttp()
    await expect(send(http, get())).rejects.toThrow(
      `Failed to list targets: GET https://api.example.test failed: the TLS certificate of api.example.test is not trusted by this machine (${code}). If it is issued by an internal CA, set NODE_EXTRA_CA_CERTS to the path of that CA certificate (PEM) in the job env.`
    )
    expect(waits).toEqual([])
  })

  it('logs each attempt in debug: method, URL without its query, status, time and attempt', async () => {
    nock(ORIGIN)
      .get('/v1/targets?key=hidden')
      .reply(503)
      .get('/v1/targets?key=hidden')
      .replyWithError(netError('ECONNRESET', 'reset'))
      .get('/v1/targets?key=hidden')
      .reply(200, '[]')
    const { http, debugs } = recordingHttp()
    await send(http, get('/v1/targets?key=hidden'))
    expect(debugs).toEqual([
      expect.stringMatching(/^GET https:\/\/api\.example\.test\/v1\/targets -> 503 in \d+ ms \(attempt 1\/3\)$/),
      expect.stringMatching(
        /^GET https:\/\/api\.example\.test\/v1\/targets failed after \d+ ms: ECONNRESET \(attempt 2\/3\)$/
      ),
      expect.stringMatching(/^GET https:\/\/api\.example\.test\/v1\/targets -> 200 in \d+ ms \(attempt 3\/3\)$/)
    ])
  })

  it('says when a connection closes before the response ends, and retries it', async () => {
    nock(ORIGIN)
      .get('/v1/targets')
      .replyWithError(netError('ECONNRESET', 'aborted'))
      .get('/v1/targets')
      .reply(200, '[1]')
    const { http, infos } = recordingHttp()
    const res = await send(http, get())
    expect(res.body.toString()).toBe('[1]')
    expect(infos).toEqual(['The targets request failed on attempt 1 of 3 (aborted); retrying in 1.1 s'])
  })

  it('explains an untrusted certificate and names NODE_EXTRA_CA_CERTS', async () => {
    nock(ORIGIN)
      .get('/v1/targets')
      .replyWithError(netError('SELF_SIGNED_CERT_IN_CHAIN', 'self-signed certificate in certificate chain'))
    const { http } = recordingHttp()
    await expect(send(http, get())).rejects.toThrow(
      /not trusted by this machine \(SELF_SIGNED_CERT_IN_CHAIN\).*NODE_EXTRA_CA_CERTS/
    )
  })
})

/** A clock that the recorded sleeps move forward, so the retry window can be tested without waiting. */
function clocked(overrides: Parameters<typeof recordingHttp>[0] = {}) {
  const clock = { now: Date.parse('2026-11-22T06:00:00Z') }
  const recorded = recordingHttp({
    now: () => clock.now,
    sleep: async ms => {
      recorded.waits.push(ms)
      clock.now += ms
    },
    ...overrides
  })
  return { ...recorded, clock }
}

describe('the shared pause', () => {
  /** A gate that records the pauses asked of it. */
  const gate = (): Gate & { pauses: number[] } => {
    const pauses: number[] = []
    return { pauses, ready: async () => undefined, pause: ms => void pauses.push(ms) }
  }

  it.each([
    ['a 429 that is retried: the wait it asked for', [429, { 'Retry-After': '2' }], 3, [2000]],
    ['a 429 on the last attempt: the backoff it would have had', [429, {}], 1, [1125]],
    ['a 429 asking for longer than the step waits: 60 s', [429, { 'Retry-After': '3600' }], 3, [60_000]],
    ['a 503 with a wait on the last attempt: that wait', [503, { 'Retry-After': '5' }], 1, [5000]],
    ['a 503 without a wait: none', [503, {}], 1, []],
    ['a 500: none', [500, {}], 1, []]
  ] as const)('pauses every request through the gate after %s', async (_what, [code, headers], maxAttempts, pauses) => {
    nock(ORIGIN).get('/v1/targets').reply(code, '', headers).get('/v1/targets').reply(200, '[]')
    const { http } = recordingHttp({ maxAttempts })
    const shared = gate()
    await http.send(get(), shared).catch(() => undefined)
    expect(shared.pauses).toEqual(pauses)
    nock.cleanAll()
  })
})

describe('retry window', () => {
  it('returns the last response once the next retry would start over 45 s after the first', async () => {
    nock(ORIGIN).get('/v1/targets').times(10).reply(503, 'down')
    const { http, waits, clock } = clocked({ maxAttempts: 10, random: () => 1 })
    const started = clock.now
    const res = await send(http, get())
    expect(res.status).toBe(503)
    expect(res.attempts).toBe(6)
    expect(waits).toEqual([1500, 3000, 6000, 12_000, 20_000]) // the next, 20 s more, would pass 45 s
    expect(clock.now - started).toBe(42_500)
  })

  it('rides out a 15 s outage with the default six attempts, even with the shortest waits', async () => {
    const { http, clock } = clocked({ maxAttempts: 6, random: () => 0 })
    const started = clock.now
    nock(ORIGIN)
      .get('/v1/targets')
      .times(6)
      .reply(() => (clock.now - started < 15_000 ? [503, 'down'] : [200, '[]']))
    const res = await send(http, get())
    expect(res.status).toBe(200)
    expect(res.attempts).toBe(6)
    expect(clock.now - started).toBeGreaterThan(15_000)
  })

  it('still retries when the next attempt would start exactly 45 s after the first', async () => {
    const { http, clock } = clocked({ maxAttempts: 3 })
    const started = clock.now
    nock(ORIGIN)
      .get('/v1/targets')
      .reply(() => {
        clock.now += 10_000
        return [503, '']
      })
      .get('/v1/targets')
      .reply(() => {
        clock.now = started + 45_000 - 2250 // the next wait (2.25 s at random 0.5) ends at 45 s
        return [503, '']
      })
      .get('/v1/targets')
      .reply(200, '[]')
    await expect(send(http, get())).resolves.toMatchObject({ status: 200, attempts: 3 })
  })

  it('names the window when connection errors outlast it', async () => {
    nock(ORIGIN).get('/v1/targets').times(10).replyWithError(netError('ECONNRESET', 'read ECONNRESET'))
    const { http } = clocked({ maxAttempts: 10, random: () => 1 })
    await expect(send(http, get())).rejects.toThrow(
      'Failed to list targets: GET https://api.example.test failed (after 6 attempts): read ECONNRESET; retries stop 45 s after the first attempt'
    )
  })

  it('gives up on a refused connection within 5 s: nothing listens on that port', async () => {
    nock(ORIGIN).get('/v1/targets').times(10).replyWithError(netError('ECONNREFUSED', 'connect ECONNREFUSED'))
    const { http, waits } = clocked({ maxAttempts: 6, random: () => 1 })
    await expect(send(http, { ...get() })).rejects.toThrow(
      'Failed to list targets: GET https://api.example.test failed (after 3 attempts): api.example.test refused the connection (ECONNREFUSED): no server listens on that port; check the URL input'
    )
    expect(waits).toEqual([1500, 3000]) // 4.5 s; the next wait would end 10.5 s after the first attempt
  })

  it('always makes a second attempt, however long the first took', async () => {
    const { http, clock } = clocked({ maxAttempts: 3 })
    nock(ORIGIN)
      .get('/v1/targets')
      .reply(() => {
        clock.now += 50_000
        return [502, 'slow and failed']
      })
      .get('/v1/targets')
      .reply(() => {
        clock.now += 50_000
        return [502, 'again']
      })
    const res = await send(http, get())
    expect(res.attempts).toBe(2)
    expect(res.body.toString()).toBe('again')
  })

  it('honours a wait the server asks for even past the window', async () => {
    const { http, waits, clock } = clocked({ maxAttempts: 3 })
    nock(ORIGIN)
      .get('/v1/targets')
      .reply(503)
      .get('/v1/targets')
      .reply(() => {
        clock.now += 40_000
        return [429, '', { 'Retry-After': '30' }]
      })
      .get('/v1/targets')
      .reply(200, '[]')
    const res = await send(http, get())
    expect(res.status).toBe(200)
    expect(waits).toEqual([1125, 30_000])
  })
})

describe('timeouts', () => {
  it('fails an attempt when the server sends nothing for the idle limit, and retries it', async () => {
    nock(ORIGIN).get('/v1/targets').delay(500).reply(200, '[]').get('/v1/targets').reply(200, '[1]')
    const { http, infos } = recordingHttp({ timeoutMs: 5000, idleTimeoutMs: 100 })
    const res = await send(http, get())
    expect(res.body.toString()).toBe('[1]')
    expect(infos[0]).toContain('(the server sent nothing for 0.1 s)')
  })

  it('lets a body that keeps arriving run past the idle limit', async () => {
    async function* steadyBody(): AsyncGenerator<string> {
      yield '['
      for (let i = 0; i < 12; i++) {
        await new Promise(resolve => setTimeout(resolve, 100))
        yield `${i},`
      }
      yield '12]'
    }
    nock(ORIGIN)
      .get('/v1/targets')
      .reply(200, () => Readable.from(steadyBody()))
    // 1.2 s in all, past the idle limit; each gap a tenth of it, so that a busy machine's late timers
    // do not make a gap look like the limit.
    const { http } = recordingHttp({ timeoutMs: 10_000, idleTimeoutMs: 1000, maxAttempts: 1 })
    const res = await send(http, get())
    expect(res.body.toString()).toBe('[0,1,2,3,4,5,6,7,8,9,10,11,12]')
  })

  it('fails a body that stalls for the idle limit', async () => {
    let finished!: () => void
    const bodyDone = new Promise<void>(resolve => (finished = resolve))
    async function* stalledBody(): AsyncGenerator<string> {
      try {
        yield '['
        await new Promise(resolve => setTimeout(resolve, 400))
        yield ']'
      } finally {
        finished()
      }
    }
    nock(ORIGIN)
      .get('/v1/targets')
      .reply(200, () => Readable.from(stalledBody()))
    const { http } = recordingHttp({ timeoutMs: 5000, idleTimeoutMs: 100, maxAttempts: 1 })
    await expect(send(http, get())).rejects.toThrow('failed: the server sent nothing for 0.1 s')
    await bodyDone
  })

  it('bounds each attempt and retries it', async () => {
    nock(ORIGIN).get('/v1/targets').delay(500).reply(200, '[]').get('/v1/targets').reply(200, '[1]')
    const { http, infos } = recordingHttp({ timeoutMs: 100 })
    const res = await send(http, get())
    expect(res.body.toString()).toBe('[1]')
    expect(infos[0]).toContain('no complete response within 0.1 s (timeout-seconds)')
  })

  it('counts the body: a response that starts in time but ends late times out', async () => {
    let finished!: () => void
    const bodyDone = new Promise<void>(resolve => (finished = resolve))
    async function* slowBody(): AsyncGenerator<string> {
      try {
        yield '['
        await new Promise(resolve => setTimeout(resolve, 300))
        yield ']'
      } finally {
        finished()
      }
    }
    nock(ORIGIN)
      .get('/v1/targets')
      .reply(200, () => Readable.from(slowBody()))
    const { http } = recordingHttp({ timeoutMs: 100, maxAttempts: 1 })
    await expect(send(http, get())).rejects.toThrow('no complete response within 0.1 s (timeout-seconds)')
    await bodyDone // nothing of this test may outlive it
  })
})

describe('redirects and size', () => {
  it('refuses a redirect and names where it pointed', async () => {
    nock(ORIGIN).get('/v1/targets').reply(302, '', { Location: 'https://elsewhere.example.test/v1/targets' })
    const { http } = recordingHttp()
    await expect(send(http, get())).rejects.toThrow(
      /redirected it \(HTTP 302\) to https:\/\/elsewhere\.example\.test\/v1\/targets; the bearer token is never sent/
    )
  })

  it('refuses a token POST redirect because it carries the secret', async () => {
    nock(ORIGIN).post('/oauth/token').reply(307, '', { Location: '/other/token' })
    const { http } = recordingHttp()
    const request: HttpRequest = { ...get('/oauth/token'), method: 'POST', body: '{}' }
    const sent = send(
      http,
      request,
      'exchange client credentials for a token',
      'a token request carries the client credentials and is never redirected'
    )
    await expect(sent).rejects.toThrow(
      /to https:\/\/api\.example\.test\/other\/token; a token request carries the client credentials and is never redirected\. Set the input/
    )
  })

  it('refuses a body over the cap from its Content-Length', async () => {
    nock(ORIGIN).get('/v1/targets').reply(200, 'x'.repeat(2048))
    const { http } = recordingHttp()
    await expect(send(http, get('/v1/targets', 1024))).rejects.toThrow('the response is larger than 1 KiB; refused')
  })

  it('refuses a body whose declared Content-Length is over the cap, before reading it', async () => {
    // One byte is sent, so only the declared length can trip the cap.
    nock(ORIGIN).get('/v1/targets').reply(200, 'x', { 'Content-Length': '999999' })
    const { http } = recordingHttp({ maxAttempts: 1 })
    await expect(send(http, get('/v1/targets', 1024))).rejects.toThrow('the response is larger than 1 KiB; refused')
  })

  it('accepts a body of exactly the cap, declared and streamed', async () => {
    nock(ORIGIN).get('/v1/targets').reply(200, 'y'.repeat(1024))
    const { http } = recordingHttp({ maxAttempts: 1 })
    await expect(send(http, get('/v1/targets', 1024))).resolves.toMatchObject({ status: 200 })
    nock(ORIGIN)
      .get('/v1/targets')
      .reply(200, () => Readable.from([Buffer.alloc(512, 'y'), Buffer.alloc(512, 'y')]))
    await expect(send(http, get('/v1/targets', 1024))).resolves.toMatchObject({ status: 200 })
  })

  it.each([
    [300, true],
    [399, true],
    [400, false],
    [200, false]
  ])('treats HTTP %i with a Location header as a redirect: %s', async (status, redirect) => {
    nock(ORIGIN).get('/v1/targets').reply(status, '[]', { Location: 'https://elsewhere.example.test/' })
    const { http } = recordingHttp({ maxAttempts: 1 })
    const sent = send(http, get())
    if (redirect) await expect(sent).rejects.toThrow('the server redirected it')
    else await expect(sent).resolves.toMatchObject({ status })
  })

  it('returns a 3xx without a Location header as it is', async () => {
    nock(ORIGIN).get('/v1/targets').reply(304, '')
    const { http } = recordingHttp({ maxAttempts: 1 })
    await expect(send(http, get())).resolves.toMatchObject({ status: 304 })
  })

  it('passes keepBytes to each attempt: the response keeps the head of the body and its size', async () => {
    nock(ORIGIN).get('/v1/targets').reply(200, 'x'.repeat(5000))
    const { http } = recordingHttp()
    const res = await send(http, { ...get(), keepBytes: 100 })
    expect(res).toMatchObject({ status: 200, bodyBytes: 5000, truncated: true, attempts: 1 })
    expect(res.body).toHaveLength(100)
  })

  it('keeps a whole body under keepBytes with its size, and says nothing of a cut', async () => {
    nock(ORIGIN).get('/v1/targets').reply(200, 'x'.repeat(50)).get('/v1/targets').reply(200, 'x'.repeat(50))
    const { http } = recordingHttp()
    const kept = await send(http, { ...get(), keepBytes: 100 })
    expect(kept).toEqual({
      status: 200,
      headers: expect.any(Object),
      body: Buffer.from('x'.repeat(50)),
      attempts: 1,
      bodyBytes: 50
    })
    expect('truncated' in kept).toBe(false)
    const whole = await send(http, get())
    expect(Object.keys(whole).sort()).toEqual(['attempts', 'body', 'headers', 'status'])
  })

  it('sends its User-Agent, the headers given and a body with its length in bytes, whatever the method', async () => {
    const reqheaders = { 'user-agent': 'test-agent', accept: 'application/json' }
    nock(ORIGIN, { reqheaders: { ...reqheaders, 'content-length': '4' } })
      .post('/v1/targets', 'ü=1')
      .reply(200, '{}')
    nock(ORIGIN, { reqheaders: { ...reqheaders, 'content-length': '14' } })
      .delete('/v1/targets/1', '{"why":"done"}')
      .reply(200, '{}')
    nock(ORIGIN, { reqheaders, badheaders: ['content-length'] })
      .get('/v1/targets')
      .reply(200, '{}')
    const { http } = recordingHttp()
    await expect(send(http, { ...get(), method: 'POST', body: 'ü=1' })).resolves.toMatchObject({ status: 200 })
    const deleted = send(http, { ...get('/v1/targets/1'), method: 'DELETE', body: () => '{"why":"done"}' })
    await expect(deleted).resolves.toMatchObject({ status: 200 })
    await expect(send(http, get())).resolves.toMatchObject({ status: 200 })
  })

  it('refuses a streamed body over the cap while it streams', async () => {
    nock(ORIGIN)
      .get('/v1/targets')
      .reply(200, () => Readable.from(Array.from({ length: 100 }, () => Buffer.alloc(512, 'x'))))
    const { http } = recordingHttp()
    await expect(send(http, get('/v1/targets', 4096))).rejects.toThrow('larger than 4 KiB')
  })
})

describe('dispose', () => {
  let server: Server
  let base: URL
  let handle: (req: IncomingMessage, res: ServerResponse) => void
  beforeAll(async () => {
    nock.enableNetConnect('127.0.0.1')
    server = createServer((req, res) => handle(req, res))
    await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
    base = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)
  })
  afterAll(async () => {
    server.closeAllConnections()
    await new Promise(resolve => server.close(resolve))
    nock.disableNetConnect()
  })
  const local = (): HttpRequest => ({ ...get(), url: new URL('/v1/targets', base) })

  it('abandons a request in flight without retrying it or saying it will', async () => {
    const arrived = new Promise<void>(resolve => {
      handle = () => resolve() // never answered
    })
    const { http, infos, waits } = recordingHttp()
    const sent = http.send(local())
    await arrived
    http.dispose()
    await expect(sent).rejects.toThrow('The targets request was abandoned: the step is ending')
    expect(infos).toEqual([])
    expect(waits).toEqual([])
  })

  it('ends the wait before a retry at once, and sends nothing after it', async () => {
    let requests = 0
    handle = (_req, res) => {
      requests++
      res.writeHead(503).end('busy')
    }
    // A 300 s wait: without dispose ending it, the test's own 30 s would.
    const { http, infos } = recordingHttp({
      sleep: undefined,
      policy: { backoffBaseMs: 400_000, backoffCapMs: 400_000, windowMs: 3_600_000 }
    })
    const timers = (): number => process.getActiveResourcesInfo().filter(r => r === 'Timeout').length
    const before = timers()
    const sent = http.send(local())
    while (infos.length === 0) await new Promise(resolve => setImmediate(resolve))
    expect(infos[0]).toMatch(/failed on attempt 1 of 3 \(HTTP 503.*\); retrying in 300\.0 s$/)
    http.dispose()
    await expect(sent).rejects.toThrow('The targets request was not sent: the step is ending')
    expect(requests).toBe(1)
    expect(timers()).toBe(before) // the wait's timer is gone, not left to hold the process
  })

  it('sends nothing once disposed', async () => {
    let requests = 0
    handle = (_req, res) => {
      requests++
      res.end('[]')
    }
    const { http } = recordingHttp()
    http.dispose()
    await expect(http.send(local())).rejects.toThrow('The targets request was not sent: the step is ending')
    expect(requests).toBe(0)
  })
})
