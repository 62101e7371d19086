import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { countLines, eachWinningLine, fileOf, MergeLog, surveyResults } from '../../src/report/merge-files.js'
import { WinnerTable } from '../../src/report/merge-table.js'
import { LineFields, resultLine } from '../../src/routine/lines.js'
import { ResultFileError } from '../../src/routine/result-files.js'
import { keyHash } from '../../src/targets/key-table.js'

let dir: string
let results: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'm2m-merge-files-'))
  results = join(dir, 'results')
  mkdirSync(results)
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

const FP = '0123456789abcdef'
const OTHER = 'fedcba9876543210'

const line = (
  key: string,
  outcome: LineFields['outcome'] = 'succeeded',
  { call = FP, shard, attempt = 1 }: { call?: string; shard?: string; attempt?: number } = {}
) =>
  resultLine(
    { fingerprint: call, runAttempt: attempt, shard },
    { key, outcome, status: outcome === 'unknown' || outcome === 'planned' ? null : 200, index: 0, target: { id: key } }
  )

const file = (name: string, lines: string[], end = '\n') => {
  const path = join(results, name)
  writeFileSync(path, lines.join('\n') + end)
  return path
}

const recorder = () => {
  const infos: string[] = []
  const warnings: string[] = []
  const log: MergeLog = { info: m => infos.push(m), warning: m => warnings.push(m) }
  return { infos, warnings, log }
}

/** A survey without its refusals (none here) and the signed-files flag: the counts a test names. */
const plain = ({ refusals, signedUnchecked, ...rest }: ReturnType<typeof surveyResults>) => {
  expect(refusals.count).toBe(0)
  expect(signedUnchecked).toBe(false)
  return rest
}

describe('surveyResults', () => {
  it('counts the files and lines, and the shard count most lines name', () => {
    const a = file('a.jsonl', [line('a', 'succeeded', { shard: '1/4' }), line('b', 'failed', { shard: '2/4' })])
    const b = file('b.jsonl', [line('c', 'succeeded', { shard: '1/2' }), line('d', 'planned')])
    const { infos, warnings, log } = recorder()
    expect(plain(surveyResults(results, FP, log))).toEqual({
      found: true,
      files: 2,
      readable: [a, b],
      unreadable: [],
      lines: 4,
      fingerprint: FP,
      shardCount: 4
    })
    expect([infos, warnings]).toEqual([[], []])
  })

  it('finds no file in an empty report-from, or one that does not exist, and leaves saying so to the verdict', () => {
    const { warnings, infos, log } = recorder()
    expect(plain(surveyResults(results, undefined, log))).toEqual({
      found: true,
      files: 0,
      readable: [],
      unreadable: [],
      lines: 0,
      fingerprint: undefined,
      shardCount: undefined
    })
    const absent = join(dir, 'absent')
    expect(surveyResults(absent, undefined, log)).toMatchObject({ found: false, files: 0, lines: 0 })
    expect([warnings, infos]).toEqual([[], []])
  })

  it('names the report-from input when the path is neither a file nor a folder', () => {
    const { log } = recorder()
    expect(() => surveyResults('/dev/null', FP, log)).toThrow(
      new ResultFileError('Input report-from: /dev/null is neither a file nor a folder')
    )
  })

  it('chooses the first of two calls with as many lines, and says so', () => {
    file('a.jsonl', [line('a', 'succeeded', { call: OTHER }), line('b')])
    const { infos, log } = recorder()
    expect(surveyResults(results, undefined, log).fingerprint).toBe(OTHER)
    expect(infos).toEqual([
      `The report is of call ${OTHER}, the call of 1 of 2 result lines (give the step's call input to choose it)`
    ])
  })

  it('sums the calls over files before choosing one', () => {
    file('a.jsonl', [line('a', 'succeeded', { call: OTHER }), line('b', 'succeeded', { call: OTHER }), line('c')])
    file('b.jsonl', [line('d'), line('e'), line('f', 'succeeded', { call: OTHER })])
    file('c.jsonl', [line('g')])
    const { infos, log } = recorder()
    expect(surveyResults(results, undefined, log).fingerprint).toBe(FP)
    expect(infos).toEqual([
      `The report is of call ${FP}, the call of 4 of 7 result lines (give the step's call input to choose it)`
    ])
  })

  const call = (i: number) => i.toString(16).padStart(16, '0')

  it('keeps 64 calls per file: a 65th call of that file is not counted', () => {
    const calls = Array.from({ length: 64 }, (_, i) => call(i))
    file('a.jsonl', [
      ...calls.map((c, i) => line(`k${i}`, 'succeeded', { call: c })),
      ...Array.from({ length: 5 }, (_, i) => line(`x${i}`, 'succeeded', { call: OTHER }))
    ])
    const { infos, log } = recorder()
    const survey = surveyResults(results, undefined, log)
    expect(survey.fingerprint).toBe(call(0))
    expect(survey.lines).toBe(69)
    expect(infos).toEqual([
      `The report is of call ${call(0)}, the call of 1 of 64 result lines (give the step's call input to choose it)`
    ])
  })

  it('still counts a call of the first 64 after the limit is reached', () => {
    const calls = Array.from({ length: 64 }, (_, i) => call(i))
    file('a.jsonl', [
      ...calls.map((c, i) => line(`k${i}`, 'succeeded', { call: c })),
      line('y', 'succeeded', { call: call(63) })
    ])
    const { log } = recorder()
    expect(surveyResults(results, undefined, log).fingerprint).toBe(call(63))
  })

  it('takes the shard count most lines name, the first of a tie, and lines without a shard name none', () => {
    file('a.jsonl', [
      line('a', 'succeeded', { shard: '1/3' }),
      line('b', 'succeeded', { shard: '2/5' }),
      line('c'),
      line('d'),
      line('e')
    ])
    const { log } = recorder()
    expect(surveyResults(results, FP, log).shardCount).toBe(3)
    file('b.jsonl', [line('f', 'succeeded', { shard: '3/5' }), line('g', 'succeeded', { shard: '1/3' })])
    file('c.jsonl', [line('h', 'succeeded', { shard: '4/5' }), line('i'), line('j', 'succeeded', { shard: '5/5' })])
    expect(surveyResults(results, FP, log).shardCount).toBe(5)
  })

  it('names no shard count when no line names one', () => {
    file('a.jsonl', [line('a'), line('b')])
    const { warnings, log } = recorder()
    const survey = surveyResults(results, FP, log)
    expect(survey).toMatchObject({ lines: 2, unreadable: [], shardCount: undefined })
    expect(warnings).toEqual([])
  })

  it('counts nothing of a file whose line names a shard that is not one', () => {
    const bad = file('a.jsonl', [line('a'), line('c', 'succeeded', { shard: '0/3' })])
    const { warnings, log } = recorder()
    expect(surveyResults(results, FP, log)).toMatchObject({ lines: 0, unreadable: [bad], shardCount: undefined })
    expect(warnings).toHaveLength(1)
  })

  it('ignores planned lines for the call and the shard count, but counts them as lines', () => {
    file('a.jsonl', [
      line('a', 'planned', { call: OTHER, shard: '1/2' }),
      line('b', 'planned', { call: OTHER, shard: '1/2' }),
      line('c', 'succeeded', { shard: '1/3' })
    ])
    const { log } = recorder()
    expect(surveyResults(results, undefined, log)).toMatchObject({ lines: 3, fingerprint: FP, shardCount: 3 })
  })

  it('counts nothing of a file with a line that is not a result line', () => {
    const good = file('a.jsonl', [line('a', 'succeeded', { call: OTHER, shard: '1/2' })])
    const bad = file('b.jsonl', [line('b'), line('c'), 'not json', line('d', 'succeeded', { shard: '1/9' })])
    const { warnings, infos, log } = recorder()
    expect(plain(surveyResults(results, undefined, log))).toEqual({
      found: true,
      files: 2,
      readable: [good],
      unreadable: [bad],
      lines: 1,
      fingerprint: OTHER,
      shardCount: 2
    })
    expect(warnings).toEqual([
      `"${bad}" line 3 is not a result line of this action: it should be one JSON object naming key, call, outcome, status, runAttempt and shard once each, in the shapes docs/routine.md gives: none of its lines are counted in the report`
    ])
    expect(infos).toHaveLength(1)
  })

  // /proc/self/mem is a regular file whose first page cannot be read: EIO.
  const onLinux = process.platform === 'linux' ? it : it.skip
  onLinux('says why a file cannot be read, and counts none of it', () => {
    const { warnings, log } = recorder()
    const from = '/proc/self/mem'
    expect(surveyResults(from, FP, log)).toMatchObject({ files: 1, readable: [], unreadable: [from], lines: 0 })
    expect(warnings).toEqual([
      `"${from}" cannot be read (EIO: i/o error, read): none of its lines are counted in the report`
    ])
  })

  it('warns of one torn last line, and counts the lines before it', () => {
    const a = file('a.jsonl', [line('a'), '{"key":"b","ca'], '')
    const { warnings, log } = recorder()
    expect(surveyResults(results, FP, log)).toMatchObject({ readable: [a], lines: 1 })
    expect(warnings).toEqual([
      `1 results file ends in a torn line (a writer stopped mid-line), which is ignored: "${a}"`
    ])
  })

  it('names five torn files without "and more", and six with it', () => {
    const torn = Array.from({ length: 6 }, (_, i) => file(`${i}.jsonl`, [line(`k${i}`), '{"key"'], ''))
    const { warnings, log } = recorder()
    rmSync(torn[5])
    surveyResults(results, FP, log)
    file('5.jsonl', [line('k5'), '{"key"'], '')
    surveyResults(results, FP, log)
    const five = torn
      .slice(0, 5)
      .map(f => `"${f}"`)
      .join(', ')
    expect(warnings).toEqual([
      `5 results files end in a torn line (a writer stopped mid-line), which is ignored: ${five}`,
      `6 results files end in a torn line (a writer stopped mid-line), which is ignored: ${five} and 1 more`
    ])
  })
})

describe('countLines', () => {
  it('numbers the lines of the call from 1 in file order, and says where each file starts', () => {
    const a = file('a.jsonl', [line('a'), line('b', 'planned'), line('c')])
    const b = file('b.jsonl', [line('d', 'planned')])
    const c = file('c.jsonl', [line('a', 'failed'), line('e')])
    const table = new WinnerTable()
    const { warnings, log } = recorder()
    expect(countLines([a, b, c], FP, table, log)).toEqual({ starts: [1, 3, 3], otherCall: 0, counted: 4 })
    expect(warnings).toEqual([])
    expect(table.keys).toBe(3)
    expect(table.winner('a')).toEqual({ outcome: 'failed', status: 200, runAttempt: 1, seq: 3 })
    expect(table.winner('c')?.seq).toBe(2)
    expect(table.winner('e')?.seq).toBe(4)
    expect(table.winner('b')).toBeUndefined()
  })

  it('counts one line of another call apart, naming its one file', () => {
    const a = file('a.jsonl', [line('a'), line('b')])
    const b = file('b.jsonl', [line('c'), line('x', 'failed', { call: OTHER }), line('y', 'planned', { call: OTHER })])
    const table = new WinnerTable()
    const { warnings, log } = recorder()
    expect(countLines([a, b], FP, table, log)).toEqual({ starts: [1, 3], otherCall: 1, counted: 3 })
    expect(warnings).toEqual([
      `1 result line is of another call (another method, path, body or base-url) and is not counted, in 1 file: "${b}"`
    ])
    expect(table.winner('x')).toBeUndefined()
  })

  it('names every file of another call, up to five', () => {
    const files = Array.from({ length: 5 }, (_, i) =>
      file(`${i}.jsonl`, [line(`o${i}`, 'succeeded', { call: OTHER }), line(`p${i}`, 'succeeded', { call: OTHER })])
    )
    const { warnings, log } = recorder()
    expect(countLines(files, FP, new WinnerTable(), log).otherCall).toBe(10)
    expect(warnings).toEqual([
      `10 result lines are of another call (another method, path, body or base-url) and are not counted, in 5 files: ${files.map(f => `"${f}"`).join(', ')}`
    ])
  })
})

describe('eachWinningLine', () => {
  it('hands over each winning line once, in file order, numbered as countLines numbered them', () => {
    const a = file('a.jsonl', [line('p', 'planned'), line('a', 'failed'), line('b'), line('q', 'planned')])
    const b = file('b.jsonl', [line('x', 'succeeded', { call: OTHER }), line('a'), line('c', 'unknown')])
    const table = new WinnerTable()
    const { log } = recorder()
    countLines([a, b], FP, table, log)
    const seen: [string, number][] = []
    eachWinningLine([a, b], FP, table, (key, hash, winner) => {
      expect(hash).toEqual(keyHash(key))
      seen.push([key, winner.seq])
    })
    expect(seen).toEqual([
      ['b', 2],
      ['a', 3],
      ['c', 4]
    ])
  })

  it('hands over no line of a key the table has no line for', () => {
    const a = file('a.jsonl', [line('a'), line('b')])
    const table = new WinnerTable()
    table.list(keyHash('a'))
    const seen: string[] = []
    eachWinningLine([a], FP, table, key => seen.push(key))
    expect(seen).toEqual([])
  })
})

describe('fileOf', () => {
  const files = ['a', 'b', 'c', 'd']
  const starts = [1, 4, 4, 9]
  it.each([
    [1, 'a'],
    [3, 'a'],
    [4, 'c'],
    [8, 'c'],
    [9, 'd'],
    [500, 'd']
  ])('finds line %p in file %p', (seq, name) => {
    expect(fileOf(files, starts, seq)).toBe(name)
  })

  it('never goes before the first file', () => {
    expect(fileOf(files, starts, 0)).toBe('a')
    expect(fileOf(['only'], [1], 0)).toBe('only')
  })
})
