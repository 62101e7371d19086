import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Bearer } from '../../src/auth/bearer.js'
import { Gate, HttpRequest, HttpResponse, Transport } from '../../src/http/client.js'
import { RequestError } from '../../src/http/errors.js'
import { parseCall } from '../../src/service/call.js'
import { Preflight, RoutineOptions, routineError, runRoutine } from '../../src/service/routine.js'
import { mask } from '../../src/secrets.js'

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
const list = (targets: unknown[]) => async (each: (t: unknown) => Promise<void>) => {
  for (const t of targets) await each(t)
}
const options = (overrides: Partial<RoutineOptions> = {}): RoutineOptions => ({
  spec: parseCall('POST /v1/t/{id}', ''),
  call: 'POST /v1/t/{id}',
  baseUrl: new URL('https://api.test/base'),
  bearer: fixedBearer('tok-123456'),
  concurrency: 2,
  accept: new Set(),
  maxFailures: 100,
  idempotent: false,
  runId: '42',
  resultsDir: dir,
  info: () => undefined,
  ...overrides
})

describe('runRoutine', () => {
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
    expect(new Set(gates).size).toBe(1)
    expect(result).toMatchObject({ calls: 3, succeeded: 3, failed: 0 })
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
    expect(result).toMatchObject({ calls: 3, succeeded: 1, failed: 2 })
    expect(routineError('POST /v1/t/{id}', result)?.message).toBe(
      'Failed to call POST /v1/t/{id}: 2 of 3 calls failed (HTTP 500: 1, no response: 1); first: target "a" (HTTP 500), target "b" (no response). The log above lists the failures.'
    )
    const lines = readFileSync(result.resultsFile, 'utf8')
      .trim()
      .split('\n')
      .map(l => JSON.parse(l))
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

describe('Preflight', () => {
  const checked = (call: string, targets: unknown[]): Preflight => {
    const preflight = new Preflight(parseCall(call, ''))
    for (const t of targets) preflight.check(t)
    return preflight
  }

  it('passes targets that fill every placeholder, and names up to five that do not', () => {
    expect(() => checked('POST /v1/t/{id}', [{ id: 'a' }, { id: 7 }]).verify()).not.toThrow()
    const bad = [{ id: 'ok' }, ...Array.from({ length: 7 }, (_, i) => ({ name: `n${i}` }))]
    expect(() => checked('POST /v1/t/{id}', bad).verify()).toThrow(
      /^Input call: 7 of 8 targets cannot fill its placeholders, so no call was made: target #2 lacks \{id\}; (target #\d lacks \{id\}; ){3}target #6 lacks \{id\}\. Check the field names/
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
    const text = readFileSync(result.resultsFile, 'utf8')
    expect(text.endsWith('\n')).toBe(true)
    expect(text.trimEnd().split('\n')).toHaveLength(1)
    return text.trimEnd()
  }

  it('keeps a JSON body as the server wrote it, on one line, numbers exactly', async () => {
    const line = await lineFor('{\r\n  "n": 12345678901234567890.50,\n  "s": "a b"\n}\n')
    expect(line).toMatch(
      /^\{"index":0,"id":"a","status":200,"attempts":1,"ms":\d+,"body":\{ +"n": 12345678901234567890\.50, +"s": "a b" *\}/
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
      { accessToken: 'first-token', tokenType: 'Bearer', source: 'exchange', expiresAtMs: clock.now + 65_000 },
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
    expect(result).toMatchObject({ calls: 10, succeeded: 10 })
    expect(used.slice(0, 5)).toEqual(Array(5).fill('Bearer first-token')) // 65 s left, then 60 s
    expect(used.slice(6)).toEqual(Array(4).fill('Bearer fresh-1'))
    expect(renewed).toBe(1)
  })
})
