import { counted, notDoneCount, outcomeWords } from '../../src/routine/outcome-words.js'

const map = (entries: [string, number][]): Map<string, number> => new Map(entries)

describe('outcomeWords', () => {
  it.each<[string, [string, number][], string]>([
    [
      'leaves zero counts out',
      [
        ['succeeded', 10],
        ['failed', 0],
        ['not-made', 0]
      ],
      '10 succeeded'
    ],
    [
      'gives every outcome in one order, whatever the map’s',
      [
        ['planned', 1],
        ['skipped', 2],
        ['missing', 3],
        ['not-made', 4],
        ['unknown', 5],
        ['failed', 6],
        ['succeeded', 7]
      ],
      '7 succeeded, 6 failed, 5 unknown, 4 not made, 3 missing, 2 skipped (done in an earlier attempt), 1 planned'
    ],
    ['writes thousands with commas', [['succeeded', 12_345]], '12,345 succeeded'],
    ['says so when there is no target', [], 'no target'],
    ['ignores what is not an outcome', [['other', 3]], 'no target']
  ])('%s', (_, entries, words) => {
    expect(outcomeWords(map(entries))).toBe(words)
  })

  it('adds the failed calls by status, most first, zeros left out', () => {
    const statuses = map([
      ['HTTP 503', 1],
      ['HTTP 500', 3],
      ['HTTP 502', 0]
    ])
    expect(
      outcomeWords(
        map([
          ['succeeded', 6],
          ['failed', 4]
        ]),
        statuses
      )
    ).toBe('6 succeeded, 4 failed (HTTP 500: 3, HTTP 503: 1)')
    expect(outcomeWords(map([['failed', 4]]), new Map())).toBe('4 failed')
    expect(outcomeWords(map([['succeeded', 4]]), statuses)).toBe('4 succeeded')
  })
})

describe('notDoneCount', () => {
  it('counts failed, unknown, not made and missing only', () => {
    const counts = map([
      ['succeeded', 100],
      ['skipped', 50],
      ['planned', 7],
      ['failed', 1],
      ['unknown', 2],
      ['not-made', 4],
      ['missing', 8]
    ])
    expect(notDoneCount(counts)).toBe(15)
    expect(notDoneCount(new Map())).toBe(0)
  })
})

describe('counted', () => {
  it.each<[number, string]>([
    [0, '0 calls'],
    [1, '1 call'],
    [2, '2 calls'],
    [1500, '1,500 calls']
  ])('%i', (n, text) => {
    expect(counted(n, 'call')).toBe(text)
  })
})
