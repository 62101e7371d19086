import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Bearer } from '../src/auth/bearer.js'
import { HttpRequest, HttpResponse, Transport } from '../src/http/client.js'
import { getInputs as getInputsWith, Inputs } from '../src/inputs.js'
import { call } from '../src/inputs/call.js'
import { callFingerprint, idempotencyKey } from '../src/routine/fingerprint.js'
import { planDigest } from '../src/routine/plan.js'
import {
  callEveryTarget,
  callIdentity,
  RoutineSignals,
  targetsText,
  verifiedPlan,
  wavePlan
} from '../src/routine-step.js'
import { RoutineSetup } from '../src/routine-setup.js'
import { Collected } from '../src/targets/collect.js'
import { TargetsFile } from '../src/targets/file.js'
import { targetKey } from '../src/targets/key.js'
import { captureStdout, resultObjects, setInputs } from './helpers.js'

/** getInputs with the call inputs' reader, as readInputs gives it to a step with a call. */
const getInputs = (door?: Parameters<typeof getInputsWith>[0]): Inputs => getInputsWith(door, call)

const API = 'https://api.step.test/base'
const CALL = 'POST /v1/t/{id}'
const DIGEST = `sha256:${'ab'.repeat(32)}`

const saved = { ...process.env }
let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'm2m-routine-step-'))
  delete process.env.GITHUB_RUN_ID
  delete process.env.GITHUB_RUN_ATTEMPT
})
afterEach(() => {
  process.env = { ...saved }
  rmSync(dir, { recursive: true, force: true })
})

/** The step's inputs as the runner gives them: a token, base-url and the call, with `extra` over them. */
function inputsWith(extra: Record<string, string> = {}): Inputs {
  setInputs({ token: 'tok-routine-step', 'base-url': API, call: CALL, ...extra })
  return getInputs()
}

/** A transport with no socket: answers 200 (or what `answer` says) and records each request. */
function fake(answer: (r: HttpRequest) => number = () => 200) {
  const sent: HttpRequest[] = []
  const transport: Transport = {
    send: async request => {
      sent.push(request)
      const response: HttpResponse = {
        status: answer(request),
        headers: {},
        body: Buffer.from('{"ok":1}'),
        attempts: 1
      }
      return response
    }
  }
  return { transport, sent }
}

const bearer = () =>
  new Bearer({ accessToken: 'tok-routine-step', tokenType: 'Bearer', source: 'input' }, undefined, () => undefined)

const signals = (aborted = false): RoutineSignals => {
  const signal = new AbortController()
  if (aborted) signal.abort()
  return { signal: signal.signal, hardStop: new AbortController().signal }
}

/** Targets as the listing collects them: kept in a targets file that the routine reads back. */
function collected(targets: unknown[]): Collected {
  const file = new TargetsFile({ dir })
  file.add(targets)
  const listing = file.finish()
  return { listing, shardCount: 1, from: 'listing', digest: listing.digest }
}

const lines = resultObjects

describe('targetsText', () => {
  it.each<[number, number, string]>([
    [500, 0, '500 targets'],
    [1, 0, '1 target'],
    [500, 487, '13 of 500 targets (487 done in an earlier attempt are skipped)'],
    [2, 1, '1 of 2 targets (1 done in an earlier attempt is skipped)'],
    [1500, 1500, '0 of 1,500 targets (1,500 done in an earlier attempt are skipped)']
  ])('says what %i targets with %i done earlier are', (count, skipped, text) => {
    expect(targetsText(count, skipped)).toBe(text)
  })
})

describe('callIdentity', () => {
  it('is the method, the path as written, the body and base-url', () => {
    const inputs = inputsWith({ 'call-body': '{"on":"{id}"}' })
    expect(callIdentity(inputs)).toEqual({
      method: 'POST',
      path: '/v1/t/{id}',
      body: '{"on":"{id}"}',
      baseUrl: new URL(API)
    })
  })

  it('takes the path from text padded and spaced out with any whitespace', () => {
    const inputs = inputsWith()
    const padded = { ...inputs, call: { ...inputs.call!, text: ' \t POST  \t /v1/t/{id}  \n' } }
    expect(callIdentity(padded).path).toBe('/v1/t/{id}')
  })
})

describe('verifiedPlan', () => {
  const written = captureStdout()
  const approvedLine = 'The plan is the approved one (plan-digest): the calls are made as planned\n'

  it('is the plan-digest of the targets and the call, with nothing to check without plan-digest', () => {
    const inputs = inputsWith({ 'call-body': '{"a":1}' })
    const plan = verifiedPlan(inputs, DIGEST)
    expect(plan).toBe(
      planDigest(DIGEST, { method: 'POST', path: '/v1/t/{id}', body: '{"a":1}', baseUrl: new URL(API) })
    )
    expect(written).not.toContain(approvedLine)
  })

  it('says so when the approved plan is this one', () => {
    const own = verifiedPlan(inputsWith(), DIGEST)
    expect(verifiedPlan(inputsWith({ 'plan-digest': own }), DIGEST)).toBe(own)
    expect(written.filter(l => l === approvedLine)).toHaveLength(1)
  })

  it('refuses a plan1 digest where the step chooses among targets it does not bind, whole', () => {
    const plan1 = verifiedPlan(inputsWith(), DIGEST)
    expect(() => verifiedPlan(inputsWith({ 'plan-digest': plan1 }), DIGEST, 'targets-where')).toThrow(
      'Input plan-digest is a plan1 digest, made by an earlier version of this action, which binds the snapshot and the call but not targets-where: ' +
        'no call was made. Plan again with this version (its plan-digest is plan2, which binds every call), and have that plan approved.'
    )
    expect(written).not.toContain(approvedLine)
  })

  it('throws, naming what moved, before any call when the approved plan is another', () => {
    const approved = verifiedPlan(inputsWith(), `sha256:${'cd'.repeat(32)}`)
    expect(() => verifiedPlan(inputsWith({ 'plan-digest': approved }), DIGEST)).toThrow(
      "Input plan-digest: this step's plan differs from the approved one in the targets (another snapshot or listing), so no call was made."
    )
    expect(written).not.toContain(approvedLine)
  })
})

describe('callEveryTarget', () => {
  const written = captureStdout()
  const nonceLine =
    'GITHUB_RUN_ID is not set (not on a runner): the Idempotency-Keys of this run use a random nonce, so no other run repeats them\n'

  it('calls every target of the targets file, says so, and records each call', async () => {
    const inputs = inputsWith()
    const fingerprint = callFingerprint(callIdentity(inputs))
    const { transport, sent } = fake()
    const records: string[] = []
    const result = await callEveryTarget(transport, inputs, {
      bearer: bearer(),
      targets: collected([{ id: 'a' }, { id: 'b' }]),
      resultsDir: dir,
      signals: signals(),
      onRecord: path => records.push(path)
    })
    expect(sent.map(r => r.url.href)).toEqual([`${API}/v1/t/a`, `${API}/v1/t/b`])
    expect(written).toContain(`Calling ${CALL} for 2 targets, 4 at a time (call ${fingerprint})\n`)
    expect(result.count).toBe(2)
    expect(Object.fromEntries(result.outcomes)).toEqual({ succeeded: 2 })
    expect(records).toEqual([result.resultsFile])
    expect(lines(result.resultsFile).map(l => [l.id, l.call, l.runAttempt, l.shard])).toEqual([
      ['a', fingerprint, 1, null],
      ['b', fingerprint, 1, null]
    ])
  })

  it('says "1 target" for one, at the concurrency given', async () => {
    const inputs = inputsWith({ 'call-concurrency': '7' })
    const result = await callEveryTarget(fake().transport, inputs, {
      bearer: bearer(),
      targets: collected([{ id: 'a' }]),
      resultsDir: dir,
      signals: signals(),
      onRecord: () => undefined
    })
    expect(result.count).toBe(1)
    expect(written).toContain(
      `Calling ${CALL} for 1 target, 7 at a time (call ${callFingerprint(callIdentity(inputs))})\n`
    )
  })

  it('makes one call without targets', async () => {
    const inputs = inputsWith({ 'list-targets': 'false', call: 'POST /v1/ping' })
    const { transport, sent } = fake()
    const result = await callEveryTarget(transport, inputs, {
      bearer: bearer(),
      targets: undefined,
      resultsDir: dir,
      signals: signals(),
      onRecord: () => undefined
    })
    expect(sent.map(r => r.url.href)).toEqual([`${API}/v1/ping`])
    expect(result.count).toBe(1)
    expect(result.response).toBe('{"ok":1}')
    expect(written).toContain(
      `Calling POST /v1/ping for one call, 4 at a time (call ${callFingerprint(callIdentity(inputs))})\n`
    )
  })

  it('plans without a call in a dry run, and says so', async () => {
    const inputs = inputsWith({ 'call-dry-run': 'true' })
    const { transport, sent } = fake()
    const result = await callEveryTarget(transport, inputs, {
      bearer: bearer(),
      targets: collected([{ id: 'a' }, { id: 'b' }, { id: 'c' }]),
      resultsDir: dir,
      signals: signals(),
      onRecord: () => undefined
    })
    expect(sent).toHaveLength(0)
    expect(result.planned.map(row => row.call)).toEqual(['POST /v1/t/a', 'POST /v1/t/b', 'POST /v1/t/c'])
    const fingerprint = callFingerprint(callIdentity(inputs))
    expect(written).toContain(`Planning ${CALL} for 3 targets, with no call made (call-dry-run; call ${fingerprint})\n`)
    expect(written.some(l => l.startsWith('Calling '))).toBe(false)
  })

  it('uses a random nonce, and says so, when GITHUB_RUN_ID is not set', async () => {
    const { transport, sent } = fake()
    const inputs = inputsWith()
    await callEveryTarget(transport, inputs, {
      bearer: bearer(),
      targets: collected([{ id: 'a' }]),
      resultsDir: dir,
      signals: signals(),
      onRecord: () => undefined
    })
    expect(written.filter(l => l === nonceLine)).toHaveLength(1)
    const fingerprint = callFingerprint(callIdentity(inputs))
    expect(sent[0].headers['Idempotency-Key']).toMatch(/^[0-9a-f]{32}$/)
    expect(sent[0].headers['Idempotency-Key']).not.toBe(idempotencyKey('', fingerprint, targetKey({ id: 'a' })))
  })

  it('keys the calls by GITHUB_RUN_ID, with no nonce line, and records GITHUB_RUN_ATTEMPT and the shard', async () => {
    process.env.GITHUB_RUN_ID = '98765'
    process.env.GITHUB_RUN_ATTEMPT = '3'
    const inputs = inputsWith({ shard: '1/1' })
    const { transport, sent } = fake()
    const result = await callEveryTarget(transport, inputs, {
      bearer: bearer(),
      targets: collected([{ id: 'a' }]),
      resultsDir: dir,
      signals: signals(),
      onRecord: () => undefined
    })
    expect(written).not.toContain(nonceLine)
    const fingerprint = callFingerprint(callIdentity(inputs))
    expect(sent[0].headers['Idempotency-Key']).toBe(idempotencyKey('98765', fingerprint, targetKey({ id: 'a' })))
    expect(lines(result.resultsFile)).toEqual([expect.objectContaining({ runAttempt: 3, shard: '1/1' })])
  })

  it('records run attempt 1 when GITHUB_RUN_ATTEMPT is not a number', async () => {
    process.env.GITHUB_RUN_ATTEMPT = 'first'
    const result = await callEveryTarget(fake().transport, inputsWith(), {
      bearer: bearer(),
      targets: collected([{ id: 'a' }]),
      resultsDir: dir,
      signals: signals(),
      onRecord: () => undefined
    })
    expect(lines(result.resultsFile)).toEqual([expect.objectContaining({ runAttempt: 1, shard: null })])
  })

  it('skips what an earlier attempt finished (call-resume-from), calling only the rest', async () => {
    process.env.GITHUB_RUN_ID = '555'
    const first = fake(r => (r.url.pathname.endsWith('/b') ? 500 : 200))
    const targets = [{ id: 'a' }, { id: 'b' }]
    const earlier = await callEveryTarget(first.transport, inputsWith(), {
      bearer: bearer(),
      targets: collected(targets),
      resultsDir: dir,
      signals: signals(),
      onRecord: () => undefined
    })
    expect(Object.fromEntries(earlier.outcomes)).toEqual({ succeeded: 1, failed: 1 })

    process.env.GITHUB_RUN_ATTEMPT = '2'
    written.length = 0
    const again = fake()
    const inputs = inputsWith({ 'call-resume-from': earlier.resultsFile })
    const result = await callEveryTarget(again.transport, inputs, {
      earlier: new RoutineSetup(inputs).earlier,
      bearer: bearer(),
      targets: collected(targets),
      resultsDir: dir,
      signals: signals(),
      onRecord: () => undefined
    })
    expect(again.sent.map(r => r.url.href)).toEqual([`${API}/v1/t/b`])
    expect(Object.fromEntries(result.outcomes)).toEqual({ succeeded: 1, skipped: 1 })
    expect(lines(result.resultsFile).map(l => [l.id, l.outcome, l.status, l.runAttempt])).toEqual([
      ['a', 'skipped', 200, 2],
      ['b', 'succeeded', 200, 2]
    ])
  })

  it('drains on the first signal: a step cancelled before it starts makes no call', async () => {
    const { transport, sent } = fake()
    const result = await callEveryTarget(transport, inputsWith(), {
      bearer: bearer(),
      targets: collected([{ id: 'a' }, { id: 'b' }]),
      resultsDir: dir,
      signals: signals(true),
      onRecord: () => undefined
    })
    expect(sent).toHaveLength(0)
    expect(result.cancelled).toBe(true)
    expect(result.calls).toBe(0)
  })
})

describe('wavePlan', () => {
  const ranks = Uint32Array.from([50, 10, 40, 20])
  const callWith = (extra: Record<string, string>) => inputsWith(extra).call!

  it('is none without ranks, or without call-waves and call-canary', () => {
    expect(wavePlan(callWith({ 'call-waves': '1, 100%' }), undefined)).toBeUndefined()
    expect(wavePlan(callWith({ 'call-canary': '1' }), undefined)).toBeUndefined()
    expect(wavePlan(callWith({}), ranks)).toBeUndefined()
  })

  it('places the lowest ranks first, the last size repeating', () => {
    const plan = wavePlan(callWith({ 'call-waves': '1, 50%' }), ranks)!
    expect(plan.counts).toEqual([1, 2, 1])
    expect([...plan.waveOf]).toEqual([3, 1, 2, 2])
  })

  it('is one wave for a canary, the rest in none', () => {
    expect([...wavePlan(callWith({ 'call-canary': '2' }), ranks)!.waveOf]).toEqual([0, 1, 0, 1])
    const half = wavePlan(callWith({ 'call-canary': '50%' }), ranks)!
    expect(half.counts).toEqual([2])
  })

  it('is no wave for a canary over no targets', () => {
    const plan = wavePlan(callWith({ 'call-canary': '5' }), new Uint32Array(0))!
    expect(plan.counts).toHaveLength(0)
    expect(plan.waveOf).toHaveLength(0)
  })

  it('refuses more than 100 waves before any call, naming the sizes', () => {
    const many = new Uint32Array(101).map((_, i) => i)
    expect(wavePlan(callWith({ 'call-waves': '1' }), many.subarray(0, 100))!.counts).toHaveLength(100)
    expect(() => wavePlan(callWith({ 'call-waves': '1' }), many)).toThrow(
      'Input call-waves makes more than 100 waves of 101 targets (1): end it with a larger wave, such as 100%'
    )
  })
})

describe('callEveryTarget in waves', () => {
  const written = captureStdout()
  const headerOf = (path: string) => JSON.parse(readFileSync(path, 'utf8').split('\n')[0]) as Record<string, unknown>
  const run = (extra: Record<string, string>, targets: Collected) =>
    callEveryTarget(fake().transport, inputsWith(extra), {
      bearer: bearer(),
      targets,
      ranks: Uint32Array.from([50, 10, 40, 20]),
      resultsDir: dir,
      signals: signals(),
      onRecord: () => undefined
    })
  const four = () => collected([{ id: 'a' }, { id: 'b' }, { id: 'c' }, { id: 'd' }])

  it('says the waves, and records a listing with no canary', async () => {
    const targets = four()
    const result = await run({ 'call-waves': '1, 50%' }, targets)
    expect(written).toContain('In 3 waves of 1, 2, 1 targets, each answered and checked before the next (call-waves)\n')
    expect(headerOf(result.resultsFile)).toEqual(
      expect.objectContaining({ listing: targets.digest, snapshot: null, canary: false })
    )
  })

  it('says the canary, and records it and a snapshot', async () => {
    const targets = { ...four(), from: 'snapshot' as const }
    const result = await run({ 'call-canary': '2' }, targets)
    expect(written).toContain(
      'Canary: 2 of 4 targets, ranked as call-waves ranks them; the rest are left to the shards\n'
    )
    expect(written.join('')).not.toContain('(call-waves)\n')
    expect(headerOf(result.resultsFile)).toEqual(
      expect.objectContaining({ snapshot: targets.digest, listing: null, canary: true })
    )
  })

  it('says no waves without them', async () => {
    await run({}, four())
    expect(written.join('')).not.toMatch(/Canary:|\(call-waves\)/)
  })
})
