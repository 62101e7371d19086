import {
  decide,
  DEFAULT_POLICY,
  isTransient,
  Outcome,
  parseRetryAfter,
  RetryPolicy,
  serverRequestedWait,
  sharedPause
} from '../../src/http/policy.js'
import fc from 'fast-check'

const policy: RetryPolicy = { ...DEFAULT_POLICY, maxAttempts: 6 }
const now = Date.parse('2026-11-22T06:00:00Z')
const status = (code: number, headers: Record<string, string> = {}): Outcome => ({ status: code, headers })
const progress = (attempt: number, elapsedMs = 0, random = 0.5) => ({ attempt, elapsedMs, nowMs: now, random })

describe('decide', () => {
  it.each([408, 429, 500, 502, 503, 504])('retries HTTP %i with equal-jitter backoff', code => {
    expect(decide(status(code), progress(1), policy)).toEqual({ retry: true, waitMs: 1125, serverAsked: false })
    expect(decide(status(code), progress(2, 2000), policy)).toEqual({ retry: true, waitMs: 2250, serverAsked: false })
  })

  it.each([200, 204, 301, 400, 401, 403, 404, 409, 422, 501])('uses HTTP %i as it is', code => {
    expect(decide(status(code), progress(1), policy)).toEqual({ retry: false, why: 'final' })
  })

  it('stops at max-attempts', () => {
    expect(decide(status(503), progress(6), policy)).toEqual({ retry: false, why: 'attempts' })
    expect(decide(status(503), progress(5), policy).retry).toBe(true)
  })

  it.each([
    [{ kind: 'timeout', ms: 30_000 }, true],
    [{ kind: 'idle', ms: 10_000 }, true],
    [{ kind: 'aborted' }, true],
    [{ kind: 'network', code: 'ECONNRESET', detail: 'reset' }, true],
    [{ kind: 'network', code: 'EAI_AGAIN', detail: 'dns later' }, true],
    [{ kind: 'network', code: 'EWEIRD', detail: 'odd' }, false],
    [{ kind: 'dns', hostname: 'x.test' }, false],
    [{ kind: 'redirect', status: 302, location: 'https://x.test/' }, false],
    [{ kind: 'too-large', maxBytes: 1 }, false],
    [{ kind: 'tls-untrusted', code: 'SELF_SIGNED_CERT_IN_CHAIN' }, false],
    [{ kind: 'tls-invalid', code: 'CERT_HAS_EXPIRED', detail: 'expired' }, false]
  ] as const)('a failure %o is transient: %s', (failure, transient) => {
    expect(isTransient({ failure })).toBe(transient)
    expect(decide({ failure }, progress(1), policy).retry).toBe(transient)
  })

  it('honours a wait the server asks for, even past the window, and says so', () => {
    const asked = status(429, { 'retry-after': '7' })
    expect(decide(asked, progress(1), policy)).toEqual({ retry: true, waitMs: 7000, serverAsked: true })
    expect(decide(asked, progress(3, 44_000), policy)).toEqual({ retry: true, waitMs: 7000, serverAsked: true })
  })

  it('stops, naming the wait, when the server asks for more than the step sits out', () => {
    expect(decide(status(503, { 'retry-after': '61' }), progress(1), policy)).toEqual({
      retry: false,
      why: 'server-wait',
      waitMs: 61_000
    })
    expect(decide(status(503, { 'retry-after': '60' }), progress(1), policy).retry).toBe(true)
  })

  it('closes the window for its own backoff: never a retry starting past 45 s, but always a second attempt', () => {
    expect(decide(status(503), progress(1, 60_000), policy).retry).toBe(true)
    // after attempt 2 the wait is 2250 at random 0.5: from 42.75 s it starts exactly at the window's end
    expect(decide(status(503), progress(2, 42_750), policy).retry).toBe(true)
    expect(decide(status(503), progress(2, 42_751), policy)).toEqual({ retry: false, why: 'window' })
  })

  it('caps the backoff and jitters between half and all of each step', () => {
    const waits = (random: number) =>
      [1, 2, 3, 4, 5].map(a => {
        const d = decide(status(500), progress(a, 0, random), { ...policy, maxAttempts: 10, windowMs: Infinity })
        return d.retry ? d.waitMs : undefined
      })
    expect(waits(0)).toEqual([750, 1500, 3000, 6000, 10_000])
    expect(waits(1)).toEqual([1500, 3000, 6000, 12_000, 20_000])
  })
})

describe('Retry-After parsing', () => {
  it.each([
    ['0', 0],
    ['120', 120_000],
    ['Sun, 22 Nov 2026 06:01:00 GMT', 60_000],
    ['Sun, 22 Nov 2026 05:00:00 GMT', undefined],
    ['Sun, 22 Nov 2026 06:00:00 GMT', undefined],
    ['Sun, 22 Nov 2026 06:00:01 GMT', 1000],
    ['soon', undefined],
    ['-5', undefined],
    ['1.5', undefined]
  ])('%s -> %s ms', (value, expected) => {
    expect(parseRetryAfter(value, now)).toBe(expected)
  })

  it('retries after the backoff, not at once, when the Retry-After date is already past', () => {
    const past = { 'retry-after': 'Sun, 22 Nov 2026 05:59:58 GMT' }
    expect(decide(status(429, past), progress(1), policy)).toEqual({ retry: true, waitMs: 1125, serverAsked: false })
    expect(sharedPause(status(429, past), progress(1), policy)).toBe(1125)
  })

  it('falls back to x-ratelimit-reset when Retry-After cannot be read', () => {
    expect(serverRequestedWait({ 'retry-after': 'soon', 'x-ratelimit-reset': String(now / 1000 + 5) }, now)).toBe(5000)
    // a reset already past says nothing: the caller's own backoff applies
    expect(serverRequestedWait({ 'x-ratelimit-reset': String(now / 1000 - 5) }, now)).toBeUndefined()
    expect(decide(status(429, { 'x-ratelimit-reset': String(now / 1000 - 5) }), progress(1), policy)).toEqual({
      retry: true,
      waitMs: 1125,
      serverAsked: false
    })
    expect(serverRequestedWait({ 'retry-after': ['3', '9'] } as unknown as Record<string, string>, now)).toBe(3000)
  })

  it('reads an x-ratelimit-reset with spaces around it', () => {
    expect(serverRequestedWait({ 'x-ratelimit-reset': ` ${now / 1000 + 2} ` }, now)).toBe(2000)
  })

  it('prefers Retry-After over x-ratelimit-reset and ignores junk', () => {
    expect(serverRequestedWait({ 'retry-after': '2', 'x-ratelimit-reset': String(now / 1000 + 50) }, now)).toBe(2000)
    expect(serverRequestedWait({ 'x-ratelimit-reset': 'tomorrow' }, now)).toBeUndefined()
    expect(serverRequestedWait({}, now)).toBeUndefined()
  })
})

describe('under random input', () => {
  it('Retry-After and x-ratelimit-reset give undefined or a finite wait of zero or more', () => {
    const now = Date.parse('2026-11-22T06:00:00Z')
    const values = fc.oneof(
      fc.string(),
      fc.nat().map(String),
      fc.integer().map(String),
      fc.date({ noInvalidDate: true }).map(d => d.toUTCString())
    )
    fc.assert(
      fc.property(values, values, (retryAfter, reset) => {
        for (const wait of [
          parseRetryAfter(retryAfter, now),
          serverRequestedWait({ 'retry-after': retryAfter, 'x-ratelimit-reset': reset }, now)
        ]) {
          if (wait !== undefined && !(Number.isFinite(wait) && wait >= 0)) return false
        }
        return true
      }),
      { numRuns: 3000 }
    )
  })

  it('a Retry-After in seconds is read exactly', () => {
    fc.assert(fc.property(fc.integer({ min: 0, max: 1_000_000 }), s => parseRetryAfter(String(s), 0) === s * 1000))
  })
})

describe('a request that is not idempotent (POST, PATCH)', () => {
  it.each([
    [status(500), false],
    [status(502), false],
    [status(408), false],
    [status(503), false],
    [status(503, { 'retry-after': '2' }), true],
    [status(503, { 'x-ratelimit-reset': String(now / 1000 + 2) }), true],
    [status(429), true],
    [{ failure: { kind: 'network', code: 'ECONNREFUSED', detail: 'refused' } } as Outcome, true],
    [{ failure: { kind: 'network', code: 'EAI_AGAIN', detail: 'dns' } } as Outcome, true],
    [{ failure: { kind: 'network', code: 'ECONNRESET', detail: 'reset' } } as Outcome, false],
    [{ failure: { kind: 'timeout', ms: 1 } } as Outcome, false],
    [{ failure: { kind: 'idle', ms: 1 } } as Outcome, false],
    [{ failure: { kind: 'aborted' } } as Outcome, false]
  ])('is repeated after %o only where the server cannot have acted: %s', (outcome, retried) => {
    expect(isTransient(outcome, false)).toBe(retried)
    expect(decide(outcome, progress(1), policy, false).retry).toBe(retried)
  })
})

describe('sharedPause', () => {
  it.each([
    [status(429), 1125],
    [status(429, { 'retry-after': '7' }), 7000],
    [status(429, { 'retry-after': '7200' }), 60_000],
    [status(503, { 'retry-after': '3' }), 3000],
    [status(502, { 'retry-after': '3' }), 3000],
    [status(503), undefined],
    [status(400, { 'retry-after': '3' }), undefined],
    [{ failure: { kind: 'aborted' } } as Outcome, undefined]
  ])('%j -> %s ms, on any attempt', (outcome, expected) => {
    expect(sharedPause(outcome, progress(1), policy)).toBe(expected)
    if (expected !== undefined && expected !== 1125) expect(sharedPause(outcome, progress(6), policy)).toBe(expected)
  })
})

describe('a refused connection', () => {
  const refused: Outcome = { failure: { kind: 'network', code: 'ECONNREFUSED', detail: 'connect ECONNREFUSED' } }

  it('is retried within 5 s of the first attempt only: nothing listens on that port', () => {
    expect(decide(refused, progress(1, 0, 1), policy)).toEqual({ retry: true, waitMs: 1500, serverAsked: false })
    expect(decide(refused, progress(2, 1500, 1), policy)).toEqual({ retry: true, waitMs: 3000, serverAsked: false })
    expect(decide(refused, progress(3, 4500, 1), policy)).toEqual({ retry: false, why: 'refused' })
    // A reset connection keeps the 45 s window.
    const reset: Outcome = { failure: { kind: 'network', code: 'ECONNRESET', detail: 'read ECONNRESET' } }
    expect(decide(reset, progress(3, 4500, 1), policy).retry).toBe(true)
  })
})
