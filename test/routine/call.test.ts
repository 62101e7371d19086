import { jest } from '@jest/globals'
import { Gate, HttpRequest, HttpResponse, Transport } from '../../src/http/client.js'
import { RequestError, ServerWaitError, TransportFailure } from '../../src/http/errors.js'
import { CallContext, callPlan, makeCall, prepareCall } from '../../src/routine/call.js'
import { idempotencyKey } from '../../src/routine/fingerprint.js'
import { mask } from '../../src/secrets.js'
import { parseCall } from '../../src/service/call.js'

const res = (status: number, body = '{"ok":true}', attempts = 1): HttpResponse => ({
  status,
  headers: {},
  body: Buffer.from(body),
  attempts
})

/**
 * A transport with no socket: like Http, it waits for the gate before each attempt, then answers
 * from `answers` in turn (an Error is thrown), recording each request and its token.
 */
function fake(...answers: (HttpResponse | Error | ((gate: Gate) => Promise<HttpResponse>))[]) {
  const sent: HttpRequest[] = []
  const transport: Transport = {
    send: async (request, gate) => {
      const answer = answers[Math.min(sent.length, answers.length - 1)]
      sent.push(request)
      if (typeof answer === 'function') return answer(gate as Gate)
      await gate?.ready()
      if (answer instanceof Error) throw answer
      return answer
    }
  }
  return { transport, sent }
}

const openGate = (): Gate & { paused: number[] } => {
  const paused: number[] = []
  return { paused, ready: async () => undefined, pause: ms => void paused.push(ms) }
}

const fixedBearer = (token: string, fresh?: string) => ({
  current: jest.fn(async () => token),
  recover: jest.fn(async (_refused: string) => fresh)
})

function context(transport: Transport, overrides: Partial<CallContext> = {}): CallContext {
  let clock = 1000
  return {
    http: transport,
    spec: parseCall('POST /v1/t/{id}/scan', '{"name":"{name}","n":1}'),
    baseUrl: new URL('https://api.test/base/'),
    runId: '42',
    fingerprint: '0123456789abcdef',
    idempotent: false,
    accept: new Set([404]),
    bearer: fixedBearer('tok-1'),
    gate: openGate(),
    keepBytes: 1000,
    cancelled: () => false,
    now: () => (clock += 250),
    ...overrides
  }
}

async function call(ctx: CallContext, target: unknown = { id: 'a b', name: 'n' }, key = 'a b', index = 4) {
  const state = { sent: false }
  const plan = callPlan(ctx)
  const end = await makeCall(ctx, plan, prepareCall(ctx, plan, target, key), index, state)
  return { end, state }
}

describe('callPlan', () => {
  it.each([
    ['https://api.test/base/', 'https://api.test/base'],
    ['https://api.test/base///', 'https://api.test/base'],
    ['https://api.test/', 'https://api.test'],
    ['https://api.test:8443/a/b?q=1#f', 'https://api.test:8443/a/b']
  ])('gives base-url %s the prefix %s', (base, prefix) => {
    expect(callPlan(context(fake(res(200)).transport, { baseUrl: new URL(base) })).prefix).toBe(prefix)
  })

  it.each([
    ['POST', true],
    ['PATCH', true],
    ['PUT', false],
    ['DELETE', false],
    ['GET', false]
  ])('marks %s unsafe: %s', (method, unsafe) => {
    const spec = parseCall(`${method} /x`, '')
    expect(callPlan(context(fake(res(200)).transport, { spec })).unsafe).toBe(unsafe)
  })
})

describe('prepareCall', () => {
  it("works out a target's URL, body and Idempotency-Key before any call", () => {
    const ctx = context(fake(res(200)).transport)
    expect(prepareCall(ctx, callPlan(ctx), { id: 'a/b', name: 'x' }, 'a/b')).toEqual({
      target: { id: 'a/b', name: 'x' },
      key: 'a/b',
      url: new URL('https://api.test/base/v1/t/a%2Fb/scan'),
      body: '{"name":"x","n":1}',
      idempotencyKey: idempotencyKey('42', '0123456789abcdef', 'a/b')
    })
    const put = context(fake(res(200)).transport, { spec: parseCall('PUT /v1/t/{id}', '') })
    expect(prepareCall(put, callPlan(put), { id: 7 }, '7')).toEqual({
      target: { id: 7 },
      key: '7',
      url: new URL('https://api.test/base/v1/t/7'),
      body: undefined,
      idempotencyKey: undefined
    })
  })
})

describe('makeCall', () => {
  it('sends the request under base-url, with the token, its body and an Idempotency-Key', async () => {
    const { transport, sent } = fake(res(201, '{"id":"x"}', 2))
    const { end, state } = await call(context(transport))
    expect(end).toEqual({ outcome: 'succeeded', status: 201, attempts: 2, ms: 250, text: '{"id":"x"}' })
    expect(state.sent).toBe(true)
    expect(sent).toHaveLength(1)
    expect(sent[0]).toEqual({
      method: 'POST',
      url: new URL('https://api.test/base/v1/t/a%20b/scan'),
      headers: {
        Accept: 'application/json',
        'Content-Type': 'application/json',
        'Idempotency-Key': idempotencyKey('42', '0123456789abcdef', 'a b'),
        Authorization: 'Bearer tok-1'
      },
      body: '{"name":"n","n":1}',
      maxBytes: 1024 * 1024 * 1024,
      keepBytes: 1000,
      label: 'call #5',
      idempotent: false
    })
    expect(sent[0].headers['Idempotency-Key']).toMatch(/^[0-9a-f]{32}$/)
  })

  it('sends no Content-Type without a body, and an Idempotency-Key only for a POST or PATCH', async () => {
    const headers = async (method: string, body = '') => {
      const { transport, sent } = fake(res(200))
      await call(context(transport, { spec: parseCall(`${method} /v1/t/{id}`, body) }))
      return sent[0].headers
    }
    expect(await headers('DELETE')).toEqual({ Accept: 'application/json', Authorization: 'Bearer tok-1' })
    expect(await headers('PUT', '{}')).toEqual({
      Accept: 'application/json',
      'Content-Type': 'application/json',
      Authorization: 'Bearer tok-1'
    })
    expect((await headers('PATCH', '{}'))['Idempotency-Key']).toBe(idempotencyKey('42', '0123456789abcdef', 'a b'))
    expect((await headers('POST'))['Idempotency-Key']).toBe(idempotencyKey('42', '0123456789abcdef', 'a b'))
  })

  it.each([
    ['POST', false, false],
    ['POST', true, true],
    ['PATCH', false, false],
    ['PUT', false, true],
    ['DELETE', false, true],
    ['GET', true, true]
  ])('tells the transport a %s with call-idempotent %s may be repeated: %s', async (method, idempotent, expected) => {
    const { transport, sent } = fake(res(200))
    await call(context(transport, { spec: parseCall(`${method} /x`, ''), idempotent }))
    expect(sent[0].idempotent).toBe(expected)
  })

  it.each([
    [200, 'succeeded'],
    [299, 'succeeded'],
    [404, 'succeeded'],
    [300, 'failed'],
    [400, 'failed'],
    [500, 'failed']
  ])('takes HTTP %i as %s (2xx and call-accept succeed)', async (status, outcome) => {
    const { end } = await call(context(fake(res(status, 'said')).transport))
    expect(end).toEqual({ outcome, status, attempts: 1, ms: 250, text: 'said' })
  })

  it('says when the body was longer than what was kept', async () => {
    const { end } = await call(context(fake({ ...res(200, 'head'), truncated: true }).transport))
    expect(end).toEqual({ outcome: 'succeeded', status: 200, attempts: 1, ms: 250, text: 'head', truncated: true })
  })

  it('recovers a 401 once with a fresh token, and calls again', async () => {
    const bearer = fixedBearer('old', 'new')
    const { transport, sent } = fake(res(401, 'no'), res(200, 'yes'))
    const { end } = await call(context(transport, { bearer }))
    expect(sent.map(r => r.headers.Authorization)).toEqual(['Bearer old', 'Bearer new'])
    expect(bearer.recover).toHaveBeenCalledWith('old')
    expect(end).toMatchObject({ outcome: 'succeeded', status: 200, text: 'yes' })
  })

  it('fails a 401 that cannot be recovered, or comes again, without a third request', async () => {
    const none = fake(res(401, 'no'))
    expect((await call(context(none.transport))).end).toMatchObject({ outcome: 'failed', status: 401, text: 'no' })
    expect(none.sent).toHaveLength(1)
    const twice = fake(res(401, 'no'), res(401, 'still no'))
    const bearer = fixedBearer('old', 'new')
    const { end } = await call(context(twice.transport, { bearer }))
    expect(end).toMatchObject({ outcome: 'failed', status: 401, text: 'still no' })
    expect(twice.sent).toHaveLength(2)
    expect(bearer.recover).toHaveBeenCalledTimes(1)
  })

  it('does not recover a status other than 401', async () => {
    const bearer = fixedBearer('old', 'new')
    const { transport, sent } = fake(res(403))
    await call(context(transport, { bearer }))
    expect(bearer.recover).not.toHaveBeenCalled()
    expect(sent).toHaveLength(1)
  })

  it.each<[string, TransportFailure, 'failed' | 'unknown']>([
    ['a name that does not resolve', { kind: 'dns', hostname: 'api.test' }, 'failed'],
    ['a refused connection', { kind: 'network', code: 'ECONNREFUSED', detail: 'connect ECONNREFUSED' }, 'failed'],
    ['an unreachable host', { kind: 'network', code: 'EHOSTUNREACH', detail: '' }, 'failed'],
    ['an unreachable network', { kind: 'network', code: 'ENETUNREACH', detail: '' }, 'failed'],
    ['a DNS retry', { kind: 'network', code: 'EAI_AGAIN', detail: '' }, 'failed'],
    ['an untrusted certificate', { kind: 'tls-untrusted', code: 'SELF_SIGNED_CERT_IN_CHAIN' }, 'failed'],
    ['an invalid certificate', { kind: 'tls-invalid', code: 'CERT_HAS_EXPIRED', detail: 'expired' }, 'failed'],
    ['a redirect', { kind: 'redirect', status: 302, location: 'https://x.test/' }, 'failed'],
    ['a response too large', { kind: 'too-large', maxBytes: 1024 }, 'failed'],
    ['a timeout', { kind: 'timeout', ms: 30_000 }, 'unknown'],
    ['an idle server', { kind: 'idle', ms: 10_000 }, 'unknown'],
    ['a cut response', { kind: 'aborted' }, 'unknown'],
    ['a reset connection', { kind: 'network', code: 'ECONNRESET', detail: 'socket hang up' }, 'unknown'],
    ['a broken pipe', { kind: 'network', code: 'EPIPE', detail: 'write EPIPE' }, 'unknown'],
    ['a code that only starts like a refusal', { kind: 'network', code: 'ECONNREFUSEDX', detail: 'x' }, 'unknown'],
    ['a code that only ends like a refusal', { kind: 'network', code: 'XECONNREFUSED', detail: 'x' }, 'unknown']
  ])('takes %s as %s: the request may or may not have reached the service', async (_, failure, outcome) => {
    const { end } = await call(context(fake(new RequestError(failure, 3)).transport))
    expect(end.outcome).toBe(outcome)
    expect(end).toMatchObject({ status: null, attempts: 3, ms: 250, text: '' })
    expect(typeof end.error).toBe('string')
  })

  it('says what a transport failure was', async () => {
    const { end } = await call(
      context(fake(new RequestError({ kind: 'tls-untrusted', code: 'SELF_SIGNED' }, 1)).transport)
    )
    expect(end.error).toBe('the TLS certificate of api.test is not trusted by this machine (SELF_SIGNED)')
    const reset = await call(
      context(fake(new RequestError({ kind: 'network', code: 'ECONNRESET', detail: 'socket hang up' }, 2)).transport)
    )
    expect(reset.end).toEqual({
      outcome: 'unknown',
      status: null,
      attempts: 2,
      ms: 250,
      text: '',
      error: 'socket hang up'
    })
  })

  it('fails a call whose server asks to wait longer than the step does, with its status', async () => {
    const { end } = await call(context(fake(new ServerWaitError(503, 120_001, 59_001, 0)).transport))
    expect(end).toEqual({
      outcome: 'failed',
      status: 503,
      attempts: null,
      ms: 250,
      text: '',
      error: 'the service asked to retry in 121 s, later than the step waits (60 s)'
    })
  })

  it('fails a call on any other error, redacted', async () => {
    mask('call-secret-42')
    const { end } = await call(context(fake(new Error('odd call-secret-42 failure')).transport))
    expect(end).toEqual({
      outcome: 'failed',
      status: null,
      attempts: null,
      ms: 250,
      text: '',
      error: 'odd *** failure'
    })
    const thrown = fake(async () => {
      throw 'a plain string'
    })
    expect((await call(context(thrown.transport))).end.error).toBe('a plain string')
  })

  it('fails a call whose token cannot be had, sending nothing', async () => {
    const bearer = { current: async () => Promise.reject(new Error('renewal failed')), recover: async () => undefined }
    const { transport, sent } = fake(res(200))
    const { end, state } = await call(context(transport, { bearer }))
    expect(end).toMatchObject({ outcome: 'failed', error: 'renewal failed' })
    expect(sent).toHaveLength(0)
    expect(state.sent).toBe(false)
  })

  it('makes nothing when cancelled before its first attempt', async () => {
    const gate = openGate()
    const ready = jest.spyOn(gate, 'ready')
    const { transport } = fake(res(200))
    const { end, state } = await call(context(transport, { gate, cancelled: () => true }))
    expect(end).toEqual({
      outcome: 'not-made',
      status: null,
      attempts: null,
      ms: 250,
      text: '',
      error: 'cancelled before it was sent'
    })
    expect(state.sent).toBe(false)
    expect(ready).not.toHaveBeenCalled()
  })

  it('makes nothing when cancelled while it waits at the gate', async () => {
    let cancelled = false
    const gate = {
      ready: async () => {
        cancelled = true
      },
      pause: () => undefined
    }
    const { end, state } = await call(context(fake(res(200)).transport, { gate, cancelled: () => cancelled }))
    expect(end).toMatchObject({ outcome: 'not-made', error: 'cancelled before it was sent' })
    expect(state.sent).toBe(false)
  })

  it('ends unknown when cancelled before a retry of an attempt that was sent', async () => {
    let cancelled = false
    const { transport, sent } = fake(async gate => {
      await gate.ready() // the first attempt goes out, and fails in a way that is retried
      cancelled = true
      await gate.ready() // the retry
      return res(200)
    })
    const { end, state } = await call(context(transport, { cancelled: () => cancelled }))
    expect(end).toEqual({
      outcome: 'unknown',
      status: null,
      attempts: null,
      ms: 250,
      text: '',
      error: 'cancelled before its retry; the service may have acted on an earlier attempt'
    })
    expect(state.sent).toBe(true)
    expect(sent).toHaveLength(1)
  })

  it('waits at the shared gate before each attempt, and hands it the waits a server asks for', async () => {
    const gate = openGate()
    const ready = jest.spyOn(gate, 'ready')
    const { transport } = fake(async g => {
      await g.ready()
      g.pause(1500)
      await g.ready()
      return res(200)
    })
    const { end } = await call(context(transport, { gate }))
    expect(end.outcome).toBe('succeeded')
    expect(ready).toHaveBeenCalledTimes(2)
    expect(gate.paused).toEqual([1500])
  })
})
