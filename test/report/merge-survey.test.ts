import { mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { countLines } from '../../src/report/merge-files.js'
import { surveyResults } from '../../src/report/merge-survey.js'
import { WinnerTable } from '../../src/report/merge-table.js'
import { ResultFileError } from '../../src/routine/result-files.js'
import { FP, line, OTHER, recorder, writeResults } from './results-fixture.js'

let dir: string
let results: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'm2m-merge-survey-'))
  results = join(dir, 'results')
  mkdirSync(results)
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

const file = (name: string, lines: string[], end = '\n') => writeResults(results, name, lines, end)

/** A survey without its refusals (none here) and the signed-files flag: the counts a test names. */
const plain = ({ refusals, signedUnchecked, counted, ...rest }: ReturnType<typeof surveyResults>) => {
  expect(counted).toBeUndefined()
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

describe('surveyResults with a table', () => {
  /** The survey's count of the lines, beside countLines' count over the same files. */
  const bothCounts = (fingerprint: string | undefined) => {
    const { warnings, infos, log } = recorder()
    const table = new WinnerTable()
    const survey = surveyResults(results, fingerprint, log, undefined, table)
    const again = new WinnerTable()
    const counted = countLines(survey.readable, survey.fingerprint, again, recorder().log)
    return { survey, table, again, counted, warnings, infos }
  }

  it('counts the lines of the call given as it reads them, as countLines does, and warns of the others once', () => {
    const a = file('a.jsonl', [line('a'), line('b', 'planned'), line('c', 'failed', { call: OTHER })])
    file('b.jsonl', [line('d', 'planned')])
    file('c.jsonl', [line('a', 'failed'), line('e')])
    const { survey, table, counted, warnings } = bothCounts(FP)
    expect(survey.counted).toEqual(counted)
    expect(counted).toEqual({ starts: [1, 2, 2], otherCall: 1, counted: 3 })
    expect(table.winner('a')).toEqual({ outcome: 'failed', status: 200, runAttempt: 1, seq: 2 })
    expect(table.winner('e')?.seq).toBe(3)
    expect(table.winner('c')).toBeUndefined()
    expect(warnings).toEqual([
      `1 result line is of another call (another method, path, body or base-url) and is not counted, in 1 file: "${a}"`
    ])
  })

  it('counts the first call read when none is given, and it is the one most lines are of', () => {
    file('a.jsonl', [line('p', 'planned', { call: OTHER }), line('a'), line('x', 'succeeded', { call: OTHER })])
    file('b.jsonl', [line('b'), line('c')])
    const { survey, table, counted, warnings, infos } = bothCounts(undefined)
    expect(survey.fingerprint).toBe(FP)
    expect(survey.counted).toEqual(counted)
    expect(counted).toEqual({ starts: [1, 2], otherCall: 1, counted: 3 })
    expect(table.keys).toBe(3)
    // The choice is said before the lines of the other call are.
    expect(infos).toEqual([
      `The report is of call ${FP}, the call of 3 of 4 result lines (give the step's call input to choose it)`
    ])
    expect(warnings).toHaveLength(1)
  })

  it('leaves the count to countLines when the call chosen is not the first one read', () => {
    file('a.jsonl', [line('x', 'succeeded', { call: OTHER }), line('a')])
    file('b.jsonl', [line('b'), line('c')])
    const { survey, counted, warnings } = bothCounts(undefined)
    expect(survey.fingerprint).toBe(FP)
    expect(survey.counted).toBeUndefined()
    expect(counted).toEqual({ starts: [1, 2], otherCall: 1, counted: 3 })
    expect(warnings).toEqual([])
  })

  it('leaves the count to countLines when a file found unreadable had lines counted', () => {
    file('a.jsonl', [line('a')])
    const bad = file('b.jsonl', [line('b'), 'not json'])
    const { survey, counted } = bothCounts(FP)
    expect(survey.unreadable).toEqual([bad])
    expect(survey.counted).toBeUndefined()
    expect(counted).toEqual({ starts: [1], otherCall: 0, counted: 1 })
  })

  it('keeps counting past a file found unreadable before any of its lines was counted, and not its lines of another call', () => {
    const bad = file('a.jsonl', [line('x', 'succeeded', { call: OTHER }), 'not json'])
    file('b.jsonl', [line('a'), line('b')])
    const { survey, counted, warnings } = bothCounts(FP)
    expect(survey.unreadable).toEqual([bad])
    expect(survey.counted).toEqual(counted)
    expect(counted).toEqual({ starts: [1], otherCall: 0, counted: 2 })
    expect(warnings).toHaveLength(1)
  })

  it('counts nothing, and says so in no warning, when no file has a line of a call', () => {
    file('a.jsonl', [line('p', 'planned')])
    const { survey, table, warnings } = bothCounts(undefined)
    expect(survey.counted).toEqual({ starts: [1], otherCall: 0, counted: 0 })
    expect(table.keys).toBe(0)
    expect(warnings).toEqual([])
  })

  it('makes room once, after the first file with lines, for the lines the files hold at its rate', () => {
    file('a.jsonl', [])
    const b = file('b.jsonl', [line('a'), line('b')])
    file('c.jsonl', [line('c'), line('d'), line('e'), line('f')])
    const reserved: number[] = []
    const table = new (class extends WinnerTable {
      reserve(keys: number): void {
        reserved.push(keys)
        super.reserve(keys)
      }
    })()
    surveyResults(results, FP, recorder().log, undefined, table)
    // b's 2 lines in its bytes; the files hold three times as many bytes: room for 6.
    expect(statSync(join(results, 'c.jsonl')).size).toBe(2 * statSync(b).size)
    expect(reserved).toEqual([6])
  })
})
