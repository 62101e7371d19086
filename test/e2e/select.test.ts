import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'
import { clientInputs, expectFailure, json, Received, runAction, startServer, TestServer, TOKEN } from './harness.js'

// targets-where: a routine aimed at the targets a change is for, in one step and in a fan-out.
let idp: TestServer
let api: TestServer
let targets: Record<string, unknown>[]
let dir: string
const RUN = { env: { GITHUB_RUN_ID: '4242', GITHUB_RUN_ATTEMPT: '1' } }
const RETIRED = 'status == "retired"'

/** 500 targets, 40 of them retired, spread over the list rather than in its first page. */
function fleet(): Record<string, unknown>[] {
  return Array.from({ length: 500 }, (_, i) => ({
    id: `t-${String(i + 1).padStart(3, '0')}`,
    name: `host ${i + 1}`,
    status: i % 25 === 3 || i % 25 === 17 ? 'retired' : 'active',
    region: i % 2 ? 'eu-west-1' : 'us-east-1'
  }))
}
const retiredIds = () => targets.filter(t => t.status === 'retired').map(t => t.id as string)
const calls = () => api.requests.filter(r => r.url !== '/v1/targets')
const idOf = (r: Received) => decodeURIComponent(r.url.split('/')[3] ?? '')

beforeAll(async () => {
  idp = await startServer((_req, res) =>
    json(res, 200, { access_token: TOKEN, expires_in: 86400, token_type: 'Bearer' })
  )
  api = await startServer((req, res) => (req.url === '/v1/targets' ? json(res, 200, targets) : json(res, 204, '')))
  dir = mkdtempSync(join(tmpdir(), 'm2m-select-'))
})
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true })
  await Promise.all([idp.close(), api.close()])
})
beforeEach(() => {
  targets = fleet()
  idp.requests.length = 0
  api.requests.length = 0
})

const inputs = (extra: Record<string, string>) => clientInputs(idp.url, api.url, extra)

describe('targets-where', () => {
  it('makes exactly the calls of the selected targets in one step', async () => {
    expect(retiredIds()).toHaveLength(40)
    const run = await runAction(
      inputs({ 'targets-where': RETIRED, call: 'DELETE /v1/targets/{id}', 'call-concurrency': '8' }),
      RUN
    )
    try {
      expect(run.code).toBe(0)
      expect(calls().map(r => r.method)).toEqual(Array(40).fill('DELETE'))
      expect(calls().map(idOf).sort()).toEqual(retiredIds().sort())
      expect(run.outputs).toMatchObject({
        'targets-listed': '500',
        'targets-selected': '40',
        'target-count': '40',
        'calls-succeeded': '40'
      })
      expect(run.stdout).toContain('Listed 500 targets; 40 of 500 targets selected by `status == "retired"`')
      expect(run.summary).toContain('40 of 500 selected by status == "retired", from')
      expect(JSON.parse(readFileSync(run.outputs['targets-file'], 'utf8'))).toHaveLength(40)
    } finally {
      run.cleanup()
    }
  })

  it('fails a malformed condition before any request, naming the input and the place', async () => {
    const run = await runAction(inputs({ 'targets-where': 'status == "retired" &&', call: 'DELETE /v1/targets/{id}' }))
    try {
      expectFailure(
        run,
        /^::error::Input targets-where does not parse at character 23 \("status == \\"retired\\" &&‸"\): Unexpected token: EOF: write a CEL condition/
      )
      expect(idp.requests).toHaveLength(0)
      expect(api.requests).toHaveLength(0)
    } finally {
      run.cleanup()
    }
  })

  it('fails before any call when a target lacks a field, naming both and the guard', async () => {
    delete targets[211].region
    const run = await runAction(
      inputs({ 'targets-where': 'region.startsWith("eu-")', call: 'DELETE /v1/targets/{id}' }),
      RUN
    )
    try {
      expectFailure(
        run,
        '::error::Input targets-where cannot be evaluated on target "t-212" (Unknown variable: region at "region"), ' +
          'so no call was made: guard a field some targets lack with has(target.region) && …'
      )
      expect(calls()).toHaveLength(0)
    } finally {
      run.cleanup()
    }
  })

  it('names a field CEL reads as a type, before any call, and selects by target.type', async () => {
    targets = targets.map((t, i) => ({ ...t, type: i % 5 === 0 ? 'host' : 'vm' }))
    const bare = await runAction(inputs({ 'targets-where': 'type == "host"', call: 'DELETE /v1/targets/{id}' }), RUN)
    try {
      expectFailure(
        bare,
        /^::error::Input targets-where reads type, which CEL takes for its type type, not the field type of target "t-001", so no call was made: write target\.type for the field/
      )
      expect(calls()).toHaveLength(0)
    } finally {
      bare.cleanup()
    }
    const run = await runAction(
      inputs({ 'targets-where': 'target.type == "host"', call: 'DELETE /v1/targets/{id}' }),
      RUN
    )
    try {
      expect(run.code).toBe(0)
      expect(calls()).toHaveLength(targets.length / 5)
    } finally {
      run.cleanup()
    }
  })

  it('selects in the list job of a fan-out: the shards call the 40 and the report counts 40 of 40', async () => {
    const list = await runAction(
      inputs({ 'targets-where': RETIRED, 'targets-output': 'false', 'shard-size': '14' }),
      RUN
    )
    const snapshot = join(dir, 'targets.json')
    expect(list.code).toBe(0)
    expect(list.outputs).toMatchObject({ shards: '["1/3","2/3","3/3"]', 'targets-selected': '40' })
    copyFileSync(list.outputs['targets-file'], snapshot)
    const digest = list.outputs['targets-digest']
    list.cleanup()
    api.requests.length = 0
    const results = join(dir, 'results')
    for (const shard of ['1/3', '2/3', '3/3']) {
      const run = await runAction(
        inputs({
          'targets-from': snapshot,
          'targets-digest': digest,
          shard,
          call: 'DELETE /v1/targets/{id}'
        }),
        RUN
      )
      expect(run.code).toBe(0)
      const folder = join(results, `results-1-${shard[0]}`)
      mkdirSync(folder, { recursive: true })
      copyFileSync(run.outputs['results-file'], join(folder, basename(run.outputs['results-file'])))
      run.cleanup()
    }
    expect(calls().map(idOf).sort()).toEqual(retiredIds().sort())
    const report = await runAction({ 'report-from': results, 'targets-from': snapshot, 'targets-digest': digest }, RUN)
    try {
      expect(report.code).toBe(0)
      expect(report.outputs).toMatchObject({ 'report-targets': '40', 'report-succeeded': '40', 'report-missing': '0' })
    } finally {
      report.cleanup()
    }
  })

  it('narrows in the shard jobs, and the report given the same condition counts only those', async () => {
    const list = await runAction(inputs({ 'targets-output': 'false', 'shard-size': '200' }), RUN)
    const snapshot = join(dir, 'all-targets.json')
    copyFileSync(list.outputs['targets-file'], snapshot)
    const digest = list.outputs['targets-digest']
    list.cleanup()
    api.requests.length = 0
    const results = join(dir, 'narrowed')
    for (const shard of ['1/3', '2/3', '3/3']) {
      const run = await runAction(
        inputs({
          'targets-from': snapshot,
          'targets-digest': digest,
          'targets-where': RETIRED,
          shard,
          call: 'DELETE /v1/targets/{id}'
        }),
        RUN
      )
      expect(run.code).toBe(0)
      const folder = join(results, `results-1-${shard[0]}`)
      mkdirSync(folder, { recursive: true })
      copyFileSync(run.outputs['results-file'], join(folder, basename(run.outputs['results-file'])))
      run.cleanup()
    }
    expect(calls().map(idOf).sort()).toEqual(retiredIds().sort())
    const given = { 'report-from': results, 'targets-from': snapshot, 'targets-digest': digest }
    const narrowed = await runAction({ ...given, 'targets-where': RETIRED }, RUN)
    const whole = await runAction(given, RUN)
    try {
      expect(narrowed.code).toBe(0)
      expect(narrowed.outputs).toMatchObject({
        'report-targets': '40',
        'report-succeeded': '40',
        'report-missing': '0'
      })
      expect(whole.code).toBe(1)
      expect(whole.outputs).toMatchObject({ 'report-targets': '500', 'report-missing': '460' })
    } finally {
      narrowed.cleanup()
      whole.cleanup()
    }
  })
})
