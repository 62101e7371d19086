import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'
import { clientInputs, json, Received, resultLines, runAction, startServer, TestServer, TOKEN } from './harness.js'

// One answer for the whole run: shards' results files merged by a step that makes no request.
let idp: TestServer
let api: TestServer
let failing: Set<string>
let dir: string
const targets = Array.from({ length: 600 }, (_, i) => ({ id: `t-${String(i).padStart(3, '0')}` }))
const idOf = (r: Received) => decodeURIComponent(r.url.split('/')[3] ?? '')

beforeAll(async () => {
  idp = await startServer((_req, res) =>
    json(res, 200, { access_token: TOKEN, expires_in: 86400, token_type: 'Bearer' })
  )
  api = await startServer((req, res) => {
    if (req.url === '/v1/targets') return json(res, 200, targets)
    return failing.has(idOf(req)) ? json(res, 500, { error: `scan of ${idOf(req)} broke` }) : json(res, 201, { ok: 1 })
  })
  dir = mkdtempSync(join(tmpdir(), 'm2m-report-'))
})
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true })
  await Promise.all([idp.close(), api.close()])
})

const CALL = { call: 'POST /v1/t/{id}/scan', 'call-concurrency': '8' }
const run = (attempt: number, extra: Record<string, string>) =>
  runAction(clientInputs(idp.url, api.url, { ...CALL, ...extra }), {
    env: { GITHUB_RUN_ID: '31337', GITHUB_RUN_ATTEMPT: String(attempt) }
  })

/** Keeps a shard's results file as download-artifact lays out several artifacts: a folder each. */
function keep(results: string, attempt: number, shard: number): string {
  const folder = join(dir, 'all', `results-${attempt}-${shard}`)
  mkdirSync(folder, { recursive: true })
  copyFileSync(results, join(folder, basename(results)))
  return folder
}

describe('report-from', () => {
  it('accounts for every target of the snapshot once, from the shards that ran, with no request', async () => {
    // The list job: the snapshot and its digest.
    failing = new Set()
    const list = await runAction(clientInputs(idp.url, api.url, { 'targets-output': 'false' }))
    const snapshot = join(dir, 'targets.json')
    copyFileSync(list.outputs['targets-file'], snapshot)
    const digest = list.outputs['targets-digest']
    list.cleanup()
    const shardOf = new Map<string, number>()
    // Six shards: 5 never runs; 2 has failures; 3 fails in attempt 1 and is re-run with a resume.
    const broken = new Set<string>()
    for (const shard of [1, 2, 3, 4, 6]) {
      failing = new Set()
      api.requests.length = 0
      const first = shard === 2 || shard === 3
      const shardRun = async (attempt: number, extra: Record<string, string> = {}) => {
        const result = await run(attempt, {
          'targets-from': snapshot,
          'targets-digest': digest,
          shard: `${shard}/6`,
          ...extra
        })
        for (const line of resultLines(result.outputs['results-file'])) shardOf.set(line.key as string, shard)
        keep(result.outputs['results-file'], attempt, shard)
        result.cleanup()
        return result
      }
      if (first) {
        // The first listed targets of this shard fail: learn them from a dry run of the shard.
        const plan = await run(1, { 'targets-from': snapshot, shard: `${shard}/6`, 'call-dry-run': 'true' })
        const keys = resultLines(plan.outputs['results-file']).map(l => l.key as string)
        plan.cleanup()
        for (const key of keys.slice(0, 5)) failing.add(key)
        if (shard === 2) for (const key of keys.slice(0, 5)) broken.add(key)
      }
      const attempt1 = await shardRun(1)
      expect(attempt1.code).toBe(first ? 1 : 0)
      if (shard === 3) {
        failing = new Set()
        const attempt2 = await shardRun(2, { 'call-resume-from': join(dir, 'all', 'results-1-3') })
        expect(attempt2.code).toBe(0)
      }
    }
    idp.requests.length = 0
    api.requests.length = 0
    // The report job: no credentials, no base-url, no request.
    // The report runs in the attempt that re-ran shard 3: it counts attempts up to its own.
    const report = await runAction(
      { 'report-from': join(dir, 'all'), 'targets-from': snapshot, 'targets-digest': digest },
      { env: { GITHUB_RUN_ID: '31337', GITHUB_RUN_ATTEMPT: '2' } }
    )
    try {
      expect(idp.requests).toHaveLength(0)
      expect(api.requests).toHaveLength(0)
      expect(report.code).toBe(1)
      const missing = targets.length - shardOf.size
      expect(missing).toBeGreaterThan(0)
      expect(report.outputs).toMatchObject({
        'report-targets': '600',
        'report-failed': '5',
        'report-unknown': '0',
        'report-not-made': '0',
        'report-missing': String(missing),
        'shards-to-rerun': JSON.stringify(['2/6', '5/6'])
      })
      // Shard 3's second attempt skipped what its first did: those targets count as skipped.
      const skipped = Number(report.outputs['report-skipped'])
      expect(skipped).toBeGreaterThan(90)
      expect(Number(report.outputs['report-succeeded']) + skipped).toBe(600 - missing - 5)
      const errors = report.stdout.split('\n').filter(l => l.startsWith('::error::'))
      expect(errors).toHaveLength(1)
      expect(errors[0]).toMatch(
        new RegExp(
          `^::error::The run did not reach every target: 5 failed, 0 unknown, 0 not made, ${missing} missing of 600 targets; shards to re-run: 2/6, 5/6\\.`
        )
      )
      const lines = resultLines(report.outputs['report-file'])
      expect(lines).toHaveLength(600)
      expect(new Set(lines.map(l => l.key)).size).toBe(600)
      for (const line of lines) {
        const key = line.key as string
        if (!shardOf.has(key)) expect(line).toMatchObject({ outcome: 'missing', shard: '5/6' })
        else if (broken.has(key)) expect(line).toMatchObject({ outcome: 'failed', status: 500, shard: '2/6' })
        else expect(['succeeded', 'skipped']).toContain(line.outcome)
      }
      // Shard 3's first attempt failed five targets; the newer attempt's success wins.
      expect(lines.filter(l => l.shard === '3/6' && l.runAttempt === 2).length).toBeGreaterThanOrEqual(5)
      expect(report.summary).toContain('5/6')
      expect(report.summary).toMatch(/\| shard \|/)
      expect(report.summary).toContain('scan of')
      expect(readFileSync(report.outputs['report-file'], 'utf8').endsWith('\n')).toBe(true)
    } finally {
      report.cleanup()
    }
  }, 120_000)

  it('fails on the outcomes report-fail-on names; without a snapshot, says it cannot see missing targets', async () => {
    const relaxed = await runAction({ 'report-from': join(dir, 'all'), 'report-fail-on': 'failed' })
    try {
      expect(relaxed.code).toBe(1)
      expect(relaxed.outputs['report-missing']).toBe('0')
      expect(relaxed.stdout).toMatch(/missing targets cannot be seen/)
    } finally {
      relaxed.cleanup()
    }
    const none = await runAction({ 'report-from': join(dir, 'all'), 'report-fail-on': 'unknown' })
    try {
      expect(none.code).toBe(0)
      expect(none.outputs['shards-to-rerun']).toBe('[]')
    } finally {
      none.cleanup()
    }
  })
})
