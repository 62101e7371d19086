import {
  MAX_WAVES,
  parseSize,
  parseWaveSizes,
  planWaves,
  RankList,
  sizeText,
  waveCounts,
  waveRank
} from '../../src/routine/waves.js'
import { fmix32, fnv1a32 } from '../../src/targets/shards.js'

describe('parseWaveSizes', () => {
  it.each([
    ['1, 5%, 25%, 100%', [{ count: 1 }, { percent: 5 }, { percent: 25 }, { percent: 100 }]],
    ['10', [{ count: 10 }]],
    [' 0.5 %,2', [{ percent: 0.5 }, { count: 2 }]],
    ['100.00%', [{ percent: 100 }]]
  ])('reads %j', (text, sizes) => {
    expect(parseWaveSizes(text)).toEqual(sizes)
  })

  it.each(['', ',', '1,', '0', '-1', '01', '1.5', '0%', '100.01%', '101%', '5 %%', 'x', '1000000000', '1.234%'])(
    'refuses %j',
    text => {
      expect(parseWaveSizes(text)).toBeUndefined()
    }
  )

  it('reads one size', () => {
    expect(parseSize('999999999')).toEqual({ count: 999999999 })
    expect(parseSize('100%')).toEqual({ percent: 100 })
    expect(sizeText({ count: 1500 })).toBe('1,500')
    expect(sizeText({ percent: 2.5 })).toBe('2.5%')
  })
})

describe('waveCounts', () => {
  it('gives each wave its size, the last repeating, a percentage rounded up, never more than is left', () => {
    expect(waveCounts([{ count: 1 }, { percent: 10 }, { percent: 100 }], 1000)).toEqual([1, 100, 899])
    expect(waveCounts([{ count: 1 }, { percent: 10 }], 25)).toEqual([1, 3, 3, 3, 3, 3, 3, 3, 3])
    expect(waveCounts([{ percent: 0.01 }, { percent: 100 }], 50)).toEqual([1, 49])
    expect(waveCounts([{ count: 500 }], 40)).toEqual([40])
    expect(waveCounts([{ count: 1 }], 0)).toEqual([])
  })

  it('stops counting just past the most waves allowed', () => {
    expect(waveCounts([{ count: 1 }], 10_000)).toHaveLength(MAX_WAVES + 1)
    expect(waveCounts([{ count: 1 }], MAX_WAVES)).toHaveLength(MAX_WAVES)
  })
})

describe('planWaves', () => {
  const ranksOf = (keys: string[]) => {
    const list = new RankList()
    for (const key of keys) list.add(waveRank(key))
    return list.values()
  }

  it('ranks by a hash of the key, not the shard hash, and not by place in the list', () => {
    expect(waveRank('t-001')).toBe(fmix32((fnv1a32('t-001') ^ 0x9e3779b9) >>> 0))
    expect(waveRank('t-001')).not.toBe(fmix32(fnv1a32('t-001')))
    const keys = Array.from({ length: 1000 }, (_, i) => `t-${i}`)
    const plan = planWaves(ranksOf(keys), [1, 100, 899])
    const first = [...plan.waveOf].indexOf(1)
    expect(plan.waveOf.filter(w => w === 1)).toHaveLength(1)
    expect(plan.waveOf.filter(w => w === 2)).toHaveLength(100)
    expect(plan.waveOf.filter(w => w === 3)).toHaveLength(899)
    // The canary is the lowest rank, wherever it stands in the list.
    const ranks = ranksOf(keys)
    expect(ranks[first]).toBe(Math.min(...ranks))
    // Wave 2 spreads over the list: some of it in each tenth.
    for (let tenth = 0; tenth < 10; tenth++) {
      expect(plan.waveOf.slice(tenth * 100, tenth * 100 + 100).includes(2)).toBe(true)
    }
  })

  it('places the same targets in the same waves whatever the order of the list', () => {
    const keys = Array.from({ length: 300 }, (_, i) => `host-${i}`)
    const forward = planWaves(ranksOf(keys), [5, 50, 245])
    const backward = planWaves(ranksOf([...keys].reverse()), [5, 50, 245])
    keys.forEach((_, i) => expect(backward.waveOf[keys.length - 1 - i]).toBe(forward.waveOf[i]))
  })

  it('breaks ties of rank in list order, filling each wave exactly', () => {
    const ranks = Uint32Array.from([7, 3, 7, 7, 1, 7])
    expect([...planWaves(ranks, [2, 2, 2]).waveOf]).toEqual([2, 1, 2, 3, 1, 3])
    expect([...planWaves(ranks, [3, 3]).waveOf]).toEqual([1, 1, 2, 2, 1, 2])
    expect([...planWaves(Uint32Array.from([5, 5, 5]), [1, 1, 1]).waveOf]).toEqual([1, 2, 3])
  })

  it('leaves the targets past the last wave in none: a canary and the rest', () => {
    const plan = planWaves(Uint32Array.from([40, 10, 30, 20]), [2])
    expect([...plan.waveOf]).toEqual([0, 1, 0, 1])
    expect(plan.counts).toEqual([2])
    expect([...planWaves(new Uint32Array(0), []).waveOf]).toEqual([])
  })

  it('grows its list of ranks past its first size', () => {
    const list = new RankList()
    for (let i = 0; i < 3000; i++) list.add(i)
    expect(list.size).toBe(3000)
    expect(list.values()[2999]).toBe(2999)
    expect(() => planWaves(list.values(), Array(256).fill(1))).toThrow('At most 255 waves')
  })
})
