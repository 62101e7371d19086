import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { parseExact } from '../../src/json.js'
import { targetKey } from '../../src/targets/key.js'
import fc from 'fast-check'
import { fmix32, fnv1a32, MAX_SHARDS, parseShard, shardCount, shardList, shardOf } from '../../src/targets/shards.js'

/** FNV-1a over the bytes Node's own UTF-8 encoder gives: the reference our inline encoder must match. */
function fnvOfBytes(text: string): number {
  let hash = 0x811c9dc5
  for (const b of Buffer.from(text, 'utf8')) hash = Math.imul(hash ^ b, 0x01000193)
  return hash >>> 0
}

const targets = Array.from({ length: 10_000 }, (_, i) => ({ id: `tgt-${i}`, name: `target ${i}` }))

describe('shard assignment over 10,000 targets and 20 shards', () => {
  const shards = Array.from({ length: 20 }, (_, k) => targets.filter(t => shardOf(t, 20) === k + 1))

  it('puts every target in exactly one shard', () => {
    const seen = new Map<string, number>()
    for (const shard of shards) for (const t of shard) seen.set(t.id, (seen.get(t.id) ?? 0) + 1)
    expect(seen.size).toBe(targets.length)
    expect([...seen.values()].every(n => n === 1)).toBe(true)
  })

  it('keeps the shards near 500 each', () => {
    for (const shard of shards) {
      expect(shard.length).toBeGreaterThan(420)
      expect(shard.length).toBeLessThan(580)
    }
  })

  it('does not depend on order or on the other targets', () => {
    const reversed = [...targets].reverse().filter(t => shardOf(t, 20) === 7)
    expect(reversed.map(t => t.id).sort()).toEqual(shards[6].map(t => t.id).sort())
    const alone = { id: 'tgt-4242', name: 'renamed, other fields' }
    expect(shardOf(alone, 20)).toBe(shardOf(targets[4242], 20))
  })
})

describe('shardOf', () => {
  it('assigns a target by its id alone, whatever else it holds', () => {
    expect(shardOf({ id: 'x-1', v: 1 }, 97)).toBe(shardOf({ id: 'x-1', v: 2, more: true }, 97))
  })
})

describe('the hash', () => {
  it.each([
    ['', 0x811c9dc5],
    ['a', 0xe40c292c],
    ['foobar', 0xbf9cf968]
  ])('FNV-1a 32 of %j is the published value', (text, hash) => {
    expect(fnv1a32(text)).toBe(hash)
  })

  it('hashes the UTF-8 bytes, as Buffer encodes them, for any string', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), text => fnv1a32(text) === fnvOfBytes(text)),
      { numRuns: 2000 }
    )
    for (const text of ['ü', '✓', '😀', 'a\ud800b', '\udc00', 'tgt-ü-1', 'abc😀x', 'key\udc00'])
      expect(fnv1a32(text)).toBe(fnvOfBytes(text))
  })

  // Each at an edge of the encoder: the last and first code point of a UTF-8 length, a surrogate
  // beside a character it must not pair with, and the last surrogate, which encodes as U+FFFD.
  it.each([
    ['\u007f', '7f'],
    ['\u0080', 'c280'],
    ['\u07ff', 'dfbf'],
    ['\u0800', 'e0a080'],
    ['\uffff', 'efbfbf'],
    ['\u{10000}', 'f0908080'],
    ['\u{10ffff}', 'f48fbfbf'],
    ['\udfff', 'efbfbd'],
    ['\udbff\udfff', 'f48fbfbf'],
    ['\u00fc\udc00', 'c3bcefbfbd'],
    ['\udc00\udc00', 'efbfbdefbfbd'],
    ['\ud800\ue000', 'efbfbdee8080'],
    ['\ud800', 'efbfbd']
  ])('hashes %j as the UTF-8 bytes %s', (text, hex) => {
    expect(Buffer.from(text, 'utf8').toString('hex')).toBe(hex)
    expect(fnv1a32(text)).toBe(fnvOfBytes(text))
  })

  it('finalises with MurmurHash3 fmix32', () => {
    expect(fmix32(0)).toBe(0)
    expect(fmix32(1)).toBe(0x514e28b7)
  })

  it('gives a shard from 1 to N for any target', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.integer({ min: 1, max: 256 }), (target, n) => {
        const k = shardOf(target, n)
        return Number.isInteger(k) && k >= 1 && k <= n
      })
    )
  })
})

describe('shard counts and the shards output', () => {
  it.each([
    [0, 100, 0],
    [1, 100, 1],
    [100, 100, 1],
    [101, 100, 2],
    [10_240, 512, 20],
    [25_600, 100, 256],
    [1_000_000, 100, MAX_SHARDS]
  ])('%d targets in shards of %d -> %d shards', (count, size, shards) => {
    expect(shardCount(count, size)).toBe(shards)
  })

  it('lists K/N entries, and nothing for an empty listing', () => {
    expect(shardList(3)).toEqual(['1/3', '2/3', '3/3'])
    expect(shardList(0)).toEqual([])
    expect(shardList(256)).toHaveLength(256)
    expect(shardList(256)[255]).toBe('256/256')
  })

  it.each(['0/5', '6/5', '3', '1/257', '/5', '1/', 'x/5', 'x3/20', '1003/20', '3/20x', '3/2000', '3x/20', '3/x20'])(
    'refuses the shard %j',
    text => {
      expect(parseShard(text)).toBeUndefined()
    }
  )

  it('reads K/N', () => {
    expect(parseShard('3/20')).toEqual({ index: 3, count: 20 })
    expect(parseShard('1/5')).toEqual({ index: 1, count: 5 })
    expect(parseShard(' 3 / 20 ')).toEqual({ index: 3, count: 20 })
    expect(parseShard('256/256')).toEqual({ index: 256, count: 256 })
  })
})

describe("the shard contract's Python reference (docs/fan-out.md)", () => {
  const contract = readFileSync('docs/fan-out.md', 'utf8')
  const reference = /```python\n([\s\S]*?)```/.exec(contract)?.[1] ?? ''
  const ids = [
    '9007199254740993',
    '9007199254740992',
    '1234567890123456789',
    '-42',
    '-0',
    '2.50',
    '1e400',
    '1E-7',
    '"host-ü"'
  ]
  const N = 7

  it('gives the same shard as the action for big, negative, fractional and exponent ids', () => {
    expect(reference).toContain('def shard_of(key: str, n: int) -> int:')
    // The README's way: json.loads with parse_int=str and parse_float=str keeps each id's text.
    const script = `${reference}
import json, sys
for line in sys.stdin:
    target = json.loads(line, parse_int=str, parse_float=str)
    print(shard_of(target["id"], ${N}))
`
    const input = ids.map(id => `{"id": ${id}}`).join('\n') + '\n'
    const python = execFileSync('python3', ['-c', script], { input, encoding: 'utf8' }).trim().split('\n').map(Number)
    const action = ids.map(id => shardOf(parseExact(`{"id":${id}}`), N))
    expect(python).toEqual(action)
    // and the two ids a double cannot tell apart are told apart
    expect(targetKey(parseExact('{"id":9007199254740993}'))).toBe('9007199254740993')
    expect(targetKey(parseExact('{"id":9007199254740992}'))).toBe('9007199254740992')
  })
})
