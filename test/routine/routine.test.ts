import { jest } from '@jest/globals'
import { EventEmitter, getEventListeners } from 'node:events'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Bearer } from '../../src/auth/bearer.js'
import { Gate, HttpRequest, HttpResponse, Transport } from '../../src/http/client.js'
import { RequestError, ServerWaitError } from '../../src/http/errors.js'
import { parseExact } from '../../src/json.js'
import { parseCall } from '../../src/service/call.js'
import { Preflight } from '../../src/routine/preflight.js'
import { Cancellation } from '../../src/cancel.js'
import { DRAIN_MS, RoutineOptions, RoutineResult, runRoutine } from '../../src/routine/routine.js'
import { outcomeWords } from '../../src/routine/outcome-words.js'
import { EarlierResults } from '../../src/routine/resume.js'
import { routineError } from '../../src/routine/verdict.js'
import { callOutputs } from '../../src/report/outputs.js'
import { mask } from '../../src/secrets.js'
import { targetKey } from '../../src/targets/key.js'
import { resultObjects, resultTexts, routineOptions } from '../helpers.js'

type Offer = (batch: readonly unknown[]) => Promise<void>

let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'm2m-routine-'))
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

/** A bearer that never renews. */
function fixedBearer(accessToken: string) {
  const latest = { accessToken, tokenType: 'Bearer', source: 'input' as const }
  return { latest, current: async () => accessToken, recover: async () => undefined }
}

/** A transport with no socket that answers from `answer` and records each request. */
function fake(answer: (r: HttpRequest) => HttpResponse | Error) {
  const sent: HttpRequest[] = []
  const gates: (Gate | undefined)[] = []
  const transport: Transport = {
    send: async (request, gate) => {
      sent.push(request)
      gates.push(gate)
      const a = answer(request)
      if (a instanceof Error) throw a
      return a
    }
  }
  return { transport, sent, gates }
}
const res = (status: number, body = '{}'): HttpResponse => ({
  status,
  headers: {},
  body: Buffer.from(body),
  attempts: 1
})
const outcomes = (result: RoutineResult) => Object.fromEntries(result.outcomes)
/** Feeds the targets as the snapshot does, a batch at a time (of two here, so that a batch has more than one). */
const list = (targets: unknown[]) => async (offer: Offer) => {
  for (let i = 0; i < targets.length; i += 2) await offer(targets.slice(i, i + 2))
}
const options = (overrides: Partial<RoutineOptions> = {}): RoutineOptions => routineOptions(dir, overrides)

describe('runRoutine', () => {
  it.each([
    ['small, small', [false, false], [0, 1]],
    ['truncated, small', [true, false], [0, 0]],
    ['truncated, small, small', [true, false, false], [0, 0, 1]]
  ])(
    'starts the next call a turn later after a small answer, at once after a truncated one (%s)',
    async (_, cut, expected) => {
      // At concurrency 1: the event loop's turns counted from the first call, at each call.
      let turns = 0
      let counting = true
      const tick = (): void => {
        turns++
        if (counting) setImmediate(tick)
      }
      const calls: number[] = []
      const transport: Transport = {
        send: async () => {
          if (calls.length === 0) setImmediate(tick)
          const truncated = cut[calls.length]
          calls.push(turns)
          if (calls.length === cut.length) counting = false
          return { ...res(200), ...(truncated ? { truncated: true as const, bodyBytes: 1 << 20 } : {}) }
        }
      }
      const targets = cut.map((_, i) => ({ id: `t${i}` }))
      await runRoutine(transport, options({ concurrency: 1, targets: list(targets) }))
      expect(calls).toEqual(expected)
    }
  )

  it('calls under base-url with the token, an Idempotency-Key per target, and a shared gate', async () => {
    const { transport, sent, gates } = fake(() => res(200))
    const result = await runRoutine(transport, options({ targets: list([{ id: 'a' }, { id: 'b' }, { id: 'a' }]) }))
    expect(sent.map(r => r.url.href)).toEqual([
      'https://api.test/base/v1/t/a',
      'https://api.test/base/v1/t/b',
      'https://api.test/base/v1/t/a'
    ])
    expect(sent[0].headers.Authorization).toBe('Bearer tok-123456')
    expect(sent[0].idempotent).toBe(false)
    expect(sent[0].headers['Idempotency-Key']).toBe(sent[2].headers['Idempotency-Key'])
    expect(sent[0].headers['Idempotency-Key']).not.toBe(sent[1].headers['Idempotency-Key'])
    expect(gates.every(Boolean)).toBe(true)
    expect(result.calls).toBe(3)
    expect(outcomes(result)).toEqual({ succeeded: 3 })
    expect(routineError('POST /v1/t/{id}', result)).toBeUndefined()
  })

  it('records failures by status and says which targets failed first', async () => {
    const { transport } = fake(r =>
      r.url.pathname.endsWith('/b')
        ? new RequestError({ kind: 'aborted' }, 1)
        : res(r.url.pathname.endsWith('/c') ? 404 : 500, '{"e":1}')
    )
    const result = await runRoutine(
      transport,
      options({ targets: list([{ id: 'a' }, { id: 'b' }, { id: 'c' }]), accept: new Set([404]) })
    )
    expect(result.calls).toBe(3)
    // A connection cut after sending may have reached the service: unknown, not failed.
    expect(outcomes(result)).toEqual({ succeeded: 1, failed: 1, unknown: 1 })
    expect(routineError('POST /v1/t/{id}', result)?.message).toBe(
      'Failed to call POST /v1/t/{id} for 0 targets: 1 succeeded, 1 failed (HTTP 500: 1), 1 unknown; ' +
        'first: a (HTTP 500), b (no response). The job summary and the results-file output list every call; ' +
        'a re-run with call-resume-from makes only what is left.'
    )
    const lines = resultObjects(result.resultsFile)
    expect(lines.map(l => l.status).sort()).toEqual([404, 500, null])
    expect(lines.find(l => l.status === null)).toMatchObject({
      error: 'the connection closed before the response ended'
    })
  })

  it('names the folder when the results file cannot be written, before any call', async () => {
    const { transport, sent } = fake(() => res(200))
    const missing = join(dir, 'gone')
    await expect(runRoutine(transport, options({ resultsDir: missing, targets: list([{ id: 'a' }]) }))).rejects.toThrow(
      new RegExp(`^Failed to write the results file in ${missing} \\(RUNNER_TEMP\\): .*ENOENT.*\\. Free disk space`)
    )
    expect(sent).toHaveLength(0)
  })

  it('a PUT, or call-idempotent, may be repeated', async () => {
    const { transport, sent } = fake(() => res(200))
    await runRoutine(transport, options({ spec: parseCall('PUT /x/{id}', ''), targets: list([{ id: 1 }]) }))
    await runRoutine(transport, options({ idempotent: true, targets: list([{ id: 1 }]) }))
    expect(sent.map(r => r.idempotent)).toEqual([true, true])
    expect(sent[0].headers['Idempotency-Key']).toBeUndefined()
  })
})

describe('a dry run', () => {
  it('sends nothing and writes a planned line per target, keeping the first 20 calls to show', async () => {
    const { transport, sent } = fake(() => res(200))
    const targets = Array.from({ length: 25 }, (_, i) => ({ id: `t${i}` }))
    const spec = parseCall('PATCH /v1/t/{id}', '{"on":"{id}"}')
    const result = await runRoutine(transport, options({ spec, dryRun: true, targets: list(targets), count: 25 }))
    expect(sent).toHaveLength(0)
    expect(outcomes(result)).toEqual({ planned: 25 })
    expect(result.calls).toBe(0)
    expect(result.planned).toHaveLength(20)
    expect(result.planned[0]).toEqual({ index: 0, key: 't0', name: undefined, call: 'PATCH /v1/t/t0' })
    const lines = resultTexts(result.resultsFile)
    expect(lines).toHaveLength(25)
    expect(lines[1]).toBe(
      '{"key":"t1","call":"0123456789abcdef","outcome":"planned","status":null,"runAttempt":1,"shard":null,' +
        '"index":1,"id":"t1","method":"PATCH","path":"/v1/t/t1","body":{"on":"t1"}}'
    )
    expect(routineError('PATCH /v1/t/{id}', result)).toBeUndefined()
  })
})

describe('Preflight', () => {
  const checked = (call: string, targets: unknown[]): Preflight => {
    const preflight = new Preflight(parseCall(call, ''), call)
    for (const t of targets) preflight.check(t)
    return preflight
  }

  it('passes targets that fill every placeholder, and names up to five that do not', () => {
    expect(() => checked('POST /v1/t/{id}', [{ id: 'a' }, { id: 7 }]).verify()).not.toThrow()
    const bad = [{ id: 'ok' }, ...Array.from({ length: 7 }, (_, i) => ({ name: `n${i}` }))]
    expect(() => checked('POST /v1/t/{id}', bad).verify()).toThrow(
      /^Input call: 7 of 8 targets cannot fill its placeholders, so no call was made: target #2 lacks \{id\}; (target #\d lacks \{id\}; ){3}target #6 lacks \{id\}\. Check the placeholders of call "POST \/v1\/t\/\{id\}" against the targets' fields \(they are case-sensitive\): target #2 has name\.$/
    )
  })

  it('refuses a value that would make a dot segment, naming the target by its id', () => {
    expect(() => checked('DELETE /v1/t/{id}/x', [{ id: 'a.b' }, { id: '..' }]).verify()).toThrow(
      'Input call: 1 of 2 targets cannot fill its placeholders, so no call was made: target ".." gives a path segment of . or ..'
    )
  })

  it('has nothing to check for a call without placeholders', () => {
    expect(() => checked('POST /v1/refresh', [42, null]).verify()).not.toThrow()
  })
})

describe('the results file', () => {
  const lineFor = async (body: string): Promise<string> => {
    const { transport } = fake(() => res(200, body))
    const result = await runRoutine(transport, options({ targets: list([{ id: 'a' }]) }))
    expect(readFileSync(result.resultsFile, 'utf8').endsWith('\n')).toBe(true)
    const texts = resultTexts(result.resultsFile)
    expect(texts).toHaveLength(1)
    return texts[0]
  }

  it('keeps a JSON body as the server wrote it, on one line, numbers exactly', async () => {
    const line = await lineFor('{\r\n  "n": 12345678901234567890.50,\n  "s": "a b"\n}\n')
    expect(line).toMatch(
      /^\{"key":"a","call":"0123456789abcdef","outcome":"succeeded","status":200,"runAttempt":1,"shard":null,"index":0,"id":"a","attempts":1,"ms":\d+,"body":\{ +"n": 12345678901234567890\.50, +"s": "a b" *\}/
    )
    expect(JSON.parse(line).body).toEqual({ n: 12345678901234567000, s: 'a b' })
  })

  it('writes an escaped body again, so an escaped secret is redacted too', async () => {
    mask('sekrit-token-value-9')
    const line = await lineFor('{"echo":"sekrit\\u002dtoken-value-9","q":"say \\"hi\\""}')
    expect(line).not.toContain('sekrit')
    expect(JSON.parse(line).body).toEqual({ echo: '***', q: 'say "hi"' })
  })

  it('gives other bodies as text, an empty one as null, and cuts a long one with a marker', async () => {
    expect(JSON.parse(await lineFor('not json\n{')).body).toBe('not json\n{')
    expect(JSON.parse(await lineFor('')).body).toBeNull()
    const long = JSON.parse(await lineFor(`[${'1,'.repeat(40_000)}1]`))
    expect(long).toMatchObject({ truncated: true })
    expect(long.body).toHaveLength(64 * 1024)
  })
})

describe('a long routine', () => {
  it('renews the token as it nears expiry, no call is sent with it after, and none is lost', async () => {
    const clock = { now: Date.parse('2026-11-23T06:00:00Z') }
    let renewed = 0
    const bearer = new Bearer(
      // An hour's token with 65 s left (a token that lives two minutes or less is renewed at half its life).
      {
        accessToken: 'first-token',
        tokenType: 'Bearer',
        source: 'sealed',
        expiresAtMs: clock.now + 65_000,
        expiresInSeconds: 3600
      },
      async () => ({
        accessToken: `fresh-${++renewed}`,
        tokenType: 'Bearer',
        source: 'exchange',
        expiresAtMs: clock.now + 3_600_000
      }),
      () => undefined,
      () => clock.now
    )
    const { transport, sent } = fake(() => {
      clock.now += 1000 // each call takes a second
      return res(200)
    })
    const targets = Array.from({ length: 10 }, (_, i) => ({ id: `t${i}` }))
    const result = await runRoutine(
      transport,
      options({ bearer, concurrency: 1, targets: list(targets), now: () => clock.now })
    )
    const used = sent.map(r => r.headers.Authorization)
    expect(result.calls).toBe(10)
    expect(outcomes(result)).toEqual({ succeeded: 10 })
    expect(used.slice(0, 5)).toEqual(Array(5).fill('Bearer first-token')) // 65 s left, then 60 s
    expect(used.slice(6)).toEqual(Array(4).fill('Bearer fresh-1'))
    expect(renewed).toBe(1)
  })
})

describe('runRoutine, rule by rule', () => {
  const ids = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `t${i}` }))
  const lines = resultObjects
  const statuses = (answer: (r: HttpRequest) => number) => fake(r => res(answer(r), '{"e":1}'))

  it('never has more calls in flight than call-concurrency, and reaches it', async () => {
    let inFlight = 0
    let most = 0
    const transport: Transport = {
      send: async () => {
        most = Math.max(most, ++inFlight)
        await new Promise(resolve => setImmediate(resolve))
        inFlight--
        return res(200)
      }
    }
    const result = await runRoutine(transport, options({ concurrency: 3, targets: list(ids(10)) }))
    expect(most).toBe(3)
    expect(result.calls).toBe(10)
    expect(outcomes(result)).toEqual({ succeeded: 10 })
  })

  it('counts by status, keeps the time from its clock, and logs the last progress line', async () => {
    const clock = { now: 1_000_000 }
    const info: string[] = []
    const transport: Transport = {
      send: async r => {
        clock.now += 1000
        return res(r.url.pathname.endsWith('t1') ? 500 : 200)
      }
    }
    const result = await runRoutine(
      transport,
      options({ targets: list(ids(3)), count: 3, concurrency: 1, now: () => clock.now, info: m => info.push(m) })
    )
    expect(Object.fromEntries(result.byStatus)).toEqual({ 'HTTP 200': 2, 'HTTP 500': 1 })
    expect(Object.fromEntries(result.failedByStatus)).toEqual({ 'HTTP 500': 1 })
    expect(result.durationMs).toBe(3000)
    expect(info.at(-1)).toBe('Calls: 3 of 3 targets (100 %): 2 succeeded, 1 failed; 1/s')
    expect(lines(result.resultsFile).map(l => l.ms)).toEqual([1000, 1000, 1000])
  })

  it('logs progress every 10 s with the share done and the time left', async () => {
    jest.useFakeTimers({ doNotFake: ['setImmediate', 'nextTick', 'queueMicrotask'] })
    try {
      const clock = { now: 0 }
      const info: string[] = []
      let release: () => void = () => undefined
      const transport: Transport = {
        send: async r => {
          if (r.url.pathname.endsWith('t1')) await new Promise<void>(resolve => (release = resolve))
          return res(200)
        }
      }
      const running = runRoutine(
        transport,
        options({ targets: list(ids(4)), count: 4, concurrency: 1, now: () => clock.now, info: m => info.push(m) })
      )
      for (let i = 0; i < 5; i++) await new Promise(resolve => setImmediate(resolve))
      clock.now = 10_000
      jest.advanceTimersByTime(10_000)
      expect(info).toEqual(['Calls: 1 of 4 targets (25 %): 1 succeeded; 1 in flight, 0.1/s, about 30 s left'])
      release()
      await running
    } finally {
      jest.useRealTimers()
    }
  })

  it('stops starting calls at a 401, naming when the token expires', async () => {
    const bearer = {
      latest: {
        accessToken: 't',
        tokenType: 'Bearer',
        source: 'exchange' as const,
        expiresAtMs: Date.UTC(2026, 10, 23, 7)
      },
      current: async () => 't',
      recover: async () => undefined
    }
    const { transport, sent } = statuses(() => 401)
    const result = await runRoutine(transport, options({ bearer, concurrency: 1, targets: list(ids(5)) }))
    expect(sent).toHaveLength(1)
    expect(result.stopped).toBe(
      'the service refused the token (HTTP 401) at call #1 (it expires 2026-11-23T07:00:00.000Z): no new call was started'
    )
    const noExpiry = await runRoutine(statuses(() => 401).transport, options({ concurrency: 1, targets: list(ids(2)) }))
    expect(noExpiry.stopped).toBe('the service refused the token (HTTP 401) at call #1: no new call was started')
  })

  it('retries a call once with the token a 401 recovers, and goes on', async () => {
    const bearer = {
      latest: { accessToken: 'old', tokenType: 'Bearer', source: 'sealed' as const },
      current: async () => 'old',
      recover: async () => 'new'
    }
    const { transport, sent } = fake(r => res(r.headers.Authorization === 'Bearer new' ? 200 : 401))
    const result = await runRoutine(transport, options({ bearer, concurrency: 1, targets: list(ids(1)) }))
    expect(sent.map(r => r.headers.Authorization)).toEqual(['Bearer old', 'Bearer new'])
    expect(outcomes(result)).toEqual({ succeeded: 1 })
    expect(result).toMatchObject({ stopped: undefined })
  })

  it('stops starting calls at call-max-failures', async () => {
    const { transport, sent } = statuses(() => 500)
    const result = await runRoutine(
      transport,
      options({ maxFailures: { count: 2 }, concurrency: 1, targets: list(ids(5)) })
    )
    expect(sent).toHaveLength(2)
    expect(result.stopped).toBe('2 calls failed, call-max-failures (2): no new call was started')
    expect(routineError('PUT /x', result)?.message).toBe(
      'Failed to call PUT /x for 0 targets: 2 failed (HTTP 500: 2), 3 not made; first: t0 (HTTP 500), t1 (HTTP 500); ' +
        '2 calls failed, call-max-failures (2): no new call was started. The job summary and the results-file output ' +
        'list every call; a re-run with call-resume-from makes only what is left.'
    )
  })

  it('logs 20 failures one by one, then one line, and keeps 50 for the summary', async () => {
    const info: string[] = []
    const result = await runRoutine(
      statuses(() => 500).transport,
      options({ concurrency: 1, targets: list(ids(60)), info: m => info.push(m) })
    )
    const single = info.filter(m => m.startsWith('Call #'))
    expect(single).toHaveLength(20)
    expect(single[0]).toBe('Call #1 for target "t0" failed: HTTP 500 Internal Server Error ({"e":1})')
    expect(info.filter(m => m.startsWith('More calls failed'))).toEqual([
      'More calls failed: from here on they are counted, not listed (the results file lists every one)'
    ])
    expect(result.failures).toHaveLength(50)
    expect(result.failures[49]).toEqual({
      key: 't49',
      status: 'HTTP 500',
      outcome: 'failed',
      said: '{"e":1}'
    })
  })

  it('says what a wait, a transport failure or another error was, in the log and the results file', async () => {
    const { transport } = fake(r => {
      if (r.url.pathname.endsWith('t0')) return new ServerWaitError(503, 120_000, 60_000, 0)
      if (r.url.pathname.endsWith('t1')) return new RequestError({ kind: 'aborted' }, 2)
      return new Error('odd tok-123456 failure')
    })
    mask('tok-123456')
    const info: string[] = []
    const result = await runRoutine(
      transport,
      options({ concurrency: 1, targets: list(ids(3)), info: m => info.push(m) })
    )
    expect(result.failures.map(f => f.said)).toEqual([
      'the service asked to retry in 120 s, later than the step waits (60 s)',
      'the connection closed before the response ended',
      'odd *** failure'
    ])
    expect(info[0]).toBe(
      'Call #1 for target "t0" failed: HTTP 503 Service Unavailable (the service asked to retry in 120 s, later than the step waits (60 s))'
    )
    expect(lines(result.resultsFile).map(l => [l.status, l.attempts, l.error])).toEqual([
      [503, null, 'the service asked to retry in 120 s, later than the step waits (60 s)'],
      [null, 2, 'the connection closed before the response ended'],
      [null, null, 'odd *** failure']
    ])
  })

  it('names targets by id, number as sent, or place; and records the id in each line', async () => {
    const targets = [{ id: 42 }, { id: parseExact('9007199254740993') }, { name: 'x' }, { id: { nested: 1 } }, 'plain']
    const spec = parseCall('DELETE /v1/t', '')
    const result = await runRoutine(
      statuses(() => 500).transport,
      options({ spec, concurrency: 1, targets: list(targets) })
    )
    // The summary names each by its key, and by its name beside it; the log by its id or place.
    expect(result.failures.map(f => [f.key, f.name])).toEqual([
      ['42', undefined],
      ['9007199254740993', undefined],
      ['{"name":"x"}', 'x'],
      ['{"id":{"nested":1}}', undefined],
      ['"plain"', undefined]
    ])
    const text = resultTexts(result.resultsFile)
    expect(text[0]).toMatch(
      /^\{"key":"42","call":"0123456789abcdef","outcome":"failed","status":500,"runAttempt":1,"shard":null,"index":0,"id":42,"attempts":1,"ms":\d+,"body":\{"e":1\}\}$/
    )
    expect(text[1]).toMatch(/^\{"key":"9007199254740993",.*"index":1,"id":9007199254740993,"attempts"/)
    expect(text[2]).toMatch(/^\{"key":"\{\\"name\\":\\"x\\"\}",.*"index":2,"name":"x","attempts"/)
    expect(text[3]).toMatch(/^\{"key":"\{\\"id\\":\{\\"nested\\":1\}\}",.*"index":3,"attempts"/)
  })

  it('sends JSON headers, a body only when call-body has one, and a 32-hex Idempotency-Key per run', async () => {
    const post = parseCall('POST /v1/t/{id}', '{"n":"{id}"}')
    const { transport, sent } = fake(() => res(200))
    await runRoutine(transport, options({ spec: post, targets: list([{ id: 'a' }]) }))
    await runRoutine(transport, options({ spec: post, runId: '43', targets: list([{ id: 'a' }]) }))
    await runRoutine(transport, options({ spec: parseCall('PATCH /v1/t/{id}', ''), targets: list([{ id: 'a' }]) }))
    expect(sent[0].headers).toMatchObject({ Accept: 'application/json', 'Content-Type': 'application/json' })
    expect(sent[0].body).toBe('{"n":"a"}')
    expect(sent[0].label).toBe('call #1')
    expect(sent[0].headers['Idempotency-Key']).toMatch(/^[0-9a-f]{32}$/)
    expect(sent[1].headers['Idempotency-Key']).not.toBe(sent[0].headers['Idempotency-Key'])
    expect(sent[2].headers['Content-Type']).toBeUndefined()
    expect(sent[2].headers['Idempotency-Key']).toMatch(/^[0-9a-f]{32}$/)
    expect(sent[2].idempotent).toBe(false)
  })

  it('resolves the path under base-url however many slashes end it', async () => {
    const { transport, sent } = fake(() => res(200))
    await runRoutine(transport, options({ baseUrl: new URL('https://api.test/base//'), targets: list([{ id: 'a' }]) }))
    expect(sent[0].url.href).toBe('https://api.test/base/v1/t/a')
  })

  it('gives the one call without targets its response, when under 1 MiB', async () => {
    const small = await runRoutine(fake(() => res(200, '{"ok":"tok-123456"}')).transport, options())
    expect(small).toMatchObject({ calls: 1, response: '{"ok":"***"}' })
    const big = await runRoutine(fake(() => res(200, `"${'x'.repeat(1024 * 1024)}"`)).transport, options())
    expect(big.response).toBeUndefined()
    const listed = await runRoutine(fake(() => res(200)).transport, options({ targets: list([{ id: 'a' }]) }))
    expect(listed.response).toBeUndefined()
  })

  it('keeps a JSON response JSON when redaction falls on a number', async () => {
    // This secret's hex is all digits: 12 characters of it are a 24-digit JSON number.
    mask('aPbQcRdSeTfUgVhW')
    const digits = Buffer.from('bQcRdSeTfUgV').toString('hex')
    const result = await runRoutine(fake(() => res(200, `{"ok":true,"n":${digits}}`)).transport, options())
    expect(result.response).toBe('{"ok":true,"n":"***"}')
  })

  it('cuts a body at exactly 64 KiB, not before', async () => {
    const at = (n: number) =>
      runRoutine(fake(() => res(200, 'x'.repeat(n))).transport, options({ targets: list([{ id: 'a' }]) }))
    expect(lines((await at(64 * 1024)).resultsFile)[0].truncated).toBeUndefined()
    expect(lines((await at(64 * 1024 + 1)).resultsFile)[0].truncated).toBe(true)
  })

  it('writes results as calls end, not only at the end', async () => {
    let seenOnDisk = 0
    let file = ''
    const transport: Transport = {
      send: async r => {
        file ||= readdirSync(dir).find(f => f.startsWith('results-')) ?? ''
        if (r.label === 'call #12') seenOnDisk = resultTexts(join(dir, file)).length
        return res(200, `"${'y'.repeat(10 * 1024)}"`)
      }
    }
    const result = await runRoutine(transport, options({ concurrency: 1, targets: list(ids(12)) }))
    expect(seenOnDisk).toBeGreaterThanOrEqual(6)
    expect(lines(result.resultsFile)).toHaveLength(12)
  })

  it('fails the routine when its bookkeeping throws, and keeps the results file', async () => {
    const info = () => {
      throw new Error('log closed')
    }
    const { transport } = statuses(r => (r.url.pathname.endsWith('t0') ? 500 : 200))
    await expect(runRoutine(transport, options({ concurrency: 1, info, targets: list(ids(3)) }))).rejects.toThrow(
      'log closed'
    )
    expect(readdirSync(dir)).toEqual([expect.stringMatching(/^results-[0-9a-f]{12}\.jsonl$/)])
  })
})

describe('a cancelled routine', () => {
  const ids = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `t${i}` }))
  const lines = resultObjects

  it('starts no call after the signal, records calls in flight as unknown and the rest as not made', async () => {
    const cancel = new AbortController()
    let started = 0
    const transport: Transport = {
      send: async (_request, gate) => {
        await gate?.ready()
        started++
        if (started <= 3) return res(200)
        if (started === 5) cancel.abort()
        return new Promise<HttpResponse>(() => undefined) // held open by the service
      }
    }
    const result = await runRoutine(
      transport,
      options({ concurrency: 2, targets: list(ids(10)), count: 10, signal: cancel.signal, drainMs: 20 })
    )
    expect(started).toBe(5)
    expect(result.cancelled).toBe(true)
    expect(outcomes(result)).toEqual({ succeeded: 3, unknown: 2, 'not-made': 5 })
    expect(result.calls).toBe(5)
    const written = lines(result.resultsFile)
    expect(written).toHaveLength(10)
    expect(written.filter(l => l.outcome === 'unknown').map(l => l.error)).toEqual([
      'cancelled in flight: no answer before the step stopped',
      'cancelled in flight: no answer before the step stopped'
    ])
    expect(routineError('POST /v1/t/{id}', result)?.message).toMatch(
      /^The step was cancelled after 5 calls to POST \/v1\/t\/\{id\}, of 10 targets: 3 succeeded, 2 unknown, 5 not made;/
    )
  })

  it('bounds the drain by a signal that comes after every target was fed', async () => {
    const cancel = new AbortController()
    let started = 0
    const transport: Transport = {
      send: async (_request, gate) => {
        await gate?.ready()
        // The second call is the last target: the feed ends, the drain begins, then the signal.
        if (++started === 2) setTimeout(() => cancel.abort(), 5)
        return new Promise<HttpResponse>(() => undefined) // held open by the service
      }
    }
    const result = await runRoutine(
      transport,
      options({ concurrency: 2, targets: list(ids(2)), count: 2, signal: cancel.signal, drainMs: 20 })
    )
    expect(result.cancelled).toBe(true)
    expect(outcomes(result)).toEqual({ unknown: 2 })
    expect(lines(result.resultsFile).map(l => l.outcome)).toEqual(['unknown', 'unknown'])
  })

  it('makes no call at all when the signal came first', async () => {
    const cancel = new AbortController()
    cancel.abort()
    const { transport, sent } = fake(() => res(200))
    const result = await runRoutine(transport, options({ targets: list(ids(4)), count: 4, signal: cancel.signal }))
    expect(sent).toHaveLength(0)
    expect(outcomes(result)).toEqual({ 'not-made': 4 })
    expect(lines(result.resultsFile).map(l => l.outcome)).toEqual(Array(4).fill('not-made'))
  })

  it('stops feeding targets once the drain time is up, counting the rest without a line', async () => {
    const clock = { now: 0 }
    const cancel = new AbortController()
    const feed = async (offer: Offer) => {
      for (const [i, t] of ids(6).entries()) {
        if (i === 2) {
          cancel.abort()
          clock.now += 5001 // reading the rest of the targets took longer than the drain
        }
        await offer([t])
      }
    }
    const { transport } = fake(() => res(200))
    const result = await runRoutine(
      transport,
      options({ targets: feed, count: 6, signal: cancel.signal, now: () => clock.now })
    )
    expect(outcomes(result)).toEqual({ succeeded: 2, 'not-made': 4 })
    expect(lines(result.resultsFile)).toHaveLength(2)
  })

  it('flushes and closes its file on a second signal, keeping the lines so far', async () => {
    const hardStop = new AbortController()
    let n = 0
    const transport: Transport = {
      send: async () => {
        if (++n === 3) hardStop.abort()
        return res(200)
      }
    }
    const result = await runRoutine(
      transport,
      options({ concurrency: 1, targets: list(ids(5)), count: 5, hardStop: hardStop.signal })
    )
    // Lines after the hard stop are not written: the file ends with the lines the stop found.
    expect(lines(result.resultsFile).length).toBeLessThan(5)
    expect(readFileSync(result.resultsFile, 'utf8').endsWith('\n')).toBe(true)
  })

  it('stops starting calls when reading the targets fails, keeping what was made', async () => {
    const feed = async (offer: Offer) => {
      await offer([{ id: 'a' }])
      throw new Error('EIO: i/o error, read')
    }
    const { transport, sent } = fake(() => res(200))
    const result = await runRoutine(transport, options({ targets: feed, count: 3 }))
    expect(sent).toHaveLength(1)
    expect(result.stopped).toBe('the targets could not be read on (EIO: i/o error, read): no new call was started')
    expect(outcomes(result)).toEqual({ succeeded: 1, 'not-made': 2 })
  })
})

describe('a routine, its skips, drain and clean-up', () => {
  const ids = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `t${i}` }))
  const lines = resultObjects
  const later = <T>(ms: number, value: T) => new Promise<T>(resolve => setTimeout(() => resolve(value), ms))
  /** Targets whose feed is still reading when the signal comes: the drain then starts from it. */
  const fedUntil = (signal: AbortSignal, targets: unknown[]) => async (offer: Offer) => {
    for (const t of targets) await offer([t])
    if (!signal.aborted) await new Promise(resolve => signal.addEventListener('abort', resolve))
  }

  it('skips what an earlier attempt finished, with its status, and calls the rest', async () => {
    const done = new Map<string, number | null>([
      [targetKey({ id: 'a' }), 204],
      [targetKey({ id: 'c' }), null]
    ])
    const { transport, sent } = fake(() => res(200))
    const result = await runRoutine(
      transport,
      options({
        targets: list([{ id: 'a' }, { id: 'b' }, { id: 'c' }]),
        count: 3,
        earlier: {
          finished: key => done.get(key),
          // Asked by its place in the list: a, b, c.
          finishedAt: (place, key) => (key === 'abc'[place] ? done.get(key) : fail(`${key} asked at ${place}`)),
          finishedByPlan: () => false,
          size: done.size
        }
      })
    )
    expect(sent.map(r => r.url.pathname)).toEqual(['/base/v1/t/b'])
    expect(outcomes(result)).toEqual({ skipped: 2, succeeded: 1 })
    expect(lines(result.resultsFile).map(l => [l.id, l.outcome, l.status])).toEqual([
      ['a', 'skipped', 204],
      ['c', 'skipped', null],
      ['b', 'succeeded', 200]
    ])
  })

  it('waits out its drain for a call in flight that answers in time', async () => {
    const cancel = new AbortController()
    const transport: Transport = {
      send: async (_request, gate) => {
        await gate?.ready()
        cancel.abort()
        return later(50, res(200))
      }
    }
    const result = await runRoutine(
      transport,
      options({ targets: fedUntil(cancel.signal, ids(1)), count: 1, signal: cancel.signal })
    )
    expect(result.cancelled).toBe(true)
    expect(outcomes(result)).toEqual({ succeeded: 1 })
  })

  // The runner sends SIGINT, then SIGTERM 7.5 s later (src/cancel.ts). What the drain promises is
  // held here on a clock the test moves, so that a busy machine cannot fail it; bench/parts/cancel.js
  // measures the real time.
  it("writes its record when the drain's grace is up after the runner's SIGINT, before its SIGTERM", async () => {
    const clock = { now: 0 }
    const timers: { fn: () => void; at: number }[] = []
    const setTimer = ((fn: () => void, ms: number) => {
      timers.push({ fn, at: clock.now + ms })
      return { fake: timers.length }
    }) as unknown as typeof setTimeout
    const runner = new EventEmitter()
    const cancellation = new Cancellation(runner, () => undefined)
    let sent = 0
    const transport: Transport = {
      send: async (_request, gate) => {
        await gate?.ready()
        sent++
        return new Promise<HttpResponse>(() => undefined) // the service never answers
      }
    }
    let result: RoutineResult | undefined
    const running = runRoutine(
      transport,
      options({
        targets: fedUntil(cancellation.signal, ids(4)),
        count: 4,
        signal: cancellation.signal,
        hardStop: cancellation.hardStop,
        now: () => clock.now,
        setTimer
      })
    ).then(r => (result = r))
    while (sent < 2) await new Promise(resolve => setImmediate(resolve))
    clock.now = 1000
    runner.emit('SIGINT', 'SIGINT')
    for (let i = 0; i < 20; i++) await new Promise(resolve => setImmediate(resolve))
    expect(result).toBeUndefined() // the calls in flight get their grace
    expect(timers.map(t => t.at)).toEqual([1000 + DRAIN_MS])
    expect(timers[0]!.at).toBeLessThan(1000 + 7500) // the runner's SIGTERM
    clock.now = timers[0]!.at
    timers[0]!.fn()
    await running
    cancellation.dispose()
    expect(result!.cancelled).toBe(true)
    expect(sent).toBe(2) // nothing started after the signal
    expect(outcomes(result!)).toEqual({ unknown: 2, 'not-made': 2 })
    expect(
      lines(result!.resultsFile)
        .map(l => [l.id, l.outcome])
        .sort()
    ).toEqual([
      ['t0', 'unknown'],
      ['t1', 'unknown'],
      ['t2', 'not-made'],
      ['t3', 'not-made']
    ])
  })

  it('counts the drain from the cancellation: a call still open when it is up is unknown', async () => {
    const clock = { now: 1000 }
    const cancel = new AbortController()
    const transport: Transport = {
      send: async (_request, gate) => {
        await gate?.ready()
        cancel.abort()
        clock.now += 5000 // the drain is up by the time the feed ends
        return later(50, res(200))
      }
    }
    const result = await runRoutine(
      transport,
      options({ targets: fedUntil(cancel.signal, ids(1)), count: 1, signal: cancel.signal, now: () => clock.now })
    )
    expect(outcomes(result)).toEqual({ unknown: 1 })
    expect(lines(result.resultsFile).map(l => l.error)).toEqual([
      'cancelled in flight: no answer before the step stopped'
    ])
  })

  it('feeds targets until the drain is strictly past, and a drain that ran out is no stop', async () => {
    for (const [jump, written] of [
      [5000, 6],
      [5001, 2]
    ]) {
      const clock = { now: 0 }
      const cancel = new AbortController()
      const feed = async (offer: Offer) => {
        for (const [i, t] of ids(6).entries()) {
          if (i === 2) {
            cancel.abort()
            clock.now += jump
          }
          await offer([t])
        }
      }
      const { transport } = fake(() => res(200))
      const result = await runRoutine(
        transport,
        options({ targets: feed, count: 6, signal: cancel.signal, now: () => clock.now })
      )
      expect(outcomes(result)).toEqual({ succeeded: 2, 'not-made': 4 })
      expect(lines(result.resultsFile)).toHaveLength(written)
      expect(result.stopped).toBeUndefined()
    }
  })

  it('records a call not yet sent when the drain ends as never made, and ignores its late end', async () => {
    const cancel = new AbortController()
    let release: (token: string) => void = () => undefined
    let calls = 0
    const bearer = {
      ...fixedBearer('tok-123456'),
      current: () => (++calls === 1 ? 'tok-123456' : new Promise<string>(resolve => (release = resolve)))
    }
    const sent: string[] = []
    const transport: Transport = {
      send: async (request, gate) => {
        await gate?.ready()
        sent.push(request.url.pathname)
        await later(5, undefined) // the second call is started meanwhile, and waits for its token
        cancel.abort()
        return res(200)
      }
    }
    const result = await runRoutine(
      transport,
      options({ bearer, targets: fedUntil(cancel.signal, ids(2)), count: 2, signal: cancel.signal, drainMs: 20 })
    )
    expect(sent).toHaveLength(1)
    expect(outcomes(result)).toEqual({ succeeded: 1, 'not-made': 1 })
    expect(lines(result.resultsFile).map(l => [l.id, l.outcome, l.error])).toEqual([
      ['t0', 'succeeded', undefined],
      ['t1', 'not-made', 'cancelled before it was sent']
    ])
    release('tok-123456')
    await later(10, undefined)
    expect(sent).toHaveLength(1)
    expect(outcomes(result)).toEqual({ succeeded: 1, 'not-made': 1 })
  })

  it('sends no call that waited at the gate past the cancellation', async () => {
    const cancel = new AbortController()
    const sent: string[] = []
    const transport: Transport = {
      send: async (request, gate) => {
        await gate?.ready()
        sent.push(request.url.pathname)
        await later(5, undefined)
        cancel.abort()
        return res(200)
      }
    }
    const result = await runRoutine(
      transport,
      options({ targets: list(ids(2)), count: 2, rate: 50, signal: cancel.signal })
    )
    expect(sent).toEqual(['/base/v1/t/t0'])
    expect(outcomes(result)).toEqual({ succeeded: 1, 'not-made': 1 })
    expect(lines(result.resultsFile)[1]).toMatchObject({ id: 't1', error: 'cancelled before it was sent' })
  })

  it('keeps no listener on the signals once it has ended', async () => {
    const cancel = new AbortController()
    const hardStop = new AbortController()
    const { transport } = fake(() => res(200))
    await runRoutine(transport, options({ targets: list(ids(2)), signal: cancel.signal, hardStop: hardStop.signal }))
    expect(getEventListeners(cancel.signal, 'abort')).toHaveLength(0)
    expect(getEventListeners(hardStop.signal, 'abort')).toHaveLength(0)
  })

  it('keeps no process alive for its progress timer', async () => {
    const original = globalThis.setInterval
    const timers: NodeJS.Timeout[] = []
    const spy = jest.spyOn(globalThis, 'setInterval').mockImplementation(((fn: () => void, ms: number) => {
      const timer = original(fn, ms)
      if (ms === 10_000) timers.push(timer)
      return timer
    }) as typeof setInterval)
    const refs: boolean[] = []
    try {
      const { transport } = fake(() => {
        refs.push(...timers.map(t => t.hasRef()))
        return res(200)
      })
      await runRoutine(transport, options({ targets: list(ids(1)) }))
    } finally {
      spy.mockRestore()
    }
    expect(refs).toEqual([false])
  })

  it('logs no progress after it has ended', async () => {
    jest.useFakeTimers({ doNotFake: ['setImmediate', 'nextTick', 'queueMicrotask'] })
    try {
      const info: string[] = []
      const { transport } = fake(() => res(200))
      await runRoutine(transport, options({ targets: list(ids(2)), info: m => info.push(m) }))
      const logged = info.length
      jest.advanceTimersByTime(30_000)
      expect(info).toHaveLength(logged)
    } finally {
      jest.useRealTimers()
    }
  })

  it('counts succeeded, failed and unknown calls as ended in the rate of its progress line', async () => {
    const clock = { now: 0 }
    const info: string[] = []
    const { transport } = fake(r => {
      if (r.url.pathname.endsWith('/t0')) return res(200)
      if (r.url.pathname.endsWith('/t1')) return res(500)
      clock.now = 1000
      return new RequestError({ kind: 'aborted' }, 1)
    })
    await runRoutine(
      transport,
      options({ targets: list(ids(3)), count: 3, concurrency: 1, now: () => clock.now, info: m => info.push(m) })
    )
    expect(info.filter(l => l.startsWith('Calls: ')).at(-1)).toBe(
      'Calls: 3 of 3 targets (100 %): 1 succeeded, 1 failed, 1 unknown; 3/s'
    )
  })
})

describe('runRoutine in waves', () => {
  const ids = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `t${i}` }))
  const statuses = (answer: (r: HttpRequest) => number) => fake(r => res(answer(r), '{"e":1}'))
  /** Feeds the targets a wave asks for, with their places, as the snapshot reader does. */
  const waveList =
    (targets: unknown[]) =>
    async (
      offer: (batch: readonly unknown[], places?: readonly number[]) => Promise<void>,
      keep?: (place: number) => boolean
    ) => {
      const places = targets.map((_, i) => i).filter(i => !keep || keep(i))
      for (let i = 0; i < places.length; i += 2) {
        const batch = places.slice(i, i + 2)
        await offer(
          batch.map(p => targets[p]),
          batch
        )
      }
    }
  const lines = (result: RoutineResult) =>
    resultObjects(result.resultsFile) as { key: string; outcome: string; wave?: number; index: number }[]
  /** Waves of 1, 3 and 6 over t0…t9: t4 first, then t1, t7, t8, then the rest. */
  const waveOf = Uint8Array.from([3, 2, 3, 3, 1, 3, 3, 2, 2, 3])
  const waves = { counts: [1, 3, 6], waveOf }

  it('stops after a first wave whose every call failed: one call, the later waves not made', async () => {
    const { transport, sent } = statuses(() => 500)
    const info: string[] = []
    const result = await runRoutine(
      transport,
      options({ targets: waveList(ids(10)), count: 10, waves, info: m => info.push(m) })
    )
    expect(sent.map(r => r.url.pathname)).toEqual(['/base/v1/t/t4'])
    expect(result.stopped).toBe(
      'stopped after wave 1 of 3: every call of the wave failed (1 of 1): no new call was started'
    )
    expect(result.waves).toEqual({ counts: [1, 3, 6], reached: 1 })
    expect(outcomes(result)).toEqual({ failed: 1, 'not-made': 9 })
    const written = lines(result)
    expect(written.map(l => [l.key, l.outcome, l.wave, l.index])).toEqual([
      ['t4', 'failed', 1, 4],
      ['t1', 'not-made', 2, 1],
      ['t7', 'not-made', 2, 7],
      ['t8', 'not-made', 2, 8],
      ...[0, 2, 3, 5, 6, 9].map(i => [`t${i}`, 'not-made', 3, i])
    ])
    expect(info).toContain('Wave 1 of 3: 1 targets')
    expect(info.some(l => l.startsWith('Wave 2'))).toBe(false)
    expect(routineError('PUT /x', result)?.message).toContain(
      '; stopped after wave 1 of 3: every call of the wave failed (1 of 1): no new call was started.'
    )
  })

  it('answers every call of a wave before the next wave starts', async () => {
    const order: string[] = []
    const pending: (() => void)[] = []
    const transport: Transport = {
      send: request =>
        new Promise(resolve => {
          order.push(`send ${request.url.pathname.split('/').pop()}`)
          pending.push(() => {
            order.push(`answer ${request.url.pathname.split('/').pop()}`)
            resolve(res(200))
          })
          // Answered later, out of order: the next wave must still wait for all of them.
          setTimeout(() => pending.shift()?.(), 5)
        })
    }
    const result = await runRoutine(
      transport,
      options({ targets: waveList(ids(10)), count: 10, waves, concurrency: 4 })
    )
    expect(outcomes(result)).toEqual({ succeeded: 10 })
    const firstOfWave = (keys: string[]) => Math.min(...keys.map(k => order.indexOf(`send ${k}`)))
    const lastOfWave = (keys: string[]) => Math.max(...keys.map(k => order.indexOf(`answer ${k}`)))
    expect(lastOfWave(['t4'])).toBeLessThan(firstOfWave(['t1', 't7', 't8']))
    expect(lastOfWave(['t1', 't7', 't8'])).toBeLessThan(firstOfWave(['t0', 't2', 't3', 't5', 't6', 't9']))
    expect(result.waves).toEqual({ counts: [1, 3, 6], reached: 3 })
  })

  it('checks a percentage after each wave and goes on while under it', async () => {
    const { transport, sent } = statuses(r => (r.url.pathname.endsWith('/t7') ? 500 : 200))
    const result = await runRoutine(
      transport,
      options({ targets: waveList(ids(10)), count: 10, waves, maxFailures: { percent: 20 } })
    )
    // After wave 2: 1 of 4 answered failed, 25 % > 20 %.
    expect(sent).toHaveLength(4)
    expect(result.stopped).toBe(
      'stopped after wave 2 of 3: 1 of 4 calls failed (25 %), more than call-max-failures (20%): no new call was started'
    )
  })

  it('counts skipped targets in their waves: a wave of skips makes no call and judges nothing', async () => {
    const { transport, sent } = statuses(() => 200)
    const earlier = {
      finished: (key: string) => (key === 't4' ? 200 : undefined),
      // Each wave offers its targets at their places in the whole list.
      finishedAt: (place: number, key: string) =>
        key !== `t${place}` ? fail(`${key} asked at ${place}`) : key === 't4' ? 200 : undefined,
      finishedByPlan: () => false,
      size: 1
    }
    const result = await runRoutine(transport, options({ targets: waveList(ids(10)), count: 10, waves, earlier }))
    expect(sent).toHaveLength(9)
    expect(outcomes(result)).toEqual({ skipped: 1, succeeded: 9 })
    expect(lines(result).find(l => l.key === 't4')).toMatchObject({ outcome: 'skipped', wave: 1 })
  })

  it('calls a canary only: the targets in no wave get no line and are not counted', async () => {
    const { transport, sent } = statuses(() => 200)
    const canary = { counts: [2], waveOf: Uint8Array.from([0, 1, 0, 0, 1, 0]) }
    const result = await runRoutine(transport, options({ targets: waveList(ids(6)), count: 6, waves: canary }))
    expect(sent.map(r => r.url.pathname)).toEqual(['/base/v1/t/t1', '/base/v1/t/t4'])
    expect(result.count).toBe(2)
    expect(outcomes(result)).toEqual({ succeeded: 2 })
    expect(lines(result).map(l => l.key)).toEqual(['t1', 't4'])
  })

  it('stops on a percentage call by call once enough calls are answered', async () => {
    // Every fifth call fails: 20 % against 5 %, checked from the 20th answer on.
    const { transport, sent } = statuses(r => (Number(r.url.pathname.split('/t').pop()) % 5 === 4 ? 500 : 200))
    const result = await runRoutine(
      transport,
      options({ targets: list(ids(1000)), count: 1000, concurrency: 1, maxFailures: { percent: 5 } })
    )
    expect(sent).toHaveLength(20)
    expect(result.stopped).toBe(
      '4 of 20 calls failed (20 %), more than call-max-failures (5%): no new call was started'
    )
    expect(outcomes(result)).toEqual({ succeeded: 16, failed: 4, 'not-made': 980 })
  })
})

describe('the last progress line, the step’s error and the outputs', () => {
  const ids = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `t${i}` }))
  const statuses = (answer: (r: HttpRequest) => number) => fake(r => res(answer(r), '{"e":1}'))
  /** The three made from one tally: the same counts, word for word. */
  const agree = (info: readonly string[], result: RoutineResult) => {
    const last = info.filter(l => /^(Calls|Planned): /.test(l)).at(-1) ?? ''
    const words = outcomeWords(result.outcomes)
    expect(last).toContain(`: ${words}`)
    const error = routineError('POST /v1/t/{id}', result)?.message
    if (error !== undefined) expect(error).toContain(`: ${outcomeWords(result.outcomes, result.failedByStatus)}`)
    const outputs = callOutputs(result)
    const fromOutputs = new Map(
      (['succeeded', 'failed', 'unknown', 'not-made', 'skipped', 'planned'] as const).map(o => [
        o,
        Number(outputs[`calls-${o}`])
      ])
    )
    expect(outcomeWords(fromOutputs)).toBe(words)
    return { last, error }
  }

  it('agree after a cancellation: calls made, unknown and not made', async () => {
    const cancel = new AbortController()
    const info: string[] = []
    let started = 0
    const { transport } = fake(r => {
      started++
      if (started === 5) cancel.abort()
      if (started >= 4) return new RequestError({ kind: 'aborted' }, 1)
      return res(r.url.pathname.endsWith('t1') ? 500 : 200)
    })
    const result = await runRoutine(
      transport,
      options({ concurrency: 1, targets: list(ids(10)), count: 10, signal: cancel.signal, info: m => info.push(m) })
    )
    const { last, error } = agree(info, result)
    expect(last).toMatch(
      /^Calls: 10 of 10 targets \(100 %\): 2 succeeded, 1 failed, 2 unknown, 5 not made; .*cancelled after 5 calls$/
    )
    expect(error).toMatch(
      /^The step was cancelled after 5 calls to POST \/v1\/t\/\{id\}, of 10 targets: 2 succeeded, 1 failed \(HTTP 500: 1\), 2 unknown, 5 not made;/
    )
  })

  it('agree after a 401 stop, and say how many calls will not be made', async () => {
    const info: string[] = []
    const result = await runRoutine(
      statuses(() => 401).transport,
      options({ concurrency: 1, targets: list(ids(6)), count: 6, info: m => info.push(m) })
    )
    const { last, error } = agree(info, result)
    expect(last).toMatch(/^Calls: 6 of 6 targets \(100 %\): 1 failed, 5 not made; (.*; )?stopped after 1 call$/)
    expect(error).toMatch(/^Failed to call POST \/v1\/t\/\{id\} for 6 targets: 1 failed \(HTTP 401: 1\), 5 not made;/)
  })

  it('agree on a re-run: the targets done earlier are skipped, the rest called', async () => {
    const info: string[] = []
    const earlier: EarlierResults = {
      finished: key => (['t0', 't2', 't4'].includes(key) ? 200 : undefined),
      finishedAt: (place, key) =>
        key !== `t${place}` ? fail(`${key} asked at ${place}`) : ['t0', 't2', 't4'].includes(key) ? 200 : undefined,
      finishedByPlan: () => false,
      size: 3
    }
    const { transport, sent } = statuses(() => 200)
    const result = await runRoutine(
      transport,
      options({ targets: list(ids(5)), count: 5, earlier, info: m => info.push(m) })
    )
    expect(sent).toHaveLength(2)
    const { last, error } = agree(info, result)
    expect(last).toMatch(/^Calls: 5 of 5 targets \(100 %\): 2 succeeded, 3 skipped \(done in an earlier attempt\)(;|$)/)
    expect(error).toBeUndefined()
  })

  it('agree on a dry run: planned, and no call or rate', async () => {
    const info: string[] = []
    const { transport, sent } = statuses(() => 200)
    const result = await runRoutine(
      transport,
      options({ targets: list(ids(4)), count: 4, dryRun: true, info: m => info.push(m) })
    )
    expect(sent).toHaveLength(0)
    const { last, error } = agree(info, result)
    expect(last).toBe('Planned: 4 of 4 targets (100 %): 4 planned; no call made')
    expect(error).toBeUndefined()
  })
})

/** Throws: a fake asked what it should not be. */
function fail(why: string): never {
  throw new Error(why)
}
