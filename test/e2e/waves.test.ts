import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'
import {
  clientInputs,
  expectRoutineFailure,
  json,
  Received,
  resultLines,
  runAction,
  startServer,
  TestServer,
  TOKEN
} from './harness.js'

// Pacing: waves answered one at a time, a stop rule that scales, and a canary before a fan-out.
let idp: TestServer
let api: TestServer
let targets: { id: string }[]
/** Answers a call: the status, and how long to wait first. */
let answer: (id: string) => number
/** What the service saw, in order: each call's arrival and its answer. */
let events: string[]
let dir: string
const RUN = { env: { GITHUB_RUN_ID: '5150', GITHUB_RUN_ATTEMPT: '1' } }
const idOf = (r: Received) => decodeURIComponent(r.url.split('/')[3] ?? '')
const calls = () => api.requests.filter(r => r.url !== '/v1/targets')

beforeAll(async () => {
  idp = await startServer((_req, res) =>
    json(res, 200, { access_token: TOKEN, expires_in: 86400, token_type: 'Bearer' })
  )
  api = await startServer((req, res) => {
    if (req.url === '/v1/targets') return json(res, 200, targets)
    const id = idOf(req)
    events.push(`call ${id}`)
    // A little later, so that the calls of a wave overlap and one could slip ahead of another.
    setTimeout(() => {
      events.push(`answer ${id}`)
      const status = answer(id)
      json(res, status, status < 300 ? { ok: 1 } : { error: `scan of ${id} broke` })
    }, 3)
  })
  dir = mkdtempSync(join(tmpdir(), 'm2m-waves-'))
})
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true })
  await Promise.all([idp.close(), api.close()])
})
beforeEach(() => {
  targets = Array.from({ length: 100 }, (_, i) => ({ id: `t-${String(i + 1).padStart(3, '0')}` }))
  answer = () => 201
  events = []
  idp.requests.length = 0
  api.requests.length = 0
})

const inputs = (extra: Record<string, string>) =>
  clientInputs(idp.url, api.url, { call: 'POST /v1/targets/{id}/scans', 'call-concurrency': '8', ...extra })

describe('call-waves', () => {
  it('makes exactly one call against a service that fails every call, and names wave 1', async () => {
    answer = () => 500
    const run = await runAction(inputs({ 'call-waves': '1, 10%, 100%' }), RUN)
    try {
      expect(calls()).toHaveLength(1)
      expectRoutineFailure(run, /stopped after wave 1 of 3: every call of the wave failed \(1 of 1\)/)
      expect(run.outputs).toMatchObject({ 'calls-failed': '1', 'calls-not-made': '99' })
      const lines = resultLines(run.outputs['results-file'])
      expect(lines.filter(l => l.outcome === 'not-made').map(l => l.wave)).toEqual([
        ...Array(10).fill(2),
        ...Array(89).fill(3)
      ])
      expect(run.summary).toContain('In 3 waves of 1, 10 and 89 targets (call-waves); the calls stopped in wave 1.')
    } finally {
      run.cleanup()
    }
  })

  it('calls every target wave by wave: no call of a wave before every call of the one before is answered', async () => {
    const run = await runAction(inputs({ 'call-waves': '1, 10%, 100%' }), RUN)
    try {
      expect(run.code).toBe(0)
      expect(calls()).toHaveLength(100)
      const waveOf = new Map(resultLines(run.outputs['results-file']).map(l => [l.key as string, l.wave as number]))
      expect([1, 2, 3].map(w => [...waveOf.values()].filter(v => v === w).length)).toEqual([1, 10, 89])
      for (const wave of [1, 2]) {
        const lastAnswer = Math.max(
          ...[...waveOf].filter(([, w]) => w === wave).map(([id]) => events.indexOf(`answer ${id}`))
        )
        const firstCall = Math.min(
          ...[...waveOf].filter(([, w]) => w === wave + 1).map(([id]) => events.indexOf(`call ${id}`))
        )
        expect({ wave, lastAnswer, before: lastAnswer < firstCall }).toEqual({ wave, lastAnswer, before: true })
      }
      // The canary is not the list's first target, and the waves spread over the list.
      expect(waveOf.get('t-001')).not.toBe(1)
    } finally {
      run.cleanup()
    }
  })
})

describe('call-max-failures as a percentage', () => {
  it('stops a 1,000-target routine failing 20 % of calls within the first few dozen failures', async () => {
    targets = Array.from({ length: 1000 }, (_, i) => ({ id: `t-${String(i + 1).padStart(4, '0')}` }))
    answer = id => (Number(id.slice(2)) % 5 === 0 ? 503 : 201)
    const run = await runAction(
      inputs({ 'call-max-failures': '5%', 'call-concurrency': '4', 'max-attempts': '1' }),
      RUN
    )
    try {
      expectRoutineFailure(
        run,
        /calls failed \(\d+(\.\d)? %25\), more than call-max-failures \(5%25\): no new call was started/
      )
      const failed = Number(run.outputs['calls-failed'])
      expect(failed).toBeGreaterThan(0)
      expect(failed).toBeLessThan(36)
      expect(calls().length).toBeLessThan(100)
      expect(Number(run.outputs['calls-not-made'])).toBeGreaterThan(900)
    } finally {
      run.cleanup()
    }
  })
})

describe('call-canary', () => {
  it('calls a sample first, then shards resume from it, and the report counts every target once', async () => {
    const list = await runAction(clientInputs(idp.url, api.url, { 'targets-output': 'false', 'shard-size': '34' }), RUN)
    const snapshot = join(dir, 'targets.json')
    copyFileSync(list.outputs['targets-file'], snapshot)
    const digest = list.outputs['targets-digest']
    expect(list.outputs.shards).toBe('["1/3","2/3","3/3"]')
    list.cleanup()
    const results = join(dir, 'results')
    const keep = (file: string, name: string) => {
      mkdirSync(join(results, name), { recursive: true })
      copyFileSync(file, join(results, name, basename(file)))
    }
    const snapshotInputs = { 'targets-from': snapshot, 'targets-digest': digest }
    const canary = await runAction(inputs({ ...snapshotInputs, 'call-canary': '5' }), RUN)
    expect(canary.code).toBe(0)
    expect(canary.outputs).toMatchObject({ 'calls-succeeded': '5', 'calls-not-made': '0' })
    const sampled = resultLines(canary.outputs['results-file']).map(l => l.key)
    expect(sampled).toHaveLength(5)
    expect(canary.summary).toContain('A canary of 5 targets (call-canary).')
    keep(canary.outputs['results-file'], 'results-1-canary')
    canary.cleanup()
    for (const shard of ['1/3', '2/3', '3/3']) {
      const run = await runAction(
        inputs({ ...snapshotInputs, shard, 'call-resume-from': join(results, 'results-1-canary') }),
        RUN
      )
      expect(run.code).toBe(0)
      keep(run.outputs['results-file'], `results-1-${shard[0]}`)
      run.cleanup()
    }
    // Every target called exactly once: the canary's five by the canary, the rest by their shards.
    const called = calls().map(idOf)
    expect(called.sort()).toEqual(targets.map(t => t.id).sort())
    const report = await runAction({ 'report-from': results, ...snapshotInputs }, RUN)
    try {
      expect(report.code).toBe(0)
      expect(report.outputs).toMatchObject({
        'report-targets': '100',
        'report-succeeded': '100',
        'report-missing': '0'
      })
    } finally {
      report.cleanup()
    }
  })
})
