import {
  AttemptError,
  describeFailure,
  RequestError,
  ServerWaitError,
  TransportFailure
} from '../../src/http/errors.js'

const url = new URL('https://api.example.test/v1/targets?key=k3y')

describe('describeFailure', () => {
  it.each<[TransportFailure, string]>([
    [{ kind: 'timeout', ms: 30_000 }, 'no complete response within 30 s (timeout-seconds)'],
    [{ kind: 'idle', ms: 10_000 }, 'the server sent nothing for 10 s'],
    [{ kind: 'aborted' }, 'the connection closed before the response ended'],
    [
      { kind: 'redirect', status: 302, location: 'https://elsewhere.test/x' },
      'the server redirected it (HTTP 302) to https://elsewhere.test/x'
    ],
    [{ kind: 'too-large', maxBytes: 256 * 1024 }, 'the response is larger than 256 KiB; refused'],
    [
      { kind: 'tls-untrusted', code: 'SELF_SIGNED_CERT_IN_CHAIN' },
      'the TLS certificate of api.example.test is not trusted by this machine (SELF_SIGNED_CERT_IN_CHAIN)'
    ],
    [
      { kind: 'tls-invalid', code: 'CERT_HAS_EXPIRED', detail: 'certificate has expired' },
      'the TLS certificate of api.example.test is not valid (CERT_HAS_EXPIRED): certificate has expired'
    ],
    [{ kind: 'dns', hostname: 'api.example.test' }, 'the host api.example.test could not be resolved (ENOTFOUND)'],
    [{ kind: 'network', code: 'ECONNRESET', detail: 'socket hang up' }, 'socket hang up'],
    [{ kind: 'network', code: 'ECONNRESET', detail: '' }, 'ECONNRESET'],
    [
      { kind: 'network', code: 'ECONNREFUSED', detail: 'connect ECONNREFUSED', proxy: 'http://p.test:3128' },
      'connect ECONNREFUSED through the proxy http://p.test:3128'
    ],
    [
      { kind: 'network', code: 'ECONNREFUSED', detail: 'connect ECONNREFUSED 127.0.0.1:1' },
      'api.example.test refused the connection (ECONNREFUSED): no server listens on that port'
    ],
    [
      { kind: 'not-tls', reason: 'wrong version number' },
      'the server at api.example.test did not answer in TLS (wrong version number): it may be a plain-HTTP server'
    ],
    [
      { kind: 'network', code: 'EPROTO', detail: 'write EPROTO 40:error:0A0:SSL routines::bad:\n' },
      'write EPROTO 40:error:0A0:SSL routines::bad:'
    ]
  ])('states %o as a fact, with no advice', (failure, text) => {
    expect(describeFailure(failure, url)).toBe(text)
  })

  it.each<[TransportFailure, string]>([
    [
      { kind: 'dns', hostname: 'api.example.test' },
      'the host api.example.test could not be resolved (ENOTFOUND); check the base-url input'
    ],
    [
      { kind: 'network', code: 'ECONNREFUSED', detail: 'connect ECONNREFUSED 127.0.0.1:1' },
      'api.example.test refused the connection (ECONNREFUSED): no server listens on that port; check the base-url input'
    ],
    [
      { kind: 'not-tls', reason: 'wrong version number' },
      'the server at api.example.test did not answer in TLS (wrong version number): it may be a plain-HTTP server; check the base-url input (https:// or http://)'
    ],
    [{ kind: 'aborted' }, 'the connection closed before the response ended']
  ])('names the input a wrong URL would explain %o by', (failure, text) => {
    expect(describeFailure(failure, url, 'base-url')).toBe(text)
  })

  it('names a redirect target by origin and path, never its query', () => {
    const text = describeFailure(
      { kind: 'redirect', status: 301, location: 'https://x.test/token/?subscription-key=k3y' },
      url
    )
    expect(text).toBe('the server redirected it (HTTP 301) to https://x.test/token/?…')
  })

  it('hides the query of a redirect target that is nothing but a query', () => {
    const text = describeFailure({ kind: 'redirect', status: 302, location: '?subscription-key=k3y' }, url)
    expect(text).toBe('the server redirected it (HTTP 302) to ?…')
  })

  it.each<[TransportFailure, string]>([
    [
      { kind: 'tls-invalid', code: 'CERT_HAS_EXPIRED', detail: '\n  certificate has expired  \r\nat 2026-11-01' },
      'the TLS certificate of api.example.test is not valid (CERT_HAS_EXPIRED): certificate has expired'
    ],
    [{ kind: 'network', code: 'ECONNRESET', detail: 'socket hang up\nsecond line' }, 'socket hang up'],
    [{ kind: 'network', code: 'ECONNRESET', detail: '\r\n\n' }, 'ECONNRESET']
  ])("keeps the first line of the socket's message in %o, trimmed", (failure, text) => {
    expect(describeFailure(failure, url)).toBe(text)
  })

  it('cuts a long redirect target', () => {
    const text = describeFailure({ kind: 'redirect', status: 301, location: `https://x.test/${'a'.repeat(500)}` }, url)
    expect(text.length).toBeLessThan(260)
  })

  it('gives debug lines a short code', () => {
    expect(new AttemptError({ kind: 'network', code: 'EPIPE', detail: 'broken' }).code).toBe('EPIPE')
    expect(new AttemptError({ kind: 'idle', ms: 1 }).code).toBe('IDLE')
  })
})

describe('the errors a request rejects with', () => {
  // An error that escapes to a log or a stack trace still says what failed, by kind alone.
  it('name the kind of failure in their message, and keep the facts', () => {
    const failure: TransportFailure = { kind: 'dns', hostname: 'api.example.test' }
    expect(new AttemptError(failure).message).toBe('request attempt failed: dns')
    const failed = new RequestError(failure, 3, 60_000)
    expect(failed.message).toBe('request failed: dns')
    expect(failed).toMatchObject({ failure, attempts: 3, windowMs: 60_000 })
  })

  it('say how long the server asked to wait', () => {
    const wait = new ServerWaitError(429, 120_000, 60_000, 1_700_000_120_000)
    expect(wait.message).toBe('server asked to wait 120000 ms')
    expect(wait).toMatchObject({ status: 429, waitMs: 120_000, maxWaitMs: 60_000, retryAtMs: 1_700_000_120_000 })
  })
})
