import { createHash } from 'node:crypto'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  clientInputs,
  expectFailure,
  json,
  Received,
  resultLines,
  Run,
  runAction,
  startServer,
  TestServer,
  TOKEN
} from './harness.js'

// Issue 31: results files are read as evidence a hostile job may have written. Nothing of a file
// reaches the log as a command, no file stops the report, and a report gates nothing on nothing.
let idp: TestServer
let api: TestServer
let answer: (req: Received) => [number, string]
let dir: string
const targets = Array.from({ length: 6 }, (_, i) => ({ id: `t-${i}` }))
const idOf = (r: Received) => decodeURIComponent(r.url.split('/')[3] ?? '')
const calls = () => api.requests.filter(r => r.url !== '/v1/targets')

beforeAll(async () => {
  idp = await startServer((_req, res) =>
    json(res, 200, { access_token: TOKEN, expires_in: 86400, token_type: 'Bearer' })
  )
  api = await startServer((req, res) => {
    if (req.url === '/v1/targets') return json(res, 200, targets)
    const [status, body] = answer(req)
    json(res, status, body)
  })
  dir = mkdtempSync(join(tmpdir(), 'm2m-evidence-'))
})
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true })
  await Promise.all([idp.close(), api.close()])
})
beforeEach(() => {
  api.requests.length = 0
  answer = () => [201, '{"ok":1}']
})

const RUN = { GITHUB_RUN_ID: '3131', GITHUB_RUN_ATTEMPT: '1' }
const FP = '0123456789abcdef'
/** A result line as the action writes it, of call FP. */
const line = (key: string, outcome: string, status: number | null, rest = '') =>
  `{"key":"${key}","call":"${FP}","outcome":"${outcome}","status":${status},"runAttempt":1,"shard":"1/2","index":0${rest}}`
let folders = 0
/** A download folder holding these files (paths under it), as download-artifact lays them out. */
function folder(files: Record<string, string | Buffer>): string {
  const path = join(dir, `download-${++folders}`)
  mkdirSync(path)
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(path, name, '..'), { recursive: true })
    writeFileSync(join(path, name), text)
  }
  return path
}
const report = (from: string, extra: Record<string, string> = {}) =>
  runAction({ 'report-from': from, ...extra }, { env: RUN })
const errorsOf = (run: Run) => run.stdout.split('\n').filter(l => l.startsWith('::error::'))
/** Every log line that is a workflow command other than a warning or the step's one error. */
const otherCommands = (run: Run) =>
  `${run.stdout}\n${run.stderr}`.split('\n').filter(l => /^::/.test(l) && !/^::(warning|error)::/.test(l))

describe('nothing from a file reaches the log raw', () => {
  it('refuses a call field that is a command: the step’s own ::error:: stays an annotation', async () => {
    // More hostile lines than honest ones: the report once chose their call and logged it raw.
    const hostile = ['\n::stop-commands::pause-31\n', '\n::add-mask::t-0\n', '\n::error::forged\n'].map((call, i) =>
      JSON.stringify({ key: `h-${i}`, call, outcome: 'succeeded', status: 200, runAttempt: 1, shard: null })
    )
    const from = folder({
      'results-1-1/r.jsonl': `${line('t-0', 'failed', 500, ',"error":"boom"')}\n${line('t-1', 'succeeded', 200)}\n`,
      'results-1-2/evil.jsonl': `${hostile.join('\n')}\n`,
      // A folder name from another job, with a line break and a command in it, named in a warning.
      'x\n::add-mask::y\n/r.jsonl': `${line('t-2', 'succeeded', 200)}\n{"key":"t-3"`
    })
    const run = await report(from)
    try {
      expect(run.code).toBe(1)
      expect(otherCommands(run)).toEqual([])
      expect(run.stdout).not.toMatch(/^::stop-commands::/m)
      expect(errorsOf(run)).toEqual([
        expect.stringMatching(
          /^::error::The run did not reach every target: 1 failed, .* 1 results file could not be read/
        )
      ])
      expect(run.stdout).toMatch(/^::warning::".*evil\.jsonl" line 1 is not a result line of this action/m)
      expect(run.stdout).toMatch(/^::warning::1 results file ends in a torn line .*"[^"]*x::add-mask::y\/r\.jsonl"$/m)
      expect(run.outputs).toMatchObject({ 'report-failed': '1', 'report-succeeded': '2', 'report-targets': '3' })
      expect(run.summary).toContain('boom')
    } finally {
      run.cleanup()
    }
  })
})

describe('hostile data cannot stop the report', () => {
  const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`

  it('keeps a 12 KB body of nested arrays as text, and reports over it and over such a body as JSON', async () => {
    answer = req => (idOf(req) === 't-1' ? [500, nested(6000)] : [201, '{"ok":1}'])
    const call = { call: 'POST /v1/t/{id}/scan' }
    const shard = await runAction(clientInputs(idp.url, api.url, call), { env: RUN })
    let from: string
    try {
      expect(shard.code).toBe(1)
      const lines = resultLines(shard.outputs['results-file'])
      expect(lines.find(l => l.key === 't-1')).toMatchObject({ outcome: 'failed', status: 500, body: nested(6000) })
      // Another tool's line of the same call, its body the same arrays as JSON: read, never written again.
      const other = JSON.stringify({
        key: 't-9',
        call: lines[0].call,
        outcome: 'failed',
        status: 502,
        runAttempt: 1,
        shard: null
      })
      from = folder({
        'results-1-1/r.jsonl': readFileSync(shard.outputs['results-file']),
        'other/r.jsonl': `${other.slice(0, -1)},"body":${nested(6000)}}\n`
      })
    } finally {
      shard.cleanup()
    }
    const run = await report(from, { ...call, 'base-url': api.url })
    try {
      expect(run.code).toBe(1)
      expect(run.outputs).toMatchObject({ 'report-failed': '2', 'report-succeeded': '5', 'shards-to-rerun': '["1/1"]' })
      expect(errorsOf(run)).toEqual([expect.stringMatching(/^::error::The run did not reach every target: 2 failed,/)])
      expect(run.stdout).not.toContain('Maximum call stack')
      expect(run.summary).toMatch(/^\| t-1 \| HTTP 500 \| (\\\[){150,}…/m)
      expect(run.summary).toContain('| t-9 | HTTP 502 | \\(a body nested more than 64 levels deep\\) |')
    } finally {
      run.cleanup()
    }
  })

  it('refuses a 64 MiB line with no newline as not a result line: the report and a resume both finish', async () => {
    const from = folder({
      'results-1-1/r.jsonl': `${line('t-0', 'succeeded', 200)}\n`,
      'results-1-2/big.jsonl': `{"key":"${'a'.repeat(64 * 1024 * 1024)}`
    })
    const run = await report(from)
    try {
      expect(run.code).toBe(1)
      expect(run.stdout).toMatch(
        /^::warning::".*big\.jsonl" line 1 is longer than 16 MiB, so it is not a result line of this action: none of its lines are counted/m
      )
      expect(errorsOf(run)).toEqual([
        expect.stringMatching(/^::error::1 results file could not be read, .*big\.jsonl"/)
      ])
      expect(run.outputs).toMatchObject({ 'report-succeeded': '1', 'shards-to-rerun': '[]' })
      expect(run.summary).toContain('**Not counted**')
    } finally {
      run.cleanup()
    }
    const resume = await runAction(
      clientInputs(idp.url, api.url, { call: 'POST /v1/t/{id}/scan', 'call-resume-from': from }),
      { env: { ...RUN, GITHUB_RUN_ATTEMPT: '2' } }
    )
    try {
      expectFailure(
        resume,
        /^::error::Input call-resume-from: ".*big\.jsonl" line 1 is longer than 16 MiB, so it is not a result line of this action; no call was made$/
      )
      expect(calls()).toEqual([])
    } finally {
      resume.cleanup()
    }
  })
})

describe('a gate does not pass on nothing', () => {
  const snapshotFile = join(mkdtempSync(join(tmpdir(), 'm2m-evidence-snapshot-')), 'targets.json')
  writeFileSync(snapshotFile, `[\n${targets.map(t => JSON.stringify(t)).join(',\n')}\n]\n`)
  const snapshot = {
    'targets-from': snapshotFile,
    'targets-digest': `sha256:${createHash('sha256').update(readFileSync(snapshotFile)).digest('hex')}`
  }
  afterAll(() => rmSync(join(snapshotFile, '..'), { recursive: true, force: true }))

  it.each<[string, () => string, Record<string, string>]>([
    ['a missing folder', () => join(dir, 'never-downloaded'), {}],
    ['a missing folder, with the snapshot', () => join(dir, 'never-downloaded'), snapshot],
    ['an empty folder', () => folder({}), {}],
    ['an empty folder, with the snapshot', () => folder({ 'notes.txt': 'x' }), snapshot]
  ])('fails for %s, naming report-from and the download’s path and pattern, and no shard', async (_, from, extra) => {
    const run = await report(from(), extra)
    try {
      expect(run.code).toBe(1)
      const errors = errorsOf(run)
      expect(errors).toHaveLength(1)
      expect(errors[0]).toMatch(/^::error::Input report-from: .* (does not exist|holds no results file)/)
      expect(errors[0]).toContain("its path should be that folder, and its pattern should match the shards' results")
      expect(run.outputs['shards-to-rerun']).toBe('[]')
      expect(run.summary).toContain('**No result line was read.**')
      const lines = resultLines(run.outputs['report-file'])
      if (extra['targets-from']) {
        expect(run.outputs).toMatchObject({ 'report-targets': '6', 'report-missing': '6' })
        expect(errors[0]).toContain('All 6 targets of targets-from are missing, in no shard')
        expect(lines.map(l => [l.outcome, l.shard])).toEqual(targets.map(() => ['missing', null]))
      } else {
        expect(run.outputs).toMatchObject({ 'report-targets': '0', 'report-missing': '0' })
        expect(lines).toEqual([])
      }
    } finally {
      run.cleanup()
    }
  })

  it('strips a byte-order mark: the failed line after it counts, and fails the report; a resume reads it too', async () => {
    const bom = Buffer.from([0xef, 0xbb, 0xbf])
    const from = folder({
      'results-1-1/r.jsonl': Buffer.concat([bom, Buffer.from(`${line('t-0', 'failed', 500)}\n`)])
    })
    const run = await report(from)
    try {
      expect(run.code).toBe(1)
      expect(run.outputs).toMatchObject({ 'report-failed': '1', 'report-targets': '1' })
      expect(errorsOf(run)).toEqual([
        expect.stringMatching(
          /^::error::The run did not reach every target: 1 failed, 0 unknown, 0 not made, of 1 target seen/
        )
      ])
      expect(run.stdout).not.toMatch(/^::warning::/m)
    } finally {
      run.cleanup()
    }
    const fingerprint = createHash('sha256')
      .update(JSON.stringify(['POST', '/v1/t/{id}/scan', '', `${api.url}/`]))
      .digest('hex')
      .slice(0, 16)
    const earlier = folder({
      'results-1-1/r.jsonl': Buffer.concat([
        bom,
        Buffer.from(`${line('t-0', 'succeeded', 201).replace(FP, fingerprint)}\n`)
      ])
    })
    const resume = await runAction(
      clientInputs(idp.url, api.url, { call: 'POST /v1/t/{id}/scan', 'call-resume-from': earlier }),
      { env: { ...RUN, GITHUB_RUN_ATTEMPT: '2' } }
    )
    try {
      expect(resume.code).toBe(0)
      expect(resume.outputs).toMatchObject({ 'calls-skipped': '1', 'calls-succeeded': '5' })
      expect(calls().map(idOf)).not.toContain('t-0')
    } finally {
      resume.cleanup()
    }
  })

  it('refuses a line that names outcome twice, in the report and in a resume alike', async () => {
    const twice = `${line('t-0', 'succeeded', 200).slice(0, -1)},"outcome":"failed"}`
    expect(JSON.parse(twice)).toMatchObject({ outcome: 'failed' })
    const from = folder({
      'results-1-1/r.jsonl': `${line('t-1', 'succeeded', 200)}\n`,
      'results-1-2/twice.jsonl': `${twice}\n`
    })
    const run = await report(from)
    try {
      expect(run.code).toBe(1)
      expect(run.stdout).toMatch(/^::warning::".*twice\.jsonl" line 1 is not a result line of this action/m)
      expect(errorsOf(run)).toEqual([
        expect.stringMatching(/^::error::1 results file could not be read, .*twice\.jsonl"/)
      ])
      expect(run.outputs).toMatchObject({ 'report-succeeded': '1', 'report-targets': '1' })
    } finally {
      run.cleanup()
    }
    const resume = await runAction(
      clientInputs(idp.url, api.url, { call: 'POST /v1/t/{id}/scan', 'call-resume-from': from }),
      { env: { ...RUN, GITHUB_RUN_ATTEMPT: '2' } }
    )
    try {
      expectFailure(
        resume,
        /^::error::Input call-resume-from: ".*twice\.jsonl" line 1 is not a result line of this action/
      )
      expect(calls()).toEqual([])
    } finally {
      resume.cleanup()
    }
  })
})
