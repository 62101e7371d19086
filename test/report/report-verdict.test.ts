import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { mergeResults, MergeOptions, ReportOutcome } from '../../src/report/merge.js'
import { nothingRead, reportError } from '../../src/report/report-verdict.js'
import { LineFields } from '../../src/routine/lines.js'
import { shardOf } from '../../src/targets/shards.js'
import { FP, line } from '../helpers.js'

let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'm2m-verdict-'))
  mkdirSync(join(dir, 'temp'))
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

const OTHER = 'fedcba9876543210'
const results = () => join(dir, 'results')
const file = (name: string, lines: string[]) => {
  const path = join(results(), name)
  mkdirSync(join(path, '..'), { recursive: true })
  writeFileSync(path, lines.map(l => `${l}\n`).join(''))
  return path
}
const keys = (n: number, prefix = 't-') => Array.from({ length: n }, (_, i) => `${prefix}${i}`)
const snapshot = (ids: string[]) => {
  const path = join(dir, 'targets.json')
  writeFileSync(path, `[\n${ids.map(id => JSON.stringify({ id })).join(',\n')}\n]\n`)
  return path
}
const merge = async (overrides: Partial<MergeOptions> = {}) => ({
  report: await mergeResults({
    from: results(),
    dir: join(dir, 'temp'),
    info: () => undefined,
    warning: () => undefined,
    ...overrides
  })
})
const ALL = new Set<ReportOutcome>(['failed', 'unknown', 'not-made', 'missing'])
const CHECK =
  "Check the download step before this one: its path should be that folder, and its pattern should match the shards' results artifacts (results-* in the README)."

describe('reportError', () => {
  const FAIL_ON = new Set<ReportOutcome>(['failed', 'unknown', 'missing'])
  const report = async (specs: [string, LineFields['outcome'], number][], ids?: string[]) => {
    for (let k = 1; k <= 6; k++) {
      const lines = specs
        .filter(spec => spec[2] === k)
        .map(([id, outcome]) => line(id, outcome, 500, { shard: `${k}/6` }))
      if (lines.length > 0) file(`r${k}.jsonl`, lines)
    }
    return (await merge({ snapshot: ids ? snapshot(ids) : undefined, shardCount: 6 })).report
  }

  it('names the counts and the shards to re-run', async () => {
    const ids = keys(60)
    const failed = ids.find(id => shardOf({ id }, 6) === 2) as string
    const done = ids.filter(id => id !== failed)
    const r = await report(
      [
        ...done.map(id => [id, 'succeeded', shardOf({ id }, 6)] as [string, 'succeeded', number]),
        [failed, 'failed', 2]
      ],
      [...ids, 'lost']
    )
    const lost = shardOf({ id: 'lost' }, 6)
    const shards = [...new Set([2, lost])]
      .sort()
      .map(k => `${k}/6`)
      .join(', ')
    expect(reportError(r, FAIL_ON)?.message).toBe(
      `The run did not reach every target: 1 failed, 0 unknown, 0 not made, 1 missing of 61 targets; shards to re-run: ${shards}. ` +
        'Re-run those shards with call-resume-from given their results files, so that only the targets not done are called; ' +
        'the shards-to-rerun output lists them, and the report-file output every target with its outcome.'
    )
    expect(reportError(r, new Set(['unknown']))).toBeUndefined()
    expect(reportError(r, new Set(['missing']))?.message).toMatch(new RegExp(`; shards to re-run: ${lost}/6\\. `))
  })

  it('says without a snapshot that missing targets cannot be seen', async () => {
    const r = await report([['a', 'unknown', 1]])
    expect(reportError(r, FAIL_ON)?.message).toMatch(
      /^The run did not reach every target: 0 failed, 1 unknown, 0 not made, of 1 target seen \(without targets-from, missing targets cannot be seen\); shards to re-run: \d\/6\. /
    )
  })

  it('is undefined when every target is done', async () => {
    expect(
      reportError(
        await report([
          ['a', 'succeeded', 1],
          ['b', 'skipped', 1]
        ]),
        FAIL_ON
      )
    ).toBeUndefined()
  })

  it('names exactly 32 shards without "and more", and counts the targets not made', async () => {
    const ids = keys(1000)
    const notMade = ids[0]
    file('r.jsonl', [line(notMade, 'not-made', null, { shard: `${shardOf({ id: notMade }, 32)}/32` })])
    const r = await merge({ snapshot: snapshot(ids), shardCount: 32 })
    expect(r.report.shards).toHaveLength(32)
    const message = reportError(r.report, new Set(['not-made', 'missing']))?.message ?? ''
    const all = Array.from({ length: 32 }, (_, i) => `${i + 1}/32`).join(', ')
    expect(message).toContain(
      `: 0 failed, 0 unknown, 1 not made, 999 missing of 1,000 targets; shards to re-run: ${all}. Re-run those shards`
    )
  })

  it('names 32 shards at most', async () => {
    const r = await merge({ snapshot: snapshot(keys(2000)), shardCount: 256 })
    const message = reportError(r.report, FAIL_ON)?.message ?? ''
    expect(message).toContain('2,000 missing of 2,000 targets; shards to re-run: 1/256, 2/256,')
    expect(message).toContain(`32/256 and ${r.report.shards.length - 32} more. `)
  })
})

describe('reportError when no result line was read', () => {
  it("names report-from, and the download step's path and pattern, for a folder that does not exist", async () => {
    const { report } = await merge()
    const why = `Input report-from: ${results()} does not exist, so no result line was read. ${CHECK}`
    expect(nothingRead(report)).toBe(why)
    expect(reportError(report, ALL)?.message).toBe(why)
    expect(reportError(report, new Set(['unknown']))?.message).toBe(why)
  })

  it('names them for a folder that holds no results file, and says no shard can be named with a snapshot', async () => {
    mkdirSync(results())
    writeFileSync(join(results(), 'notes.txt'), 'x')
    const { report } = await merge({ snapshot: snapshot(keys(6)) })
    expect(report).toMatchObject({ shardCount: undefined, shardsToRerun: [], missingShards: [], targets: 6 })
    expect(reportError(report, ALL)?.message).toBe(
      `Input report-from: ${results()} holds no results file (*.jsonl, in it or one level down), so no result line was read. ${CHECK} ` +
        'All 6 targets of targets-from are missing, in no shard: without a result line nothing says how many shards the run had, so shards-to-rerun is empty.'
    )
  })

  it('passes when the snapshot holds no target: nothing was to be done', async () => {
    const { report } = await merge({ snapshot: snapshot([]) })
    expect([nothingRead(report), reportError(report, ALL)]).toEqual([undefined, undefined])
  })

  it.each<[string, () => void, Partial<MergeOptions>, string]>([
    ['empty files', () => file('a/r.jsonl', []), {}, 'they hold no line'],
    [
      'only planned lines',
      () => file('r.jsonl', [line('a', 'planned', null)]),
      {},
      'they hold only the planned lines of a dry run'
    ],
    [
      'only lines of another call',
      () => file('r.jsonl', [line('a', 'succeeded', 200, { call: OTHER }), line('b', 'failed', 500, { call: OTHER })]),
      { fingerprint: FP },
      'their 2 lines are of another call: check the call, call-body and base-url inputs'
    ],
    ['files none of which could be read', () => file('r.jsonl', ['garbage']), {}, 'none of them could be read']
  ])('says so of %s', async (_, make, options, what) => {
    make()
    const { report } = await merge(options)
    const call = options.fingerprint ? ` of call ${FP}` : ''
    expect(nothingRead(report)).toBe(
      `No result line${call} was read from the 1 results file in ${results()} (report-from): ${what}.`
    )
  })

  it('counts the files it read from', async () => {
    file('a.jsonl', [])
    file('b.jsonl', [])
    const { report } = await merge()
    expect(nothingRead(report)).toBe(
      `No result line was read from the 2 results files in ${results()} (report-from): they hold no line.`
    )
  })

  it('reads lines of the call: then nothing is said', async () => {
    file('r.jsonl', [line('a', 'succeeded', 200)])
    const { report } = await merge()
    expect([nothingRead(report), reportError(report, ALL)]).toEqual([undefined, undefined])
  })
})

describe('reportError for a file it could not read', () => {
  const unreadable = (names: string, its: string, they: string) =>
    `could not be read, so none of ${its} lines were counted: ${names} (the warnings say why). If ${they} not the shards' results files, narrow the download step's pattern; ` +
    'else delete the artifact that holds a damaged file, re-run its shard, then this report.'

  it('fails though every target is done, naming the file', async () => {
    file('a.jsonl', [line('a', 'succeeded', 200)])
    const bad = file('b.jsonl', [line('b', 'succeeded', 200), 'garbage'])
    const { report } = await merge()
    expect(reportError(report, ALL)?.message).toBe(`1 results file ${unreadable(`"${bad}"`, 'its', 'it is')}`)
  })

  it('says both when targets are not done and files could not be read, naming five files at most', async () => {
    file('a.jsonl', [line('a', 'failed', 500)])
    const bad = Array.from({ length: 6 }, (_, i) => file(`bad-${i}.jsonl`, ['garbage']))
    const { report } = await merge({ failOn: ALL })
    const message = reportError(report, ALL)?.message ?? ''
    expect(message).toMatch(
      /^The run did not reach every target: 1 failed, .* the report-file output every target with its outcome\. 6 results files could not/
    )
    expect(message).toContain(
      unreadable(
        `${bad
          .slice(0, 5)
          .map(f => `"${f}"`)
          .join(', ')} and 1 more`,
        'their',
        'they are'
      )
    )
  })
})
