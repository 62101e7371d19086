import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { countLines, eachWinningLine, fileOf } from '../../src/report/merge-files.js'
import { WinnerTable } from '../../src/report/merge-table.js'
import { keyHash } from '../../src/targets/key-table.js'
import { FP, line, OTHER, recorder, writeResults } from './results-fixture.js'

let dir: string
let results: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'm2m-merge-files-'))
  results = join(dir, 'results')
  mkdirSync(results)
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

const file = (name: string, lines: string[], end = '\n') => writeResults(results, name, lines, end)

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
