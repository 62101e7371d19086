import { REPORT_OUTCOMES, ReportOutcome, WinnerTable } from '../../src/report/merge-table.js'
import { Outcome } from '../../src/routine/lines.js'
import { ResultFacts } from '../../src/routine/result-line.js'
import { keyHash } from '../../src/targets/key-table.js'

const facts = (key: string, outcome: Outcome, status: number | null, runAttempt = 1): ResultFacts => ({
  key,
  call: '0123456789abcdef',
  outcome,
  status,
  runAttempt,
  shard: null
})

describe('REPORT_OUTCOMES', () => {
  it('lists the outcomes of a report in the order the summary counts them', () => {
    expect(REPORT_OUTCOMES).toEqual(['succeeded', 'skipped', 'failed', 'unknown', 'not-made', 'missing'])
  })
})

describe('WinnerTable', () => {
  it.each<[Outcome, number | null, number]>([
    ['succeeded', 200, 1],
    ['skipped', 100, 3],
    ['failed', 999, 262_143],
    ['unknown', null, 2],
    ['not-made', null, 0]
  ])('keeps a line %s, status %p, attempt %p', (outcome, status, runAttempt) => {
    const table = new WinnerTable()
    table.offer(facts('a', outcome, status, runAttempt), 41)
    expect(table.winner('a')).toEqual({ outcome, status, runAttempt, seq: 41 })
    expect(table.winner('a', keyHash('a'))).toEqual({ outcome, status, runAttempt, seq: 41 })
    expect(table.keys).toBe(1)
  })

  it('never takes one key for another made to share its public hashes: a failure stays a failure', () => {
    // FNV-1a and the multiplicative hash the table once keyed by, both equal (test/targets/key-table.test.ts).
    const a = 'host-6ishl2ymnayxvhbxkg3x5om2tjcw6d0zpnx6ax8v4u7zpbbwvl7i4srf3uen13hrf6e1o5obpo19vjgborgec5dt5u'
    const b = 'host-6ishl2ymnaodhr8wka5o160ugjcw6dij6x16ax8v4u7zpbbwvldun5uf3uen13hrfxofidobpo1apfuborgecfsfgw'
    const table = new WinnerTable()
    table.offer(facts(a, 'failed', 500), 1)
    table.offer(facts(b, 'succeeded', 201), 2)
    expect(table.winner(a)).toEqual({ outcome: 'failed', status: 500, runAttempt: 1, seq: 1 })
    expect(table.winner(b)).toEqual({ outcome: 'succeeded', status: 201, runAttempt: 1, seq: 2 })
    expect(table.keys).toBe(2)
  })

  it('lets a later line win unless the earlier one is of a later attempt', () => {
    const table = new WinnerTable()
    table.offer(facts('a', 'failed', 500, 1), 1)
    table.offer(facts('a', 'succeeded', 201, 1), 2)
    expect(table.winner('a')).toEqual({ outcome: 'succeeded', status: 201, runAttempt: 1, seq: 2 })
    table.offer(facts('a', 'unknown', null, 3), 3)
    table.offer(facts('a', 'succeeded', 200, 2), 4)
    expect(table.winner('a')).toEqual({ outcome: 'unknown', status: null, runAttempt: 3, seq: 3 })
    table.offer(facts('a', 'skipped', 200, 4), 5)
    expect(table.winner('a')).toEqual({ outcome: 'skipped', status: 200, runAttempt: 4, seq: 5 })
    expect(table.keys).toBe(1)
  })

  it('keeps an ended line over a skipped one of the same attempt: a canary over the shard that skipped it', () => {
    const table = new WinnerTable()
    table.offer(facts('a', 'succeeded', 201, 1), 1)
    table.offer(facts('a', 'skipped', 201, 1), 2)
    expect(table.winner('a')).toEqual({ outcome: 'succeeded', status: 201, runAttempt: 1, seq: 1 })
    table.offer(facts('b', 'skipped', 201, 1), 3)
    table.offer(facts('b', 'succeeded', 201, 1), 4)
    expect(table.winner('b')).toMatchObject({ outcome: 'succeeded', seq: 4 })
    table.offer(facts('c', 'skipped', 201, 1), 5)
    table.offer(facts('c', 'skipped', 200, 1), 6)
    expect(table.winner('c')).toMatchObject({ outcome: 'skipped', status: 200, seq: 6 })
  })

  it('compares attempts past 262,143 as equal', () => {
    const table = new WinnerTable()
    table.offer(facts('a', 'failed', 500, 300_000), 1)
    table.offer(facts('a', 'succeeded', 200, 262_143), 2)
    expect(table.winner('a')).toEqual({ outcome: 'succeeded', status: 200, runAttempt: 262_143, seq: 2 })
  })

  it('has no winner for a key without a line, listed or not', () => {
    const table = new WinnerTable()
    table.offer(facts('a', 'succeeded', 200), 1)
    expect(table.winner('b')).toBeUndefined()
    expect(table.list(keyHash('b'))).toEqual({ outcome: 'missing', status: null, runAttempt: null, seq: 0 })
    expect(table.winner('b')).toBeUndefined()
    expect(table.winner('b', keyHash('b'))).toBeUndefined()
    expect(table.keys).toBe(2)
  })

  it("lists a key once: its winner, then undefined for the snapshot's repeat", () => {
    const table = new WinnerTable()
    table.offer(facts('a', 'failed', 404, 2), 7)
    const winner = { outcome: 'failed' as ReportOutcome, status: 404, runAttempt: 2, seq: 7 }
    expect(table.list(keyHash('a'))).toEqual(winner)
    expect(table.list(keyHash('a'))).toBeUndefined()
    expect(table.winner('a')).toEqual(winner)
    expect(table.list(keyHash('m'))?.outcome).toBe('missing')
    expect(table.list(keyHash('m'))).toBeUndefined()
  })

  it('takes a hash computed once by the caller, and forgets every line when cleared', () => {
    const table = new WinnerTable()
    table.reserve(1000)
    table.offer(facts('a', 'failed', 500), 3, keyHash('a'))
    expect(table.winner('a')).toEqual({ outcome: 'failed', status: 500, runAttempt: 1, seq: 3 })
    table.clear()
    expect(table.keys).toBe(0)
    expect(table.winner('a')).toBeUndefined()
    table.offer(facts('a', 'succeeded', 200), 1)
    expect(table.winner('a')).toEqual({ outcome: 'succeeded', status: 200, runAttempt: 1, seq: 1 })
  })

  it('keeps many keys apart', () => {
    const table = new WinnerTable()
    for (let i = 0; i < 5000; i++)
      table.offer(facts(`k${i}`, i % 2 ? 'failed' : 'succeeded', 200 + (i % 300), i % 5), i + 1)
    expect(table.keys).toBe(5000)
    for (const i of [0, 1, 2047, 4999]) {
      expect(table.winner(`k${i}`)).toEqual({
        outcome: i % 2 ? 'failed' : 'succeeded',
        status: 200 + (i % 300),
        runAttempt: i % 5,
        seq: i + 1
      })
    }
  })
})
