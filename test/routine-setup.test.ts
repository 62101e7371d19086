import { jest } from '@jest/globals'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { getInputs as getInputsWith, Inputs } from '../src/inputs.js'
import { call } from '../src/inputs/call.js'
import { isPlan2Digest, PlanBuilder } from '../src/routine/plan-calls.js'
import { waveRank } from '../src/routine/waves.js'
import { RoutineSetup } from '../src/routine-setup.js'
import { callIdentity, verifiedPlan } from '../src/routine-step.js'
import { callFingerprint } from '../src/routine/fingerprint.js'
import { headerLine, sealLine } from '../src/routine/record-format.js'
import { renderBody, renderPath } from '../src/service/call.js'
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

/** The step's targets passed through the setup as TargetsFile passes them (a shard's only, given one). */
function pass(setup: RoutineSetup, list: unknown[], digest = `sha256:${'ab'.repeat(32)}`, inputs?: Inputs): Collected {
  const file = new TargetsFile({ dir, shard: inputs?.shard, onTarget: setup.onTarget })
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
    const earlier = earlierFile(['t1'], callFingerprint(callIdentity(inputs)))
    await expect(plan({ 'plan-digest': old, 'call-resume-from': earlier })).rejects.toThrow(/but not call-resume-from:/)
  })

  it('gives a step that is neither a dry run nor an apply the plan1 digest of its call', async () => {
    expect(await plan({})).toMatch(/^plan1\./)
  })
})

describe('RoutineSetup: an apply held to the plan file (plan-from)', () => {
  /** The plan job's file: a DELETE of each key, as a dry run writes its planned lines, under `approved`. */
  function planFile(approved: string, keys: string[]): string {
    const { spec } = inputsWith().call!
    const header = { run: '1', attempt: 1, call: FP, shard: null, snapshot: null, listing: null, where: null }
    const planned = keys.map(
      (key, index) =>
        `{"key":"${key}","call":"${FP}","outcome":"planned","status":null,"runAttempt":1,"shard":null,"index":${index},"method":"DELETE","path":"${renderPath(spec, { id: key })}"}`
    )
    const file = join(mkdtempSync(join(dir, 'plan-')), 'results-plan.jsonl')
    const seal = sealLine({ lines: keys.length + 1, sha256: '0'.repeat(64), sig: null })
    writeFileSync(
      file,
      [
        headerLine({ ...header, plan: approved, canary: false, signer: null }),
        ...planned.map(l => `${l}\n`),
        seal
      ].join('')
    )
    return file
  }
  const keysOf = (list: { id: string }[]) => list.map(target => target.id)

  async function apply(extra: Record<string, string>, list: unknown[], digest?: string): Promise<string> {
    const inputs = inputsWith(extra)
    const setup = new RoutineSetup(inputs)
    return setup.planDigest(pass(setup, list, digest, inputs))
  }
  const approvedOver = async (list: unknown[]) => {
    const setup = new RoutineSetup(inputsWith({ 'call-dry-run': 'true' }))
    return setup.planDigest(pass(setup, list))
  }

  it('lets the same calls through with their plan file, and refuses a file of another plan', async () => {
    const approved = await approvedOver(targets(4))
    expect(
      await apply({ 'plan-digest': approved, 'plan-from': planFile(approved, keysOf(targets(4))) }, targets(4))
    ).toBe(approved)
    const other = await approvedOver(targets(3))
    await expect(
      apply({ 'plan-digest': approved, 'plan-from': planFile(other, keysOf(targets(3))) }, targets(4))
    ).rejects.toThrow(
      /^Input plan-from: ".*results-plan\.jsonl" is not the approved plan: its header names another plan/
    )
  })

  it('names the first call in which the step differs from the plan file, or the calls one of them lacks', async () => {
    const approved = await approvedOver(targets(4))
    const file = planFile(approved, keysOf(targets(4)))
    const path = (id: string) => `"${renderPath(inputsWith().call!.spec, { id })}"`
    // Two calls differ: the first is named.
    const moved = [...targets(2), { id: 'other' }, { id: 'again' }]
    await expect(apply({ 'plan-digest': approved, 'plan-from': file }, moved)).rejects.toThrow(
      `; the first call that differs is #3: the approved plan has DELETE ${path('t2')}, this step DELETE ${path('other')}. No call was made.`
    )
    await expect(apply({ 'plan-digest': approved, 'plan-from': file }, targets(3))).rejects.toThrow(
      `the first call that differs is #4: the approved plan has DELETE ${path('t3')}, this step no more calls.`
    )
    await expect(apply({ 'plan-digest': approved, 'plan-from': file }, targets(5))).rejects.toThrow(
      `the first call that differs is #5: the approved plan has no more calls, this step DELETE ${path('t4')}.`
    )
    // The same calls from another snapshot: no call differs, so none is named.
    const snapshot = apply({ 'plan-digest': approved, 'plan-from': file }, targets(4), `sha256:${'cd'.repeat(32)}`)
    await expect(snapshot).rejects.toThrow(/^Input plan-digest: this step would make the same number of calls \(4\)/)
    await expect(snapshot).rejects.not.toThrow(/first call that differs/)
    // Without plan-from, nothing is named, and no shard's hint is given.
    const without = apply({ 'plan-digest': approved }, moved)
    await expect(without).rejects.toThrow(
      /every input is the same, so the targets themselves changed \(a new listing\)\. No call/
    )
    await expect(without).rejects.not.toThrow(/first call that differs|plan-from/)
  })

  it("lets one shard of a plan made over every target through with the plan file: that shard's calls", async () => {
    const list = targets(12)
    const approved = await approvedOver(list)
    const file = planFile(approved, keysOf(list))
    for (const shard of ['1/2', '2/2']) {
      expect(await apply({ 'plan-digest': approved, 'plan-from': file, shard }, list)).toBe(approved)
      expect(written()).toContain(
        `The plan is the approved one (plan-digest and plan-from): shard ${shard.replace('/', ' of ')} makes its`
      )
    }
    // Without the plan file, nothing says which of the plan's calls are this shard's.
    await expect(apply({ 'plan-digest': approved, shard: '1/2' }, list)).rejects.toThrow(
      /; what differs: shard \(to apply one shard of a plan made over every target, give plan-from\)\. No call was made\./
    )
    // A shard's targets that are not the plan's: the first that differs is named.
    const changed = list.map(target => (target.id === 't0' ? { id: 'new' } : target))
    const refused = await Promise.all(
      ['1/2', '2/2'].map(shard =>
        apply({ 'plan-digest': approved, 'plan-from': file, shard }, changed).then(
          () => '',
          (err: Error) => err.message
        )
      )
    )
    const named = refused.filter(message => message !== '')
    expect(named.length).toBeGreaterThan(0)
    for (const message of named) expect(message).toMatch(/the first call that differs is #\d+: .*"\/v1\/t\/(t0|new)"/)
  })

  it('plans the one call, as written, for a step with no targets', async () => {
    const rotate = { token: 'tok-setup', 'base-url': API, call: 'POST /v1/rotate', 'list-targets': 'false' }
    setInputs({ ...rotate, 'call-dry-run': 'true' })
    const inputs = getInputs()
    const { spec, text, bodyText } = inputs.call!
    const one = new PlanBuilder()
    one.add('', spec.method, renderPath(spec, {}), renderBody(spec, {}))
    const expected = one.digest({ targets: '', call: text, body: bodyText, baseUrl: inputs.baseUrl })
    expect(await new RoutineSetup(inputs).planDigest(undefined)).toBe(expected)
    expect(expected.split('.')[1]).toBe('1')
    // Neither a dry run nor a plan2 apply: the plan1 digest of the call over no snapshot, which an
    // apply given it is let through with.
    setInputs(rotate)
    const plan1 = verifiedPlan(getInputs(), '')
    expect(await new RoutineSetup(getInputs()).planDigest(undefined)).toBe(plan1)
    setInputs({ ...rotate, 'plan-digest': plan1 })
    expect(await new RoutineSetup(getInputs()).planDigest(undefined)).toBe(plan1)
  })
})
