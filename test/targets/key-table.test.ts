import { keyHash, KeyTable } from '../../src/targets/key-table.js'
import { fnv1a32 } from '../../src/targets/shards.js'

describe('KeyTable', () => {
  it('has nothing for a key never set, and zeroed words for a new one', () => {
    const table = new KeyTable(3)
    expect(table.size).toBe(0)
    expect(table.get('a')).toBeUndefined()
    const { words, fresh } = table.slot('a')
    expect(fresh).toBe(true)
    expect([...words]).toEqual([0, 0, 0])
    expect(table.size).toBe(1)
  })

  it('gives back the words set for a key, and the same slot again, not fresh', () => {
    const table = new KeyTable(2)
    const a = table.slot('a').words
    a[0] = 7
    a[1] = 0xffffffff
    table.slot('b').words[0] = 9
    expect([...(table.get('a') ?? [])]).toEqual([7, 0xffffffff])
    expect([...(table.get('b') ?? [])]).toEqual([9, 0])
    const again = table.slot('a')
    expect(again.fresh).toBe(false)
    expect([...again.words]).toEqual([7, 0xffffffff])
    expect(table.size).toBe(2)
  })

  it('takes a hash computed once by the caller', () => {
    const table = new KeyTable(1)
    const hash = keyHash('k')
    table.slot('k', hash).words[0] = 5
    expect(table.get('k', hash)?.[0]).toBe(5)
    expect(table.get('k')?.[0]).toBe(5)
  })

  it('tells keys apart whose hashes land in the same place', () => {
    // With only one of the two hashes equal, the keys are still two.
    const table = new KeyTable(1)
    table.slot('x', { first: 1, second: 2 }).words[0] = 1
    table.slot('y', { first: 1, second: 3 }).words[0] = 2
    table.slot('z', { first: 4, second: 2 }).words[0] = 3
    expect(table.size).toBe(3)
    expect(table.get('x', { first: 1, second: 2 })?.[0]).toBe(1)
    expect(table.get('y', { first: 1, second: 3 })?.[0]).toBe(2)
    expect(table.get('z', { first: 4, second: 2 })?.[0]).toBe(3)
    expect(table.get('w', { first: 4, second: 3 })).toBeUndefined()
  })

  it('keeps every value as it grows past 1,024 entries', () => {
    const table = new KeyTable(2)
    const n = 5000
    for (let i = 0; i < n; i++) {
      const { words, fresh } = table.slot(`key-${i}`)
      expect(fresh).toBe(true)
      words[0] = i
      words[1] = i * 3 + 1
    }
    expect(table.size).toBe(n)
    for (let i = 0; i < n; i++) expect([...(table.get(`key-${i}`) ?? [])]).toEqual([i, i * 3 + 1])
    for (let i = 0; i < n; i++) expect(table.slot(`key-${i}`).fresh).toBe(false)
    expect(table.get(`key-${n}`)).toBeUndefined()
    expect(table.size).toBe(n)
  })

  it.each([511, 512, 513, 1023, 1024, 1025])('keeps every value at %i entries, around where it grows', n => {
    const table = new KeyTable(1)
    for (let i = 0; i < n; i++) table.slot(String(i)).words[0] = i + 1
    for (let i = 0; i < n; i++) expect(table.get(String(i))?.[0]).toBe(i + 1)
    expect(table.size).toBe(n)
  })

  it('gives a view of width words for each key', () => {
    const table = new KeyTable(4)
    table.slot('a').words.set([1, 2, 3, 4])
    table.slot('b').words.set([5, 6, 7, 8])
    expect(table.get('a')).toHaveLength(4)
    expect([...(table.get('a') ?? [])]).toEqual([1, 2, 3, 4])
    expect([...(table.get('b') ?? [])]).toEqual([5, 6, 7, 8])
  })
})

describe('keyHash', () => {
  it('is FNV-1a of the key and a second hash, both unsigned 32-bit, stable', () => {
    const hash = keyHash('target-1')
    expect(hash.first).toBe(fnv1a32('target-1'))
    expect(keyHash('target-1')).toEqual(hash)
    expect(keyHash('')).toEqual({ first: 0x811c9dc5, second: 0x9747b28c })
    // Golden values: a record read by another version of the action must hash its keys alike.
    expect(keyHash('a').second).toBe(0xa1109ad2)
    expect(keyHash('target-1').second).toBe(0x993f9c10)
    expect(keyHash('é').second).toBe(0xd98c72d2)
    for (const key of ['', 'a', 'target-1', 'é', '\u{1f600}', 'x'.repeat(1000)]) {
      const { first, second } = keyHash(key)
      for (const h of [first, second]) {
        expect(Number.isInteger(h)).toBe(true)
        expect(h).toBeGreaterThanOrEqual(0)
        expect(h).toBeLessThanOrEqual(0xffffffff)
      }
    }
  })

  it('differs for different keys, in both hashes', () => {
    const keys = ['a', 'b', 'ab', 'ba', 'target-1', 'target-2', '1', '01', '{"id":1}', 'é', 'e']
    const firsts = new Set(keys.map(k => keyHash(k).first))
    const seconds = new Set(keys.map(k => keyHash(k).second))
    expect(firsts.size).toBe(keys.length)
    expect(seconds.size).toBe(keys.length)
  })
})
