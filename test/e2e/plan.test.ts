import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  clientInputs,
  expectFailure,
  expectOneTally,
  json,
  resultLines,
  runAction,
  startServer,
  TestServer,
  TOKEN
} from './harness.js'

// A plan before a destructive routine, and the calls exactly as planned.
let idp: TestServer
let api: TestServer
let targets: unknown[]
let dir: string
/** Targets whose calls the service refuses (409, not retried). */
let failing = new Set<string>()

beforeAll(async () => {
  idp = await startServer((_req, res) =>
    json(res, 200, { access_token: TOKEN, expires_in: 86400, token_type: 'Bearer' })
  )
  api = await startServer((req, res) => {
    if (req.url === '/v1/targets') return json(res, 200, targets)
    const id = decodeURIComponent(req.url.split('/')[3] ?? '')
    return failing.has(id) ? json(res, 409, { error: 'busy' }) : json(res, 200, { ok: 1 })
  })
  dir = mkdtempSync(join(tmpdir(), 'm2m-plan-'))
})
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true })
  await Promise.all([idp.close(), api.close()])
})
beforeEach(() => {
  failing = new Set()
  idp.requests.length = 0
  api.requests.length = 0
  targets = Array.from({ length: 50 }, (_, i) => ({ id: `t-${String(i + 1).padStart(3, '0')}`, name: `n${i}` }))
})

const RUN = { env: { GITHUB_RUN_ID: '99', GITHUB_RUN_ATTEMPT: '1' } }
const inputs = (extra: Record<string, string>, baseUrl = api.url) => clientInputs(idp.url, baseUrl, extra)
const calls = () => api.requests.filter(r => r.url !== '/v1/targets')

describe('call-dry-run', () => {
  it('plans a DELETE for every target and sends none', async () => {
    const run = await runAction(inputs({ call: 'DELETE /v1/targets/{id}', 'call-dry-run': 'true' }), RUN)
    try {
      expect(run.code).toBe(0)
      expect(api.requests.map(r => r.method)).toEqual(['GET']) // the listing, and nothing else
      expect(run.outputs).toMatchObject({ 'calls-planned': '50', 'calls-succeeded': '0', 'calls-failed': '0' })
      expect(run.outputs['plan-digest']).toMatch(/^plan2\.50\.([0-9a-f]{8}\.){7}[0-9a-f]{64}$/)
      const lines = resultLines(run.outputs['results-file'])
      expect(lines).toHaveLength(50)
      expect(lines[0]).toMatchObject({
        key: 't-001',
        outcome: 'planned',
        method: 'DELETE',
        path: '/v1/targets/t-001',
        body: null
      })
      expect(run.summary).toMatch(/^## DELETE \/v1\/targets\/\{id\}: a plan of 50 calls, none made/)
      // What a reviewer approves: the digest, and each call with the target's key and name.
      expect(run.summary).toContain(`**Plan digest** \`${run.outputs['plan-digest']}\``)
      expect(run.summary).toContain('| 1 | t-001 | n0 | DELETE /v1/targets/t-001 |')
      expect(run.summary).toContain('| DELETE /v1/targets/t-020 |')
      expect(run.summary).not.toContain('DELETE /v1/targets/t-021')
      expect(run.summary).toContain('…and 30 more')
      // Planned, never "Calls … 0/s": no call was made.
      expect(expectOneTally(run).progress).toBe('Planned: 50 of 50 targets (100 %): 50 planned; no call made')
      expect(run.stdout).not.toMatch(/^Calls: /m)
    } finally {
      run.cleanup()
    }
  })
})

describe('plan-digest: apply exactly the plan', () => {
  const CALL = { call: 'POST /v1/targets/{id}/archive', 'call-body': '{"reason":"cleanup","name":"{name}"}' }

  /** The plan job: lists, plans, and hands on the snapshot and both digests. */
  const plan = async () => {
    const run = await runAction(inputs({ ...CALL, 'call-dry-run': 'true' }), RUN)
    try {
      expect(run.code).toBe(0)
      const snapshot = join(dir, 'targets.json')
      copyFileSync(run.outputs['targets-file'], snapshot)
      return { snapshot, targetsDigest: run.outputs['targets-digest'], planDigest: run.outputs['plan-digest'] }
    } finally {
      run.cleanup()
    }
  }

  it('lets the identical apply through and makes every call', async () => {
    const planned = await plan()
    api.requests.length = 0
    const run = await runAction(
      inputs({
        ...CALL,
        'targets-from': planned.snapshot,
        'targets-digest': planned.targetsDigest,
        'plan-digest': planned.planDigest
      }),
      RUN
    )
    try {
      expect(run.code).toBe(0)
      expect(calls()).toHaveLength(50)
      expect(run.outputs['plan-digest']).toBe(planned.planDigest)
      expect(run.stdout).toContain('The plan is the approved one (plan-digest)')
    } finally {
      run.cleanup()
    }
  })

  it.each([
    ['a changed body', { 'call-body': '{"reason":"purge","name":"{name}"}' }, undefined, 'call-body'],
    ['a changed call', { call: 'DELETE /v1/targets/{id}/archive' }, undefined, 'the call input \\(method or path\\)'],
    ['a changed base-url', {}, '/v2', 'base-url'],
    ['a changed snapshot', {}, undefined, 'the targets \\(targets-from and targets-digest, or the listing\\)']
  ])('refuses %s before any request, naming it', async (what, change, basePath, named) => {
    const planned = await plan()
    if (what === 'a changed snapshot') {
      const text = readFileSync(planned.snapshot, 'utf8').replace('"t-050"', '"t-051"')
      writeFileSync(planned.snapshot, text)
    }
    idp.requests.length = 0
    api.requests.length = 0
    const run = await runAction(
      inputs(
        { ...CALL, ...change, 'targets-from': planned.snapshot, 'plan-digest': planned.planDigest },
        basePath ? `${api.url}${basePath}` : api.url
      ),
      RUN
    )
    try {
      expectFailure(
        run,
        new RegExp(
          `^::error::Input plan-digest: this step would make .*; what differs: ${named}\\. No call was made\\.`
        )
      )
      // The snapshot's plan is checked before the token is asked for: no request at all.
      expect(idp.requests).toHaveLength(0)
      expect(api.requests).toHaveLength(0)
    } finally {
      run.cleanup()
    }
  })
})

describe('the plan is the calls (the H1 repro)', () => {
  const DELETE = { call: 'DELETE /v1/targets/{id}' }

  /** A snapshot of the 50 targets, and a plan made over it with `extra`. */
  /** The list job: a snapshot of the 50 targets, and the inputs that read it. */
  const snapshotOf = async () => {
    const list = await runAction(inputs({ 'targets-output': 'false' }), RUN)
    const snapshot = join(dir, 'h1-targets.json')
    copyFileSync(list.outputs['targets-file'], snapshot)
    const digest = list.outputs['targets-digest']
    list.cleanup()
    return { 'targets-from': snapshot, 'targets-digest': digest }
  }

  /** A plan made over the snapshot with `extra`. */
  const planOver = async (extra: Record<string, string>, run = RUN, given?: Record<string, string>) => {
    const snapshotInputs = given ?? (await snapshotOf())
    const planned = await runAction(inputs({ ...DELETE, ...snapshotInputs, 'call-dry-run': 'true', ...extra }), run)
    expect(planned.code).toBe(0)
    const approved = planned.outputs['plan-digest']
    const count = Number(planned.outputs['calls-planned'])
    const results = planned.outputs['results-file']
    const kept = join(dir, 'h1-plan.jsonl')
    copyFileSync(results, kept)
    planned.cleanup()
    api.requests.length = 0
    idp.requests.length = 0
    return { snapshotInputs, approved, count, planFile: kept }
  }

  const apply = (extra: Record<string, string>, run = RUN) => runAction(inputs({ ...DELETE, ...extra }), run)
  /** A re-run of the workflow: the plan and the apply read the first attempt's results. */
  const RERUN = { env: { ...RUN.env, GITHUB_RUN_ATTEMPT: '2' } }

  it.each([
    ['another shard', { shard: '2/2' }, /what differs: shard/],
    ['no shard', {}, /calls where the approved plan has \d+; what differs: shard/]
  ])('refuses a plan made for shard 1/2 applied with %s, before any request', async (_what, change, message) => {
    const { snapshotInputs, approved, count } = await planOver({ shard: '1/2' })
    expect(count).toBeGreaterThan(0)
    expect(count).toBeLessThan(50)
    const run = await apply({ ...snapshotInputs, 'plan-digest': approved, ...change })
    try {
      expectFailure(run, message)
      expect(api.requests).toHaveLength(0)
      expect(idp.requests).toHaveLength(0)
    } finally {
      run.cleanup()
    }
    // The same shard is let through, and makes exactly the planned calls.
    const same = await apply({ ...snapshotInputs, 'plan-digest': approved, shard: '1/2' })
    try {
      expect(same.code).toBe(0)
      expect(calls()).toHaveLength(count)
    } finally {
      same.cleanup()
    }
  })

  it('refuses an apply without the call-resume-from its plan was made with', async () => {
    // An earlier attempt deleted 40 of the 50 targets of the snapshot: the plan holds the 10 left.
    const snapshot = await snapshotOf()
    const earlier = await runAction(inputs({ ...DELETE, ...snapshot, 'targets-where': 'id < "t-041"' }), RUN)
    const earlierFile = join(dir, 'h1-earlier.jsonl')
    copyFileSync(earlier.outputs['results-file'], earlierFile)
    earlier.cleanup()
    const { snapshotInputs, approved, count } = await planOver({ 'call-resume-from': earlierFile }, RERUN, snapshot)
    expect(count).toBe(10)
    const run = await apply({ ...snapshotInputs, 'plan-digest': approved }, RERUN)
    try {
      expectFailure(run, /would make 50 calls where the approved plan has 10; what differs: call-resume-from/)
      expect(api.requests).toHaveLength(0)
    } finally {
      run.cleanup()
    }
    const same = await apply({ ...snapshotInputs, 'plan-digest': approved, 'call-resume-from': earlierFile }, RERUN)
    try {
      expect(same.code).toBe(0)
      expect(calls()).toHaveLength(10)
    } finally {
      same.cleanup()
    }
  })

  it('re-runs a partial apply: only the calls left, inside the same plan', async () => {
    const { snapshotInputs, approved, planFile } = await planOver({})
    failing = new Set(['t-003', 't-017', 't-042'])
    const first = await apply({ ...snapshotInputs, 'plan-digest': approved, 'plan-from': planFile })
    const attempt1 = join(dir, 'apply-1.jsonl')
    try {
      expect(first.code).toBe(1)
      expect(first.outputs).toMatchObject({ 'calls-succeeded': '47', 'calls-failed': '3' })
      copyFileSync(first.outputs['results-file'], attempt1)
    } finally {
      first.cleanup()
    }
    failing = new Set()
    api.requests.length = 0
    const again = await apply(
      { ...snapshotInputs, 'plan-digest': approved, 'plan-from': planFile, 'call-resume-from': attempt1 },
      RERUN
    )
    try {
      expect(again.code).toBe(0)
      expect(
        calls()
          .map(r => r.url)
          .sort()
      ).toEqual(['/v1/targets/t-003', '/v1/targets/t-017', '/v1/targets/t-042'])
      expect(again.outputs).toMatchObject({ 'calls-succeeded': '3', 'calls-skipped': '47' })
      expect(again.stdout).toContain('The plan is the approved one (plan-digest): its 50 calls are made as planned')
    } finally {
      again.cleanup()
    }
  })

  it('refuses a plan file altered after the plan was made, before any request', async () => {
    const { snapshotInputs, approved, planFile } = await planOver({ shard: '1/2' })
    const text = readFileSync(planFile, 'utf8')
    const first = /"path":"(\/v1\/targets\/t-\d+)"/.exec(text)![1]
    writeFileSync(planFile, text.replace(`"path":"${first}"`, '"path":"/v1/targets/t-999"'))
    const run = await apply({ ...snapshotInputs, 'plan-digest': approved, shard: '1/2', 'plan-from': planFile })
    try {
      expectFailure(
        run,
        /^::error::Input plan-from: ".*h1-plan\.jsonl" is not the approved plan: its calls are not the approved plan’s: it was altered after the plan was made\. No call was made\./
      )
      expect(api.requests).toHaveLength(0)
      expect(idp.requests).toHaveLength(0)
    } finally {
      run.cleanup()
    }
  })

  it('names the first call in which an apply differs from the plan file', async () => {
    const { snapshotInputs, approved, planFile } = await planOver({})
    const run = await apply({
      ...snapshotInputs,
      'plan-digest': approved,
      'plan-from': planFile,
      'targets-where': 'id != "t-004"'
    })
    try {
      expectFailure(
        run,
        /would make 49 calls where the approved plan has 50; what differs: targets-where; the first call that differs is #4: the approved plan has DELETE "\/v1\/targets\/t-004", this step DELETE "\/v1\/targets\/t-005"\. No call was made\./
      )
      expect(api.requests).toHaveLength(0)
    } finally {
      run.cleanup()
    }
  })

  it('applies a plan made over every target shard by shard, each shard checked against the plan file', async () => {
    const { snapshotInputs, approved, count, planFile } = await planOver({})
    expect(count).toBe(50)
    const without = await apply({ ...snapshotInputs, 'plan-digest': approved, shard: '1/2' })
    try {
      expectFailure(
        without,
        /what differs: shard \(to apply one shard of a plan made over every target, give plan-from\)/
      )
      expect(api.requests).toHaveLength(0)
    } finally {
      without.cleanup()
    }
    for (const shard of ['1/2', '2/2']) {
      const one = await apply({ ...snapshotInputs, 'plan-digest': approved, shard, 'plan-from': planFile })
      try {
        expect(one.code).toBe(0)
        expect(one.stdout).toMatch(
          /The plan is the approved one \(plan-digest and plan-from\): shard \d of 2 makes its \d+ of the plan's calls/
        )
      } finally {
        one.cleanup()
      }
    }
    expect(calls()).toHaveLength(50)
    expect(new Set(calls().map(r => r.url)).size).toBe(50)
  })
})
