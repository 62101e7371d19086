import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'
import { callFingerprint } from '../../src/routine/fingerprint.js'
import { clientInputs, json, Received, resultLines, runAction, startServer, TestServer, TOKEN } from './harness.js'

// Issue 31's repros: results files as evidence. Forged lines are built from the workflow file
// alone (the call's fingerprint is a hash of public inputs), as a job without the secret can.
let idp: TestServer
let api: TestServer
let dir: string
let status: (id: string) => number
const targets = Array.from({ length: 8 }, (_, i) => ({ id: `t-${i + 1}` }))
const idOf = (r: Received) => decodeURIComponent(r.url.split('/')[3] ?? '')
const calls = () => api.requests.filter(r => r.url !== '/v1/targets')
const RUN_ID = '4711'
const env = (attempt: number, run = RUN_ID) => ({ env: { GITHUB_RUN_ID: run, GITHUB_RUN_ATTEMPT: String(attempt) } })
const CALL = { call: 'POST /v1/t/{id}/scan' }

beforeAll(async () => {
  idp = await startServer((_req, res) =>
    json(res, 200, { access_token: TOKEN, expires_in: 86400, token_type: 'Bearer' })
  )
  api = await startServer((req, res) => {
    if (req.url === '/v1/targets') return json(res, 200, targets)
    const code = status(idOf(req))
    json(res, code, code < 300 ? { ok: 1 } : { error: 'no' })
  })
})
afterAll(async () => {
  await Promise.all([idp.close(), api.close()])
})
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'm2m-forgery-'))
  status = () => 201
  api.requests.length = 0
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

/** The list job of the README's fan-out: the snapshot, its digest, the sealed token, the record key. */
async function listJob(run = RUN_ID) {
  const list = await runAction(
    clientInputs(idp.url, api.url, { 'targets-output': 'false', 'shard-size': '4' }),
    env(1, run)
  )
  expect(list.code).toBe(0)
  const snapshot = join(dir, `targets-${run}.json`)
  copyFileSync(list.outputs['targets-file'], snapshot)
  const out = {
    snapshot: { 'targets-from': snapshot, 'targets-digest': list.outputs['targets-digest'] },
    sealed: list.outputs['sealed-token'],
    recordKey: list.outputs['record-key']
  }
  list.cleanup()
  expect(out.recordKey).toMatch(/^m2mrk1\./)
  return out
}

type Listed = Awaited<ReturnType<typeof listJob>>

/** A shard job: its results file kept as download-artifact lays it out, results-<attempt>-<K>. */
async function shardJob(
  listed: Listed,
  shard: string,
  attempt: number,
  extra: Record<string, string> = {},
  run = RUN_ID
) {
  const result = await runAction(
    clientInputs(idp.url, api.url, { ...CALL, ...listed.snapshot, 'sealed-token': listed.sealed, shard, ...extra }),
    env(attempt, run)
  )
  const folder = join(dir, 'results', `results-${attempt}-${shard[0]}${run === RUN_ID ? '' : `-run${run}`}`)
  mkdirSync(folder, { recursive: true })
  copyFileSync(result.outputs['results-file'], join(folder, basename(result.outputs['results-file'])))
  result.cleanup()
  return { code: result.code, file: join(folder, basename(result.outputs['results-file'])) }
}

/** Lines "built from the workflow file alone": every target succeeded, in the action's own shape. */
function forged(name: string, { header = true, attempt = 1 } = {}): string {
  const fingerprint = callFingerprint({ method: 'POST', path: '/v1/t/{id}/scan', body: '', baseUrl: new URL(api.url) })
  const lines = targets.map(
    (t, i) =>
      `{"key":"${t.id}","call":"${fingerprint}","outcome":"succeeded","status":201,"runAttempt":${attempt},"shard":null,"index":${i}}`
  )
  const head = `{"m2m":"results","format":2,"run":"${RUN_ID}","attempt":${attempt},"call":"${fingerprint}","shard":null,"snapshot":null,"listing":null,"where":null,"plan":null,"canary":false,"key":null}`
  const seal = `{"m2m":"seal","lines":8,"sha256":"${'0'.repeat(64)}","sig":null}`
  const folder = join(dir, 'results', name)
  mkdirSync(folder, { recursive: true })
  const file = join(folder, 'r.jsonl')
  writeFileSync(file, `${[...(header ? [head] : []), ...lines, ...(header ? [seal] : [])].join('\n')}\n`)
  return file
}

const report = (listed: Listed, attempt: number, extra: Record<string, string> = {}) =>
  runAction(
    { 'report-from': join(dir, 'results'), ...listed.snapshot, 'record-key': listed.recordKey, ...extra },
    env(attempt)
  )
const errorsOf = (run: { stdout: string }) => run.stdout.split('\n').filter(l => l.startsWith('::error::'))

describe('a report that can be neither fooled', () => {
  it('refuses forged lines: a run where 7 targets were never called and 1 failed is not green', async () => {
    const listed = await listJob()
    status = id => (id === 't-1' ? 500 : 201)
    // Only shard 1 of 2 runs, and only after the forgery is in place do we know which targets it held.
    await shardJob(listed, '1/2', 1)
    forged('results-1-forged')
    forged('results-1-forged-v1', { header: false })
    const run = await report(listed, 1)
    try {
      expect(run.code).toBe(1)
      const [error] = errorsOf(run)
      expect(error).toMatch(/2 results files were not counted \(report-from\), being unsigned by the run’s record key/)
      expect(error).toMatch(/results-1-forged\/r\.jsonl/)
      expect(run.outputs['report-succeeded']).not.toBe('8')
      expect(Number(run.outputs['report-missing']) + Number(run.outputs['report-failed'])).toBeGreaterThan(0)
      expect(run.outputs['shards-to-rerun']).not.toBe('[]')
    } finally {
      run.cleanup()
    }
  })

  it('lets the honest fan-out through with record-key, and warns without it', async () => {
    const listed = await listJob()
    await shardJob(listed, '1/2', 1)
    await shardJob(listed, '2/2', 1)
    const checked = await report(listed, 1)
    const unchecked = await report(listed, 1, { 'record-key': '' })
    try {
      expect(checked.code).toBe(0)
      expect(checked.outputs).toMatchObject({ 'report-targets': '8', 'report-succeeded': '8' })
      expect(checked.stdout).not.toMatch(/^::warning::/m)
      expect(unchecked.code).toBe(0)
      expect(unchecked.stdout).toMatch(
        /^::warning::The results files are signed with a record key, but record-key is not given/m
      )
    } finally {
      checked.cleanup()
      unchecked.cleanup()
    }
  })

  it('refuses a file altered after it was written, from the line that was changed', async () => {
    const listed = await listJob()
    status = () => 500
    const one = await shardJob(listed, '1/2', 1)
    await shardJob(listed, '2/2', 1)
    writeFileSync(
      one.file,
      readFileSync(one.file, 'utf8').replace(/"outcome":"failed","status":500/g, '"outcome":"succeeded","status":201')
    )
    const run = await report(listed, 1)
    try {
      expect(run.code).toBe(1)
      expect(errorsOf(run)[0]).toMatch(
        /being altered after they were written: ".*" \(from line \d+: altered after it was written/
      )
      expect(run.outputs['report-succeeded']).toBe('0')
    } finally {
      run.cleanup()
    }
  })

  it("refuses another run's file, and one claiming a later attempt", async () => {
    const listed = await listJob()
    await shardJob(listed, '1/2', 1)
    await shardJob(listed, '2/2', 3) // a file of attempt 3, read by a report of attempt 2
    const other = await listJob('999')
    await shardJob(other, '2/2', 1, {}, '999')
    const run = await report(listed, 2)
    try {
      expect(run.code).toBe(1)
      const [error] = errorsOf(run)
      expect(error).toMatch(/results files were not counted \(report-from\)/)
      expect(error).toMatch(/of run attempt 3, not before this one \(2\)|signed with another key/)
      expect(run.outputs).toMatchObject({ 'report-targets': '8' })
      expect(Number(run.outputs['report-missing'])).toBeGreaterThan(0)
    } finally {
      run.cleanup()
    }
  })
})

describe('a resume that cannot be fooled', () => {
  it('calls the targets forged lines claim are done, and says why', async () => {
    const listed = await listJob()
    forged('results-1-forged')
    api.requests.length = 0
    const rerun = await shardJob(listed, '1/2', 2, { 'call-resume-from': join(dir, 'results') })
    expect(rerun.code).toBe(0)
    const shardTargets = resultLines(rerun.file).map(l => l.key)
    expect(calls().map(idOf).sort()).toEqual([...shardTargets].sort())
    expect(resultLines(rerun.file).every(l => l.outcome === 'succeeded')).toBe(true)
  })

  it('does not take a target accepted as 404 in attempt 1 as done by an attempt without call-accept', async () => {
    const listed = await listJob()
    status = id => (id === 't-2' || id === 't-6' ? 404 : 201)
    await shardJob(listed, '1/2', 1, { 'call-accept': '404' })
    await shardJob(listed, '2/2', 1, { 'call-accept': '404' })
    status = () => 201
    api.requests.length = 0
    const again = await shardJob(listed, '1/2', 2, { 'call-resume-from': join(dir, 'results') })
    const mine = resultLines(again.file)
    const recalled = calls().map(idOf)
    // Every target of the shard is called again: the earlier lines are of another call.
    expect(recalled.sort()).toEqual(mine.map(l => l.key as string).sort())
    expect(again.code).toBe(0)
  })
})
