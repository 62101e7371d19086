import { jest } from '@jest/globals'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { getInputs as getInputsWith, Inputs } from '../src/inputs.js'
import { call } from '../src/inputs/call.js'
import { isPlan2Digest } from '../src/routine/plan-calls.js'
import { waveRank } from '../src/routine/waves.js'
import { RoutineSetup } from '../src/routine-setup.js'
import { callIdentity, verifiedPlan } from '../src/routine-step.js'
import { callFingerprint } from '../src/routine/fingerprint.js'
import { Collected } from '../src/targets/collect.js'
import { TargetsFile } from '../src/targets/file.js'
import { captureStdout, FP, line, setInputs } from './helpers.js'

/** getInputs with the call inputs' reader, as readInputs gives it to a step with a call. */
const getInputs = (door?: Parameters<typeof getInputsWith>[0]): Inputs => getInputsWith(door, call)

const API = 'https://api.setup.test/base'
const stdout = captureStdout()
const written = () => stdout.join('')

let dir: string
const saved = { ...process.env }
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'm2m-routine-setup-'))
  // A re-run: the earlier files below are of attempt 1.
  process.env.GITHUB_RUN_ATTEMPT = '2'
  delete process.env.GITHUB_RUN_ID
})
afterEach(() => {
  process.env = { ...saved }
  rmSync(dir, { recursive: true, force: true })
})

function inputsWith(extra: Record<string, string> = {}): Inputs {
  setInputs({ token: 'tok-setup', 'base-url': API, call: 'DELETE /v1/t/{id}', ...extra })
  return getInputs()
}

const targets = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `t${i}` }))

/** The step's targets passed through the setup as TargetsFile passes them. */
function pass(setup: RoutineSetup, list: unknown[], digest = `sha256:${'ab'.repeat(32)}`): Collected {
  const file = new TargetsFile({ dir, onTarget: setup.onTarget })
  file.add(list)
  const listing = file.finish()
  return { listing, shardCount: 1, from: 'snapshot', digest }
}

/** A results file of an earlier attempt in which these targets succeeded. */
function earlierFile(keys: string[], call = FP): string {
  const path = join(dir, `earlier-${keys.join('-')}.jsonl`)
  writeFileSync(path, keys.map(key => `${line(key, 'succeeded', 204, { call })}\n`).join(''))
  return path
}

describe('RoutineSetup: the preflight and the ranks', () => {
  it('refuses targets the call cannot be made for, after they passed', async () => {
    const setup = new RoutineSetup(inputsWith())
    pass(setup, [{ id: 'a' }, { name: 'no id' }])
    expect(() => setup.checkTargets()).toThrow(/^Input call: 1 of 2 targets cannot fill its placeholders/)
  })

  it("keeps the targets' wave ranks in list order, only with call-waves or call-canary", () => {
    const waved = new RoutineSetup(inputsWith({ 'call-waves': '1, 100%' }))
    pass(waved, targets(3))
    expect([...waved.waveRanks!]).toEqual(['t0', 't1', 't2'].map(waveRank))
    const canary = new RoutineSetup(inputsWith({ 'call-canary': '1' }))
    pass(canary, targets(2))
    expect(canary.waveRanks).toHaveLength(2)
    expect(new RoutineSetup(inputsWith()).waveRanks).toBeUndefined()
  })
})

describe('RoutineSetup: what earlier attempts finished', () => {
  it('reads call-resume-from before the targets pass, for the plan and the routine', async () => {
    const earlier = earlierFile(['t1'], callFingerprint(callIdentity(inputsWith())))
    const setup = new RoutineSetup(inputsWith({ 'call-resume-from': earlier }))
    expect(setup.earlier?.finished('t1')).toBe(204)
    expect(setup.earlier?.finished('t0')).toBeUndefined()
    expect(new RoutineSetup(inputsWith()).earlier).toBeUndefined()
  })

  it('counts the targets passed that an earlier attempt finished: the routine skips them', () => {
    const earlier = earlierFile(['t1', 't3', 'gone'], callFingerprint(callIdentity(inputsWith())))
    const setup = new RoutineSetup(inputsWith({ 'call-resume-from': earlier }))
    expect(setup.skipped).toBe(0)
    const asked = jest.spyOn(setup.earlier!, 'finishedAt')
    pass(setup, targets(5))
    expect(setup.skipped).toBe(2)
    // Each by its place in the targets file: the routine's ask at the same place is answered from it.
    expect(asked.mock.calls).toEqual(['t0', 't1', 't2', 't3', 't4'].map((key, place) => [place, key]))
    expect(targets(5).map((target, place) => setup.earlier!.finishedAt(place, target.id))).toEqual([
      undefined,
      204,
      undefined,
      204,
      undefined
    ])
    const none = new RoutineSetup(inputsWith())
    pass(none, targets(5))
    expect(none.skipped).toBe(0)
  })

  it('logs, with core.info, that a resume folder holds no results yet', async () => {
    const empty = mkdtempSync(join(dir, 'none-'))
    new RoutineSetup(inputsWith({ 'call-resume-from': empty }))
    expect(written()).toContain(
      `No earlier results in ${empty} (call-resume-from): a first attempt, so every target is called\n`
    )
  })

  it('throws before any call when a resume file is not a results file', async () => {
    const bad = join(dir, 'results-bad.jsonl')
    writeFileSync(bad, 'not json\n')
    expect(() => new RoutineSetup(inputsWith({ 'call-resume-from': bad }))).toThrow(
      /^Input call-resume-from: .*; no call was made$/
    )
  })
})

describe('RoutineSetup: the plan is the calls', () => {
  const plan = async (extra: Record<string, string>, list: unknown[] = targets(10), digest?: string) => {
    const setup = new RoutineSetup(inputsWith(extra))
    return setup.planDigest(pass(setup, list, digest))
  }

  it('makes a plan2 digest of the calls in a dry run, the same for the same calls', async () => {
    const digest = await plan({ 'call-dry-run': 'true' })
    expect(isPlan2Digest(digest)).toBe(true)
    expect(digest.split('.')[1]).toBe('10')
    expect(await plan({ 'call-dry-run': 'true' })).toBe(digest)
    expect(await plan({ 'call-dry-run': 'true' }, targets(9))).not.toBe(digest)
  })

  it('lets an apply of the same calls through, and says so', async () => {
    const approved = await plan({ 'call-dry-run': 'true' })
    expect(await plan({ 'plan-digest': approved })).toBe(approved)
    expect(written()).toContain('The plan is the approved one (plan-digest): its 10 calls are made as planned\n')
  })

  it.each([
    ['another shard', { shard: '2/2' }, 'shard'],
    ['a selection', { 'targets-where': 'id != "t3"' }, 'targets-where'],
    ['another body', { 'call-body': '{"x":1}' }, 'call-body'],
    ['another call', { call: 'DELETE /v1/u/{id}' }, 'the call input \\(method or path\\)']
  ])('refuses an apply with %s before any call, naming the input', async (_what, change, input) => {
    const approved = await plan({ 'call-dry-run': 'true' })
    await expect(plan({ 'plan-digest': approved, ...change })).rejects.toThrow(
      new RegExp(
        `^Input plan-digest: this step would make .*; what differs: ${input}(?: \\(.*\\))?\\. No call was made\\.`
      )
    )
  })

  it('refuses an apply without the resume its plan had, counting the calls', async () => {
    const earlier = earlierFile(['t1', 't2'], callFingerprint(callIdentity(inputsWith())))
    const approved = await plan({ 'call-dry-run': 'true', 'call-resume-from': earlier })
    expect(approved.split('.')[1]).toBe('8')
    await expect(plan({ 'plan-digest': approved })).rejects.toThrow(
      /^Input plan-digest: this step would make 10 calls where the approved plan has 8; what differs: call-resume-from/
    )
    expect(await plan({ 'plan-digest': approved, 'call-resume-from': earlier })).toBe(approved)
  })

  it('names no input when only the targets changed under the same inputs', async () => {
    const approved = await plan({ 'call-dry-run': 'true' })
    const moved = [...targets(9), { id: 'other' }]
    await expect(plan({ 'plan-digest': approved }, moved)).rejects.toThrow(
      /the same number of calls \(10\), other ones; every input is the same, so the targets themselves changed/
    )
  })

  it('takes a plan1 digest only where it binds every call, and refuses it with a shard', async () => {
    const inputs = inputsWith()
    const old = verifiedPlan(inputs, `sha256:${'ab'.repeat(32)}`)
    expect(await plan({ 'plan-digest': old })).toBe(old)
    await expect(plan({ 'plan-digest': old, shard: '1/2' })).rejects.toThrow(
      /^Input plan-digest is a plan1 digest, made by an earlier version of this action, which binds the snapshot and the call but not shard/
    )
    await expect(plan({ 'plan-digest': old, 'targets-where': 'true' })).rejects.toThrow(/but not targets-where/)
  })

  it('gives a step that is neither a dry run nor an apply the plan1 digest of its call', async () => {
    expect(await plan({})).toMatch(/^plan1\./)
  })
})
