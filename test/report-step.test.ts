import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { recordSigner, RecordSigner } from '../src/auth/record-key.js'
import { ReportInputs } from '../src/inputs/report.js'
import { DEFAULT_FAIL_ON } from '../src/report/merge.js'
import { callFingerprint, CallIdentity } from '../src/routine/fingerprint.js'
import { LineFields, resultLine } from '../src/routine/lines.js'
import { ResultsRecord } from '../src/routine/record.js'
import { RecordHeader } from '../src/routine/record-format.js'
import { reportEveryShard, reportStep } from '../src/report-step.js'
import { captureStdout, plainHeader, readFileCommands, setInputs } from './helpers.js'

const CALL = {
  method: 'POST',
  path: '/v1/t/{id}',
  body: '',
  baseUrl: new URL('https://api.test/'),
  accept: new Set<number>()
}
const OTHER = { ...CALL, path: '/v1/other/{id}' }

const written = captureStdout()
const saved = { ...process.env }
let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'm2m-report-step-'))
  process.env.GITHUB_OUTPUT = join(dir, 'GITHUB_OUTPUT')
  writeFileSync(process.env.GITHUB_OUTPUT, '')
  process.env.RUNNER_TEMP = join(dir, 'temp')
  mkdirSync(process.env.RUNNER_TEMP)
})
afterEach(() => {
  process.env = { ...saved }
  process.exitCode = undefined
  rmSync(dir, { recursive: true, force: true })
})

const outputs = () => readFileCommands(readFileSync(join(dir, 'GITHUB_OUTPUT'), 'utf8'))
const errors = () => written.filter(l => l.startsWith('::error::'))

/** A shard's results file: "a succeeded" lines of `call`. */
function results(name: string, call: CallIdentity, lines: string[]): void {
  const folder = join(dir, 'results')
  mkdirSync(folder, { recursive: true })
  const text = lines.map(l => {
    const [key, outcome] = l.split(' ') as [string, LineFields['outcome']]
    const status = outcome === 'succeeded' ? 200 : outcome === 'failed' ? 500 : null
    return resultLine(
      { fingerprint: callFingerprint(call), runAttempt: 1, shard: '1/1' },
      { key, outcome, status, index: 0, target: { id: key } }
    )
  })
  writeFileSync(join(folder, name), text.join('\n') + '\n')
}

/** The snapshot the shards read, in a folder of its own as download-artifact leaves it. */
function snapshot(ids: string[]): string {
  const folder = join(dir, 'snapshot')
  mkdirSync(folder)
  writeFileSync(join(folder, 'targets.json'), `[\n${ids.map(id => JSON.stringify({ id })).join(',\n')}\n]\n`)
  return folder
}

const inputs = (overrides: Partial<ReportInputs> = {}): ReportInputs => ({
  from: join(dir, 'results'),
  failOn: DEFAULT_FAIL_ON,
  summary: true,
  ...overrides
})

describe('reportStep', () => {
  it('reads the report inputs, report-from required', async () => {
    setInputs({})
    await expect(reportStep(() => undefined)).rejects.toThrow(
      "Input required and not supplied: report-from (the folder the shards' results artifacts were downloaded to)"
    )
    results('a.jsonl', CALL, ['a succeeded'])
    setInputs({ 'report-from': join(dir, 'results'), 'report-fail-on': 'failed', summary: 'false' })
    await reportStep(() => undefined)
    expect(outputs()).toMatchObject({ 'report-targets': '1', 'report-succeeded': '1' })
  })
})

describe('reportEveryShard', () => {
  it('counts the lines of the call given, sets the outputs and writes the summary', async () => {
    results('a.jsonl', CALL, ['a succeeded', 'b succeeded'])
    results('b.jsonl', OTHER, ['a failed', 'b failed', 'c failed'])
    const summaries: string[] = []
    await reportEveryShard(inputs({ call: CALL }), m => summaries.push(m))
    expect(outputs()).toMatchObject({
      'report-targets': '2',
      'report-succeeded': '2',
      'report-failed': '0',
      'shards-to-rerun': '[]'
    })
    expect(dirname(outputs()['report-file'])).toBe(join(dir, 'temp'))
    expect(summaries).toHaveLength(1)
    expect(summaries[0]).toMatch(/^## /)
    expect(summaries[0]).toContain('**2 succeeded')
    expect(errors()).toEqual([])
    expect(process.exitCode).toBeUndefined()
  })

  it('counts the call most lines are of without a call, and fails naming the shards to re-run', async () => {
    results('a.jsonl', CALL, ['a succeeded', 'b succeeded'])
    results('b.jsonl', OTHER, ['a failed', 'b failed', 'c succeeded'])
    await reportEveryShard(inputs(), () => undefined)
    expect(outputs()).toMatchObject({
      'report-targets': '3',
      'report-succeeded': '1',
      'report-failed': '2',
      'shards-to-rerun': '["1/1"]'
    })
    expect(errors()).toEqual([
      expect.stringMatching(
        /^::error::The run did not reach every target: 2 failed, 0 unknown, 0 not made, of 3 targets seen .*shards to re-run: 1\/1\./
      )
    ])
    expect(process.exitCode).toBe(1)
  })

  it('accounts for every target of targets-from, a folder holding the snapshot', async () => {
    results('a.jsonl', CALL, ['a succeeded'])
    await reportEveryShard(inputs({ call: CALL, targetsFrom: snapshot(['a', 'b']) }), () => undefined)
    expect(outputs()).toMatchObject({ 'report-targets': '2', 'report-succeeded': '1', 'report-missing': '1' })
    expect(errors()).toEqual([expect.stringContaining(': 0 failed, 0 unknown, 0 not made, 1 missing of 2 targets;')])
  })

  it('checks the snapshot against targets-digest', async () => {
    results('a.jsonl', CALL, ['a succeeded'])
    const targetsDigest = `sha256:${'0'.repeat(64)}`
    await expect(
      reportEveryShard(inputs({ call: CALL, targetsFrom: snapshot(['a']), targetsDigest }), () => undefined)
    ).rejects.toThrow(`not ${targetsDigest} (targets-digest)`)
  })

  it('fails only on the outcomes of report-fail-on', async () => {
    results('a.jsonl', CALL, ['a succeeded', 'b failed'])
    await reportEveryShard(inputs({ failOn: new Set(['unknown']) }), () => undefined)
    expect(outputs()).toMatchObject({ 'report-failed': '1' })
    expect(errors()).toEqual([])
    expect(process.exitCode).toBeUndefined()
  })

  it('writes no summary with summary: false', async () => {
    results('a.jsonl', CALL, ['a succeeded'])
    const summaries: string[] = []
    await reportEveryShard(inputs({ summary: false }), m => summaries.push(m))
    expect(summaries).toEqual([])
    expect(outputs()['report-succeeded']).toBe('1')
  })

  it('keeps the report file in the system temp folder without RUNNER_TEMP', async () => {
    delete process.env.RUNNER_TEMP
    results('a.jsonl', CALL, ['a succeeded'])
    await reportEveryShard(inputs(), () => undefined)
    const file = outputs()['report-file']
    try {
      expect(dirname(file)).toBe(tmpdir())
    } finally {
      rmSync(file, { force: true })
    }
    expect(process.exitCode).toBeUndefined()
  })

  it.each([
    ['a folder that does not exist', () => undefined, 'does not exist'],
    ['an empty folder', () => mkdirSync(join(dir, 'results')), 'holds no results file']
  ])('writes the summary and the outputs for %s, then fails naming report-from', async (_, make, what) => {
    make()
    const summaries: string[] = []
    await reportEveryShard(inputs({ targetsFrom: snapshot(['a', 'b', 'c']) }), m => summaries.push(m))
    expect(outputs()).toMatchObject({ 'report-targets': '3', 'report-missing': '3', 'shards-to-rerun': '[]' })
    expect(summaries).toHaveLength(1)
    expect(errors()).toEqual([expect.stringContaining(`::error::Input report-from: ${join(dir, 'results')} ${what}`)])
    expect(errors()[0]).toContain('its path should be that folder, and its pattern should match')
    expect(process.exitCode).toBe(1)
  })

  it('fails for a file it could not read, after the summary and the outputs, though every target is done', async () => {
    results('a.jsonl', CALL, ['a succeeded'])
    writeFileSync(join(dir, 'results', 'b.jsonl'), 'garbage\n')
    const summaries: string[] = []
    await reportEveryShard(inputs(), m => summaries.push(m))
    expect(outputs()).toMatchObject({ 'report-succeeded': '1', 'shards-to-rerun': '[]' })
    expect(summaries[0]).toContain('**Not counted**')
    expect(errors()).toEqual([expect.stringMatching(/^::error::1 results file could not be read/)])
    expect(process.exitCode).toBe(1)
  })

  it('puts no text of a file at the start of a log line', async () => {
    // The lines of most of the file hold a call that is a command: they are not result lines.
    const hostile = (key: string) =>
      JSON.stringify({
        key,
        call: '\n::stop-commands::t\n',
        outcome: 'failed',
        status: 500,
        runAttempt: 1,
        shard: null
      })
    results('a.jsonl', CALL, ['a failed'])
    mkdirSync(join(dir, 'results', 'x\n::add-mask::y'))
    writeFileSync(join(dir, 'results', 'x\n::add-mask::y', 'b.jsonl'), [hostile('b'), hostile('c')].join('\n') + '\n')
    await reportEveryShard(inputs(), () => undefined)
    const lines = written.join('').split('\n')
    expect(lines.filter(l => /^::(?!warning::|error::)/.test(l))).toEqual([])
    expect(errors()).toHaveLength(1)
    expect(outputs()).toMatchObject({ 'report-failed': '1' })
  })
})

describe('reportEveryShard and the record', () => {
  const warnings = () => written.filter(l => l.startsWith('::warning::'))
  const KEY = recordSigner(Buffer.alloc(32, 7))
  const OTHER_KEY = recordSigner(Buffer.alloc(32, 8))

  /** A results file as a routine writes it: its header (run 222, attempt 1 unless given), its lines, sealed. */
  function recorded(header: Partial<RecordHeader>, keys: string[], signer?: RecordSigner): void {
    const folder = join(dir, 'results')
    mkdirSync(folder, { recursive: true })
    const fingerprint = callFingerprint(CALL)
    const whole = { ...plainHeader('222'), call: fingerprint, signer: signer?.publicKey ?? null, ...header }
    const record = new ResultsRecord({ dir: folder, info: () => undefined, header: whole, signer })
    for (const key of keys) {
      const line = resultLine(
        { fingerprint, runAttempt: whole.attempt, shard: undefined },
        { key, outcome: 'succeeded', status: 200, index: 0, target: { id: key } }
      )
      record.add(line, 'succeeded')
    }
    record.close()
  }

  it("counts this run's files and sets another run's aside with a warning, not a failure", async () => {
    process.env.GITHUB_RUN_ID = '222'
    recorded({}, ['a'])
    recorded({ run: '111' }, ['b'])
    await reportEveryShard(inputs({ call: CALL }), () => undefined)
    expect(outputs()).toMatchObject({ 'report-targets': '1', 'report-succeeded': '1' })
    expect(warnings()).toEqual([
      expect.stringMatching(
        /^::warning::1 results file was not counted \(report-from\), being of another workflow run: .*\(of run "111", not this run \(222\)\)/
      )
    ])
    expect(errors()).toEqual([])
  })

  it('counts the files of an earlier attempt, and fails on a later one with no warning', async () => {
    process.env.GITHUB_RUN_ATTEMPT = '3'
    recorded({ attempt: 2 }, ['a'])
    await reportEveryShard(inputs({ call: CALL }), () => undefined)
    expect(outputs()).toMatchObject({ 'report-succeeded': '1' })
    expect([warnings(), errors()]).toEqual([[], []])

    rmSync(join(dir, 'results'), { recursive: true })
    process.env.GITHUB_RUN_ATTEMPT = '1'
    recorded({ attempt: 2 }, ['a'])
    await reportEveryShard(inputs({ call: CALL }), () => undefined)
    expect(warnings()).toEqual([])
    expect(errors()).toEqual([expect.stringContaining('of a later run attempt than this one')])
  })

  it('warns once that signed files are not checked without record-key', async () => {
    recorded({}, ['a'], KEY)
    await reportEveryShard(inputs({ call: CALL }), () => undefined)
    expect(outputs()).toMatchObject({ 'report-succeeded': '1' })
    expect(warnings()).toEqual([
      "::warning::The results files are signed with a record key, but record-key is not given: the report cannot tell the run's files " +
        'from forged ones. Pass the listing job\'s record-key output to record-key (README, "Fan-out").\n'
    ])
  })

  it('checks each file against record-key: its own counted, another key failing the step', async () => {
    recorded({}, ['a'], KEY)
    await reportEveryShard(inputs({ call: CALL, recordKey: KEY.publicKey }), () => undefined)
    expect(outputs()).toMatchObject({ 'report-succeeded': '1' })
    expect([warnings(), errors()]).toEqual([[], []])

    recorded({}, ['b'], OTHER_KEY)
    await reportEveryShard(inputs({ call: CALL, recordKey: KEY.publicKey }), () => undefined)
    expect(warnings()).toEqual([])
    expect(errors()).toEqual([expect.stringContaining('signed with another record key')])
  })
})
