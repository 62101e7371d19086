import { Socket } from 'node:net'
import { json, makeJwt, Received, resultLines, startServer, TestServer } from './harness.js'
import { ActionStep, Door, readmeWorkflow, Swapped, WorkflowRun } from './workflow.js'

// The README's workflows as written — each step's `uses:` and `with:` read from README.md — run
// job by job against loopback servers: the fan-out (list, 3 shards, report, then "Re-run failed
// jobs"), plan/apply, and the Quick start's re-run recipe with its jq line. The fan-out and
// plan/apply run once through the sub-actions' own action.yml files and once with every step
// swapped for the root action, and must leave the same record.
let idp: TestServer
let api: TestServer
let failing: Set<string>
let dropped: Set<string>
const targets = Array.from({ length: 450 }, (_, i) => ({
  id: `t-${String(i + 1).padStart(3, '0')}`,
  name: `host-${i + 1}`,
  status: i % 45 === 0 ? 'retired' : 'active'
}))
const RETIRED = targets.filter(t => t.status === 'retired').map(t => t.id)
const idOf = (r: Received) => decodeURIComponent(r.url.split('/')[3] ?? '')
const calls = () => api.requests.filter(r => !r.url.startsWith('/v1/targets?') && r.url !== '/v1/targets')
const reasonOf = (id: string) => `target ${id} is locked by another scan`
const SECRETS = {
  M2M_CLIENT_ID: 'client-nightly',
  M2M_CLIENT_SECRET: 'nightly-S3cret "q" ü',
  M2M_LIST_CLIENT_ID: 'client-list',
  M2M_LIST_CLIENT_SECRET: 'list-S3cret-0123',
  M2M_CALL_CLIENT_ID: 'client-call',
  M2M_CALL_CLIENT_SECRET: 'call-S3cret-4567'
}
/** The bearer token the identity provider issues to a client: its id is the subject. */
const tokenOf = (clientId: string) => makeJwt({ sub: clientId, exp: Math.floor(Date.now() / 1000) + 86400 })
const tokens = new Map<string, string>()

beforeAll(async () => {
  idp = await startServer((req, res) => {
    const clientId = (JSON.parse(req.body) as { client_id: string }).client_id
    if (!tokens.has(clientId)) tokens.set(clientId, tokenOf(clientId))
    json(res, 200, { access_token: tokens.get(clientId), expires_in: 86400, token_type: 'Bearer' })
  })
  api = await startServer((req, res) => {
    if (req.url === '/v1/targets') return json(res, 200, { targets })
    const id = idOf(req)
    if (dropped.has(id)) return (res.socket as Socket).destroy()
    if (req.method === 'DELETE') return json(res, 204, '')
    return failing.has(id) ? json(res, 409, { message: reasonOf(id) }) : json(res, 201, { scan: `s-${id}` })
  })
})
afterAll(async () => Promise.all([idp.close(), api.close()]))
beforeEach(() => {
  failing = new Set()
  dropped = new Set()
  api.requests.length = 0
  idp.requests.length = 0
})

// A whole workflow is some twenty action processes: more than jest's default on a busy machine.
const WORKFLOW_MS = 180_000

const hosts = () => ({ 'https://tenant.idp.example': idp.url, 'https://api.service.example': api.url })

/** The client settings a sealed token carries in the clear (m2m3.<settings>.<sealed>). */
function sealedSettings(sealed: string): Record<string, string> {
  const settings = JSON.parse(Buffer.from(sealed.split('.')[1], 'base64url').toString('utf8')) as Record<string, string>
  return {
    'client-id': settings.clientId,
    'token-url': settings.tokenUrl,
    ...(settings.audience ? { audience: settings.audience } : {}),
    'base-url': settings.baseUrl
  }
}

/** The same step through the root action.yml: what the sub-action knew from its handoff, given. */
function throughRoot(door: Door, inputs: Record<string, string>): Swapped {
  if (door === 'list') return { door: 'root', inputs: { ...inputs, 'targets-output': 'false', 'seal-token': 'true' } }
  if (door === 'report') return { door: 'root', inputs }
  // The shard's counts output, from the root's calls-* outputs, for the plan job's expression.
  const outputs = (root: Record<string, string>) => ({
    ...root,
    counts: JSON.stringify({ planned: Number(root['calls-planned']) })
  })
  return { door: 'root', inputs: { ...sealedSettings(inputs['sealed-token']), ...inputs }, outputs }
}

/** What a run leaves: each shard step's result lines, and each report's answer. */
function recordOf(run: WorkflowRun) {
  const routines = run.steps
    .filter((s: ActionStep) => s.run.outputs['results-file'])
    .map(s => ({
      job: s.job,
      leg: s.leg,
      attempt: s.attempt,
      code: s.run.code,
      lines: resultLines(s.run.outputs['results-file'])
        .map(l => `${String(l.key)} ${String(l.outcome)} ${String(l.status)}`)
        .sort()
    }))
  const reports = run.steps
    .filter(s => s.job === 'report')
    .map(s => ({
      attempt: s.attempt,
      code: s.run.code,
      counts: s.run.outputs.counts
        ? (JSON.parse(s.run.outputs.counts) as Record<string, number>)
        : Object.fromEntries(
            Object.entries(s.run.outputs)
              .filter(([k]) => k.startsWith('report-') && k !== 'report-file')
              .map(([k, v]) => [k.slice('report-'.length), Number(v)])
          ),
      shardsToRerun: s.run.outputs['shards-to-rerun'],
      file: s.run.outputs['report-file'] ? resultLines(s.run.outputs['report-file']) : []
    }))
  return { routines, reports }
}

/** The README's fan-out, attempt 1 with three failing targets, then "Re-run failed jobs". */
async function fanOut(swap?: typeof throughRoot) {
  const run = new WorkflowRun(readmeWorkflow('Fan-out'))
  failing = new Set(['t-005', 't-200', 't-333'])
  await run.attempt({ attempt: 1, secrets: SECRETS, hosts: hosts(), swap })
  const firstCalls = calls().map(idOf)
  api.requests.length = 0
  failing = new Set()
  await run.attempt({
    attempt: 2,
    secrets: SECRETS,
    hosts: hosts(),
    swap,
    only: (job, leg) => job === 'report' || (job === 'scan' && run.failed(job, leg))
  })
  return { run, firstCalls, rerunCalls: calls().map(idOf) }
}

describe("the README's fan-out", () => {
  it(
    'runs through list/, shard/ and report/ with the inputs the README gives them, and re-runs only what failed',
    async () => {
      const { run, firstCalls, rerunCalls } = await fanOut()
      try {
        expect(run.steps.filter(s => s.attempt === 1).map(s => `${s.job} ${s.door}`)).toEqual([
          'list list',
          'canary shard',
          'scan shard',
          'scan shard',
          'scan shard',
          'report report'
        ])
        // The canary called its 10 first; no shard called them again.
        const canary = run.steps.find(s => s.job === 'canary')!
        expect(JSON.parse(canary.run.outputs.counts)).toMatchObject({ succeeded: 10 })
        expect(run.steps.filter(s => s.job === 'scan' && s.attempt === 1).map(s => s.leg)).toEqual([
          '1/3',
          '2/3',
          '3/3'
        ])
        // One token for the whole run: the shards opened the sealed token.
        expect(idp.requests).toHaveLength(1)
        expect(firstCalls.sort()).toEqual(targets.map(t => t.id))
        const [first, second] = recordOf(run).reports
        expect(first.code).toBe(1)
        expect(first.counts).toMatchObject({ targets: 450, succeeded: 447, failed: 3, missing: 0 })
        expect((JSON.parse(first.shardsToRerun) as string[]).length).toBeGreaterThan(0)
        // The re-run: the failed shards download their earlier results and call only what is left.
        expect(rerunCalls.sort()).toEqual(['t-005', 't-200', 't-333'])
        expect(run.steps.filter(s => s.job === 'scan' && s.attempt === 2).map(s => s.leg)).toEqual(
          JSON.parse(first.shardsToRerun)
        )
        expect(second.code).toBe(0)
        // Each target succeeded in one attempt or the other: the newer line of an earlier success is "skipped".
        expect(second.counts).toMatchObject({ targets: 450, failed: 0, unknown: 0, missing: 0 })
        expect(second.counts.succeeded + second.counts.skipped).toBe(450)
        expect(second.counts.succeeded).toBeGreaterThanOrEqual(3)
        expect(second.shardsToRerun).toBe('[]')
      } finally {
        run.cleanup()
      }
    },
    WORKFLOW_MS
  )

  it(
    'leaves the same record through the root action',
    async () => {
      const doors = await fanOut()
      const throughDoors = recordOf(doors.run)
      doors.run.cleanup()
      const root = await fanOut(throughRoot)
      try {
        expect(root.run.steps.every(s => s.door === 'root')).toBe(true)
        expect(root.rerunCalls.sort()).toEqual(doors.rerunCalls.sort())
        const throughRootRecord = recordOf(root.run)
        expect(throughRootRecord.routines).toEqual(throughDoors.routines)
        expect(throughRootRecord.reports).toEqual(throughDoors.reports)
        expect(throughDoors.reports).toHaveLength(2)
      } finally {
        root.run.cleanup()
      }
    },
    WORKFLOW_MS
  )
})

/** The README's plan/apply: the plan job, an approval (the environment's wait), the apply job. */
async function planApply(swap?: typeof throughRoot) {
  const run = new WorkflowRun(readmeWorkflow('Plan, approve, apply'))
  await run.attempt({ attempt: 1, secrets: SECRETS, hosts: hosts(), swap })
  return run
}

describe("the README's plan, approve, apply", () => {
  it(
    'plans with the listing client, then deletes exactly the planned targets with the calling client',
    async () => {
      const run = await planApply()
      try {
        expect(run.steps.map(s => `${s.job}:${s.door}`)).toEqual([
          'plan:list',
          'plan:shard',
          'apply:list',
          'apply:shard'
        ])
        const [, plan, , apply] = run.steps
        expect(plan.run.code).toBe(0)
        expect(JSON.parse(plan.run.outputs.counts)).toMatchObject({ planned: RETIRED.length })
        expect(apply.run.code).toBe(0)
        const deletes = calls().filter(r => r.method === 'DELETE')
        expect(deletes.map(idOf).sort()).toEqual(RETIRED)
        expect(calls().filter(r => r.method !== 'DELETE')).toEqual([])
        // The deletes carry the calling client's token, which the plan job never had.
        expect(new Set(deletes.map(r => r.headers.authorization))).toEqual(
          new Set([`Bearer ${tokens.get('client-call')}`])
        )
        expect(resultLines(apply.run.outputs['results-file']).map(l => l.outcome)).toEqual(
          RETIRED.map(() => 'succeeded')
        )
      } finally {
        run.cleanup()
      }
    },
    WORKFLOW_MS
  )

  it(
    'leaves the same plan and the same record through the root action',
    async () => {
      const doors = await planApply()
      const throughDoors = recordOf(doors)
      const planDigest = doors.steps[1].run.outputs['plan-digest']
      doors.cleanup()
      api.requests.length = 0
      const root = await planApply(throughRoot)
      try {
        expect(root.steps.map(s => s.door)).toEqual(['root', 'root', 'root', 'root'])
        expect(root.steps[1].run.outputs['plan-digest']).toBe(planDigest)
        expect(calls().map(idOf).sort()).toEqual(RETIRED)
        expect(recordOf(root).routines).toEqual(throughDoors.routines)
      } finally {
        root.cleanup()
      }
    },
    WORKFLOW_MS
  )
})

describe("the Quick start's re-run recipe", () => {
  it(
    'keeps each attempt, prints the service’s reason for each failure with the jq line, and re-runs only those',
    async () => {
      const run = new WorkflowRun(readmeWorkflow('Keep the record'))
      failing = new Set(['t-010', 't-020'])
      dropped = new Set(['t-030'])
      try {
        await run.attempt({ attempt: 1, secrets: SECRETS, hosts: hosts() })
        expect(run.steps[0].run.code).toBe(1)
        // The README's jq step, run as written on the results file the action wrote.
        const printed = run.scripts[0].stdout
          .trim()
          .split('\n')
          .map(l => JSON.parse(l) as { key: string; outcome: string; status: number | null; reason: unknown })
        expect(printed.map(p => p.key)).toEqual(['t-010', 't-020', 't-030'])
        for (const id of ['t-010', 't-020']) {
          expect(printed.find(p => p.key === id)).toEqual({
            key: id,
            outcome: 'failed',
            status: 409,
            reason: { message: reasonOf(id) }
          })
        }
        // No answer at all: the reason is the action's own.
        expect(printed.find(p => p.key === 't-030')).toEqual({
          key: 't-030',
          outcome: 'unknown',
          status: null,
          reason: expect.stringMatching(/\w/)
        })
        api.requests.length = 0
        failing = new Set()
        dropped = new Set()
        await run.attempt({ attempt: 2, secrets: SECRETS, hosts: hosts() })
        expect(calls().map(idOf).sort()).toEqual(['t-010', 't-020', 't-030'])
        expect(run.steps[1].run.code).toBe(0)
        expect(JSON.parse(run.steps[1].run.outputs['calls-skipped'])).toBe(447)
        // Nothing left undone: the jq line prints nothing.
        expect(run.scripts[1].stdout).toBe('')
      } finally {
        run.cleanup()
      }
    },
    WORKFLOW_MS
  )
})
