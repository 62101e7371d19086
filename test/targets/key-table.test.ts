import { processKeyedHash } from '../../src/targets/keyed-hash.js'
import { KeyHash, keyHash, KeyTable } from '../../src/targets/key-table.js'
import { fmix32, fnv1a32 } from '../../src/targets/shards.js'

/** The words of a key, copied, or undefined. */
const wordsOf = (table: KeyTable, hash: KeyHash, width: number): number[] | undefined => {
  const at = table.find(hash)
  return at < 0 ? undefined : [...table.words.subarray(at, at + width)]
}

/** Adds a key with these words. */
const put = (table: KeyTable, hash: KeyHash, words: number[]): boolean => {
  const at = table.add(hash)
  const { fresh } = table
  table.words.set(words, at)
  return fresh
}

describe('KeyTable', () => {
  it('has nothing for a key never set, and zeroed words for a new one', () => {
    const table = new KeyTable(3)
    expect(table.size).toBe(0)
    expect(table.find(keyHash('a'))).toBe(-1)
    const at = table.add(keyHash('a'))
    expect(table.fresh).toBe(true)
    expect([...table.words.subarray(at, at + 3)]).toEqual([0, 0, 0])
    expect(table.size).toBe(1)
    expect(table.find(keyHash('a'))).toBe(at)
  })

  it('gives back the words set for a key, and the same words again, not fresh', () => {
    const table = new KeyTable(2)
    expect(put(table, keyHash('a'), [7, 0xffffffff])).toBe(true)
    expect(put(table, keyHash('b'), [9, 0])).toBe(true)
    expect(wordsOf(table, keyHash('a'), 2)).toEqual([7, 0xffffffff])
    expect(wordsOf(table, keyHash('b'), 2)).toEqual([9, 0])
    const at = table.add(keyHash('a'))
    expect(table.fresh).toBe(false)
    expect([...table.words.subarray(at, at + 2)]).toEqual([7, 0xffffffff])
    expect(table.size).toBe(2)
  })

  it('tells keys apart whose hashes land in the same place', () => {
    // With only one of the two hashes equal, the keys are still two.
    const table = new KeyTable(1)
    put(table, { shard: 1, first: 1, second: 2 }, [1])
    put(table, { shard: 1, first: 1, second: 3 }, [2])
    put(table, { shard: 1, first: 4, second: 2 }, [3])
    expect(table.size).toBe(3)
    expect(wordsOf(table, { shard: 1, first: 1, second: 2 }, 1)).toEqual([1])
    expect(wordsOf(table, { shard: 1, first: 1, second: 3 }, 1)).toEqual([2])
    expect(wordsOf(table, { shard: 1, first: 4, second: 2 }, 1)).toEqual([3])
    expect(table.find({ shard: 1, first: 4, second: 3 })).toBe(-1)
  })

  it('holds a key whose hashes are both 0, which an empty slot has, as the key of hashes 0 and 1', () => {
    // An empty slot is one whose hashes are both 0: the key that hashes to that is stored as (0, 1),
    // one more pair a key could collide with, at the same odds as any other.
    const table = new KeyTable(1)
    const zero = { shard: 0, first: 0, second: 0 }
    expect(table.find(zero)).toBe(-1)
    expect(put(table, zero, [5])).toBe(true)
    expect(table.size).toBe(1)
    expect(wordsOf(table, zero, 1)).toEqual([5])
    expect(put(table, zero, [6])).toBe(false)
    expect(table.add({ shard: 0, first: 0, second: 1 })).toBe(table.find(zero))
    expect(table.fresh).toBe(false)
    expect(table.size).toBe(1)
    // A key of hashes (1, 0) is another key.
    expect(put(table, { shard: 0, first: 1, second: 0 }, [7])).toBe(true)
    expect(wordsOf(table, zero, 1)).toEqual([6])
    // What was added keeps its place as the part grows.
    for (let i = 2; i < 100; i++) put(table, { shard: 0, first: 0, second: i }, [i])
    expect(wordsOf(table, zero, 1)).toEqual([6])
    expect(wordsOf(table, { shard: 0, first: 1, second: 0 }, 1)).toEqual([7])
    expect(table.size).toBe(100)
  })

  it('keeps every value as it grows, one part at a time', () => {
    const table = new KeyTable(2)
    const n = 5000
    const slotsAtStart = table.slots
    for (let i = 0; i < n; i++) {
      expect(put(table, keyHash(`key-${i}`), [i, i * 3 + 1])).toBe(true)
    }
    expect(table.size).toBe(n)
    expect(table.slots).toBeGreaterThan(slotsAtStart)
    for (let i = 0; i < n; i++) expect(wordsOf(table, keyHash(`key-${i}`), 2)).toEqual([i, i * 3 + 1])
    for (let i = 0; i < n; i++) {
      table.add(keyHash(`key-${i}`))
      expect(table.fresh).toBe(false)
    }
    expect(table.find(keyHash(`key-${n}`))).toBe(-1)
    expect(table.size).toBe(n)
  })

  it('keeps a part at most 3/4 full, growing it by twice', () => {
    // Keys of one part (the shard hash's shard of 256 is 0): 16 slots hold 12, the 13th doubles them.
    const table = new KeyTable(1)
    const start = table.slots
    const inPart = Array.from({ length: 2000 }, (_, i) => i)
      .filter(i => (fmix32(i) & 255) === 0)
      .slice(0, 13)
    inPart.slice(0, 12).forEach((first, i) => put(table, { shard: first, first, second: i + 1 }, [i]))
    expect(table.slots).toBe(start)
    put(table, { shard: inPart[12], first: inPart[12], second: 99 }, [12])
    expect(table.slots).toBe(start + 16)
    inPart.forEach((first, i) =>
      expect(wordsOf(table, { shard: first, first, second: i === 12 ? 99 : i + 1 }, 1)).toEqual([i])
    )
  })

  it('makes room at once for the keys to come, its parts no more than 3/4 full, and keeps what it holds', () => {
    const table = new KeyTable(2)
    put(table, keyHash('kept'), [1, 2])
    table.reserve(100_000)
    const slots = table.slots
    // A part's share is 390.6, with four standard deviations (79.1) and 8 more 477.7: over 3/4, 637 slots.
    expect(slots).toBe(256 * 637)
    expect(wordsOf(table, keyHash('kept'), 2)).toEqual([1, 2])
    for (let i = 0; i < 100_000; i++) put(table, keyHash(`t-${i}`), [i, 0])
    expect(table.slots).toBe(slots)
    expect(table.size).toBe(100_001)
    for (let i = 0; i < 100_000; i += 997) expect(wordsOf(table, keyHash(`t-${i}`), 2)).toEqual([i, 0])
    // Room is never taken back.
    table.reserve(10)
    expect(table.slots).toBe(slots)
  })

  it('empties, keeping its room', () => {
    const table = new KeyTable(1)
    table.reserve(10_000)
    const slots = table.slots
    for (let i = 0; i < 100; i++) put(table, keyHash(`k${i}`), [i + 1])
    table.clear()
    expect(table.size).toBe(0)
    expect(table.slots).toBe(slots)
    expect(table.find(keyHash('k1'))).toBe(-1)
    expect(put(table, keyHash('k1'), [0])).toBe(true)
    expect(table.size).toBe(1)
  })

  it('gives a view of width words for each key', () => {
    const table = new KeyTable(4)
    put(table, keyHash('a'), [1, 2, 3, 4])
    put(table, keyHash('b'), [5, 6, 7, 8])
    expect(wordsOf(table, keyHash('a'), 4)).toEqual([1, 2, 3, 4])
    expect(wordsOf(table, keyHash('b'), 4)).toEqual([5, 6, 7, 8])
  })
})

// Two keys a listing could hold, made to collide under FNV-1a and under the multiplicative hash
// the table once took for the key's identity (a Joux multicollision, then a birthday: about a
// second of CPU): the report took one for the other.
const COLLIDING = [
  'host-6ishl2ymnayxvhbxkg3x5om2tjcw6d0zpnx6ax8v4u7zpbbwvl7i4srf3uen13hrf6e1o5obpo19vjgborgec5dt5u',
  'host-6ishl2ymnaodhr8wka5o160ugjcw6dij6x16ax8v4u7zpbbwvldun5uf3uen13hrfxofidobpo1apfuborgecfsfgw'
]

describe('keyHash', () => {
  it("is the key's FNV-1a for its shard, and its keyed hash, unsigned 32-bit halves", () => {
    const hash = keyHash('target-1')
    expect(hash.shard).toBe(fnv1a32('target-1'))
    expect(keyHash('target-1')).toEqual(hash)
    const keyed = processKeyedHash()
    keyed.hash('target-1')
    expect([hash.first, hash.second]).toEqual([keyed.low, keyed.high])
    for (const key of ['', 'a', 'target-1', 'é', '\u{1f600}', 'x'.repeat(1000)]) {
      const { shard, first, second } = keyHash(key)
      expect(shard).toBe(fnv1a32(key))
      for (const h of [shard, first, second]) {
        expect(Number.isInteger(h)).toBe(true)
        expect(h).toBeGreaterThanOrEqual(0)
        expect(h).toBeLessThanOrEqual(0xffffffff)
      }
    }
  })

  it('gives the shard hash of UTF-8 for a key with and without units past ASCII', () => {
    for (const key of ['aé', 'ab', 'é-1', 'e-1', 'a\u{1f600}b']) expect(keyHash(key).shard).toBe(fnv1a32(key))
  })

  it('differs for different keys, in both halves', () => {
    const keys = ['a', 'b', 'ab', 'ba', 'target-1', 'target-2', '1', '01', '{"id":1}', 'é', 'e']
    const firsts = new Set(keys.map(k => keyHash(k).first))
    const seconds = new Set(keys.map(k => keyHash(k).second))
    expect(firsts.size).toBe(keys.length)
    expect(seconds.size).toBe(keys.length)
  })

  it('tells apart two keys made to share their public hashes, and the table keeps both', () => {
    const [a, b] = COLLIDING.map(keyHash)
    expect(a.shard).toBe(b.shard)
    expect([a.first, a.second]).not.toEqual([b.first, b.second])
    const table = new KeyTable(1)
    put(table, a, [1])
    expect(put(table, b, [2])).toBe(true)
    expect(wordsOf(table, a, 1)).toEqual([1])
    expect(wordsOf(table, b, 1)).toEqual([2])
  })
})
