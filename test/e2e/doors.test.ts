import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'
import {
  clientInputs,
  CLIENT,
  expectFailure,
  json,
  Received,
  resultLines,
  runAction,
  startServer,
  TestServer,
  TOKEN
} from './harness.js'

// The sub-actions, each run through its own action.yml as a runner reads it: the README's fan-out
// (list, canary, shards, report) and plan/apply, and the same workflows through the root action.
let idp: TestServer
let api: TestServer
let dir: string
let failing: Set<string>
const targets = Array.from({ length: 60 }, (_, i) => ({
  id: `t-${String(i + 1).padStart(3, '0')}`,
  name: `host-${i + 1}`,
  status: i % 6 === 0 ? 'retired' : 'active'
}))
const idOf = (r: Received) => decodeURIComponent(r.url.split('/')[3] ?? '')
const calls = () => api.requests.filter(r => r.url !== '/v1/targets')
const env = (attempt = 1) => ({ GITHUB_RUN_ID: '8080', GITHUB_RUN_ATTEMPT: String(attempt) })

beforeAll(async () => {
  idp = await startServer((_req, res) =>
    json(res, 200, { access_token: TOKEN, expires_in: 86400, token_type: 'Bearer' })
  )
  api = await startServer((req, res) => {
    if (req.url === '/v1/targets') return json(res, 200, targets)
    return failing.has(idOf(req)) ? json(res, 409, { message: 'busy' }) : json(res, 201, { ok: 1 })
  })
})
afterAll(async () => Promise.all([idp.close(), api.close()]))
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'm2m-doors-'))
  failing = new Set()
  api.requests.length = 0
  idp.requests.length = 0
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

const CREDENTIALS = {
  'client-id': CLIENT.id,
  'client-secret': CLIENT.secret,
  audience: CLIENT.audience
}
const SCAN = { call: 'POST /v1/targets/{id}/scans', 'call-body': '{"profile":"nightly"}' }

/** Keeps a file as download-artifact lays an artifact out: a folder of its name. */
function artifact(file: string, name: string): string {
  const folder = join(dir, 'artifacts', name)
  mkdirSync(folder, { recursive: true })
  copyFileSync(file, join(folder, basename(file)))
  return folder
}

/** The README's fan-out through the doors: list, canary, 3 shards, report. */
async function fanOutThroughDoors() {
  const list = await runAction(
    { ...CREDENTIALS, 'auth-url': idp.url, 'base-url': api.url, 'shard-size': '20' },
    { door: 'list', env: env() }
  )
  expect(list.code).toBe(0)
  expect(Object.keys(list.outputs).sort()).toEqual(
    ['counts', 'record-key', 'sealed-token', 'shards', 'targets-digest', 'targets-file'].sort()
  )
  expect(JSON.parse(list.outputs.counts)).toEqual({ listed: 60, selected: 60, shards: 3 })
  const snapshot = artifact(list.outputs['targets-file'], 'targets')
  const handoff = {
    'sealed-token': list.outputs['sealed-token'],
    'client-secret': CLIENT.secret,
    'targets-from': snapshot,
    'targets-digest': list.outputs['targets-digest']
  }
  const { shards, 'record-key': recordKey, 'targets-digest': digest } = list.outputs
  list.cleanup()
  idp.requests.length = 0
  const canary = await runAction({ ...handoff, ...SCAN, 'call-canary': '3' }, { door: 'shard', env: env() })
  expect(canary.code).toBe(0)
  expect(JSON.parse(canary.outputs.counts)).toMatchObject({ succeeded: 3 })
  const canaryFolder = artifact(canary.outputs['results-file'], 'results-1-canary')
  canary.cleanup()
  for (const shard of JSON.parse(shards) as string[]) {
    const run = await runAction(
      { ...handoff, ...SCAN, shard, 'call-resume-from': canaryFolder },
      { door: 'shard', env: env() }
    )
    expect(run.code).toBe(0)
    expect(Object.keys(run.outputs).sort()).toEqual(['counts', 'results-file'])
    artifact(run.outputs['results-file'], `results-1-${shard[0]}`)
    run.cleanup()
  }
  // The sealed token was reused: no shard, and not the canary, asked for a token.
  expect(idp.requests).toHaveLength(0)
  const report = await runAction(
    {
      'report-from': join(dir, 'artifacts'),
      'targets-from': snapshot,
      'targets-digest': digest,
      'record-key': recordKey,
      ...SCAN,
      'base-url': api.url
    },
    { door: 'report', env: env() }
  )
  return report
}

describe('the doors', () => {
  it("run the README's fan-out: list, canary, shards and report, every target called once", async () => {
    const report = await fanOutThroughDoors()
    try {
      expect(report.code).toBe(0)
      expect(Object.keys(report.outputs).sort()).toEqual(['counts', 'report-file', 'shards-to-rerun'])
      expect(JSON.parse(report.outputs.counts)).toMatchObject({ targets: 60, succeeded: 60, missing: 0, failed: 0 })
      expect(report.outputs['shards-to-rerun']).toBe('[]')
      expect(calls().map(idOf).sort()).toEqual(targets.map(t => t.id))
    } finally {
      report.cleanup()
    }
  })

  it('give the same record as the root action running the same workflow', async () => {
    const doors = await fanOutThroughDoors()
    const throughDoors = readFileSync(doors.outputs['report-file'], 'utf8')
    doors.cleanup()
    rmSync(join(dir, 'artifacts'), { recursive: true, force: true })
    // The same fan-out through action.yml.
    const inputs = (extra: Record<string, string>) => clientInputs(idp.url, api.url, extra)
    const list = await runAction(inputs({ 'targets-output': 'false', 'shard-size': '20' }), { env: env() })
    const snapshot = artifact(list.outputs['targets-file'], 'targets')
    const shared = {
      'sealed-token': list.outputs['sealed-token'],
      'targets-from': snapshot,
      'targets-digest': list.outputs['targets-digest']
    }
    const recordKey = list.outputs['record-key']
    list.cleanup()
    const canary = await runAction(inputs({ ...shared, ...SCAN, 'call-canary': '3' }), { env: env() })
    const canaryFolder = artifact(canary.outputs['results-file'], 'results-1-canary')
    canary.cleanup()
    for (const shard of ['1/3', '2/3', '3/3']) {
      const run = await runAction(inputs({ ...shared, ...SCAN, shard, 'call-resume-from': canaryFolder }), {
        env: env()
      })
      artifact(run.outputs['results-file'], `results-1-${shard[0]}`)
      run.cleanup()
    }
    const report = await runAction(
      {
        'report-from': join(dir, 'artifacts'),
        'targets-from': snapshot,
        'record-key': recordKey,
        ...SCAN,
        'base-url': api.url
      },
      { env: env() }
    )
    try {
      expect(report.code).toBe(0)
      expect(readFileSync(report.outputs['report-file'], 'utf8')).toBe(throughDoors)
    } finally {
      report.cleanup()
    }
  })

  it('run plan, approve, apply: a dry run through the shard door, then the apply of exactly the plan', async () => {
    const list = await runAction(
      { ...CREDENTIALS, 'auth-url': idp.url, 'base-url': api.url, 'targets-where': 'status == "retired"' },
      { door: 'list', env: env() }
    )
    const snapshot = artifact(list.outputs['targets-file'], 'targets')
    const handoff = {
      'sealed-token': list.outputs['sealed-token'],
      'client-secret': CLIENT.secret,
      'targets-from': snapshot,
      'targets-digest': list.outputs['targets-digest']
    }
    list.cleanup()
    const DELETE = { call: 'DELETE /v1/targets/{id}' }
    const plan = await runAction({ ...handoff, ...DELETE, 'call-dry-run': 'true' }, { door: 'shard', env: env() })
    expect(plan.code).toBe(0)
    expect(JSON.parse(plan.outputs.counts)).toMatchObject({ planned: 10 })
    expect(plan.summary).toContain('| 1 | t-001 | host-1 | DELETE /v1/targets/t-001 |')
    const planFile = artifact(plan.outputs['results-file'], 'plan')
    const approved = plan.outputs['plan-digest']
    plan.cleanup()
    expect(calls()).toHaveLength(0)
    const apply = await runAction(
      { ...handoff, ...DELETE, 'plan-digest': approved, 'plan-from': planFile },
      { door: 'shard', env: env() }
    )
    try {
      expect(apply.stdout.split('\n').filter(l => /^::(error|warning)/.test(l))).toEqual([])
      expect(apply.code).toBe(0)
      expect(calls().map(idOf).sort()).toEqual(targets.filter(t => t.status === 'retired').map(t => t.id))
      expect(resultLines(apply.outputs['results-file'])).toHaveLength(10)
    } finally {
      apply.cleanup()
    }
  })
})

describe('no input silently ignored', () => {
  it.each([
    [
      'call-bodyy',
      'root',
      /^::error::Input call-bodyy is not an input of this action \(action\.yml\): did you mean call-body\? /
    ],
    [
      'client_id',
      'root',
      /^::error::Input client_id is not an input of this action \(action\.yml\): did you mean client-id\? /
    ],
    [
      'call-bodyy',
      'shard',
      /^::error::Input call-bodyy is not an input of this action \(shard\/action\.yml\): did you mean call-body\?/
    ],
    [
      'client-secret',
      'report',
      /^::error::Input client-secret is not an input of this action \(report\/action\.yml\)\. Correct its name/
    ],
    [
      'client-id',
      'report',
      /^::error::Input client-id is not an input of this action \(report\/action\.yml\)\. Correct its name/
    ]
  ])('fails on %s given to the %s door, before any request, naming the closest input', async (name, door, message) => {
    const given =
      door === 'report'
        ? { 'report-from': dir }
        : door === 'shard'
          ? {
              'sealed-token': 'm2m3.e30.',
              'targets-from': dir,
              'targets-digest': `sha256:${'a'.repeat(64)}`,
              call: 'POST /x'
            }
          : clientInputs(idp.url, api.url, { call: 'POST /v1/targets/{id}/scans' })
    const run = await runAction(given, {
      door: door as 'root' | 'shard' | 'report',
      env: { ...env(), [`INPUT_${name.toUpperCase()}`]: '{"profile":"nightly"}' }
    })
    try {
      expectFailure(run, message)
      expect(idp.requests).toHaveLength(0)
      expect(api.requests).toHaveLength(0)
    } finally {
      run.cleanup()
    }
  })

  it('warns of call-resume-from without call before the first request is answered', async () => {
    // The identity provider refuses the client: the step ends at its first request, so a warning
    // in the log was written before it.
    const refusing = await startServer((_req, res) => json(res, 401, { error: 'invalid_client' }))
    const run = await runAction(clientInputs(refusing.url, api.url, { 'call-resume-from': dir }), { env: env() })
    try {
      const lines = run.stdout.split('\n')
      const warning = lines.findIndex(l => l.startsWith('::warning::Input call-resume-from is for a routine'))
      expect(warning).toBeGreaterThanOrEqual(0)
      expect(warning).toBeLessThan(lines.findIndex(l => l.startsWith('::error::')))
      expect(refusing.requests).toHaveLength(1)
      expect(api.requests).toHaveLength(0)
    } finally {
      run.cleanup()
      await refusing.close()
    }
  })

  it('warns of a credential given to a report, and of routine inputs given without call', async () => {
    const report = await runAction({ 'report-from': dir, 'client-secret': CLIENT.secret }, { env: env() })
    expect(idp.requests).toHaveLength(0)
    const list = await runAction(clientInputs(idp.url, api.url, { 'call-resume-from': dir }), { env: env() })
    try {
      expect(report.stdout).toMatch(
        /^::warning::Input report-from makes a report and no request, so client-secret is not used/m
      )
      expect(list.code).toBe(0)
      expect(list.stdout).toMatch(
        /^::warning::Input call-resume-from is for a routine, and this step has no call input: it is not used\. Add call, or remove it\./m
      )
    } finally {
      report.cleanup()
      list.cleanup()
    }
  })
})

describe('handoffs across versions', () => {
  it('refuses a sealed token of a newer format, naming both versions, before any request', async () => {
    const run = await runAction(clientInputs(idp.url, api.url, { 'sealed-token': 'm2m4.abc.def' }), { env: env() })
    try {
      expectFailure(
        run,
        /^::error::Input sealed-token is format m2m4, made by a newer version of this action than this step runs \(it reads m2m3, and m2m2 before it\): upgrade/
      )
      expect(api.requests).toHaveLength(0)
    } finally {
      run.cleanup()
    }
  })

  it('applies a plan1 digest, the previous format, where it binds every call', async () => {
    // A plan1 digest does not bind targets-where: only a step over every listed target can apply it.
    const every = { call: 'DELETE /v1/targets/{id}' }
    const earlier = await runAction(clientInputs(idp.url, api.url, every), { env: env() })
    const digest = earlier.outputs['plan-digest']
    earlier.cleanup()
    expect(digest).toMatch(/^plan1\./)
    api.requests.length = 0
    const apply = await runAction(clientInputs(idp.url, api.url, { ...every, 'plan-digest': digest }), { env: env() })
    try {
      expect(apply.stdout.split('\n').filter(l => /^::(error|warning)/.test(l))).toEqual([])
      expect(apply.code).toBe(0)
      expect(calls().map(idOf).sort()).toEqual(targets.map(t => t.id))
    } finally {
      apply.cleanup()
    }
  })

  it('refuses a plan digest of a newer format, naming both versions, before any request', async () => {
    const run = await runAction(
      clientInputs(idp.url, api.url, { call: 'DELETE /v1/targets/{id}', 'plan-digest': `plan3.10.${'a'.repeat(64)}` }),
      { env: env() }
    )
    try {
      expectFailure(
        run,
        /^::error::Input plan-digest is a plan3 digest, made by a newer version of this action than this step runs \(it reads plan2, and plan1 before it\): upgrade/
      )
      expect(idp.requests).toHaveLength(0)
      expect(api.requests).toHaveLength(0)
    } finally {
      run.cleanup()
    }
  })

  it('counts no line of a results file of a newer format in a report, naming both versions, and fails', async () => {
    writeFileSync(join(dir, 'results-1-1.jsonl'), '{"m2m":"results","format":3,"anything":"new"}\n')
    const run = await runAction({ 'report-from': dir }, { door: 'report', env: env() })
    try {
      expect(run.code).toBe(1)
      expect(run.stdout).toMatch(
        /^::error::No result line was read from the 1 results file in .*\(the warnings say why\)/m
      )
      expect(run.stdout).toMatch(
        /^::warning::.*results file of format 3, which this version of the action does not read \(it reads formats 1 and 2\): upgrade/m
      )
      expect(api.requests).toHaveLength(0)
    } finally {
      run.cleanup()
    }
  })

  it('refuses a results file of a newer format given to call-resume-from, before any call', async () => {
    const list = await runAction(
      { ...CREDENTIALS, 'auth-url': idp.url, 'base-url': api.url },
      { door: 'list', env: env() }
    )
    const snapshot = artifact(list.outputs['targets-file'], 'targets')
    const earlier = join(dir, 'earlier')
    mkdirSync(earlier)
    writeFileSync(join(earlier, 'results-1.jsonl'), '{"m2m":"results","format":3,"anything":"new"}\n')
    const run = await runAction(
      {
        'sealed-token': list.outputs['sealed-token'],
        'client-secret': CLIENT.secret,
        'targets-from': snapshot,
        'targets-digest': list.outputs['targets-digest'],
        ...SCAN,
        'call-resume-from': earlier
      },
      { door: 'shard', env: env(2) }
    )
    list.cleanup()
    try {
      expect(run.code).toBe(1)
      expect(run.stdout).toMatch(
        /^::error::.*results file of format 3, which this version of the action does not read \(it reads formats 1 and 2\): upgrade/m
      )
      expect(calls()).toHaveLength(0)
    } finally {
      run.cleanup()
    }
  })

  it('tells a shard door given an m2m2 sealed token to upgrade the listing job', async () => {
    const run = await runAction(
      {
        'sealed-token': 'm2m2.AAAA',
        'client-secret': 'x',
        'targets-from': dir,
        'targets-digest': `sha256:${'a'.repeat(64)}`,
        call: 'POST /x'
      },
      { door: 'shard', env: env() }
    )
    try {
      expectFailure(run, /^::error::Input sealed-token is format m2m2, made by an earlier version of the listing job/)
    } finally {
      run.cleanup()
    }
  })
})
