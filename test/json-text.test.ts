import { nestsDeeperThan, stringEnd, topLevelKeys } from '../src/json-text.js'

const nested = (depth: number, inner = '') => `${'['.repeat(depth)}${inner}${']'.repeat(depth)}`

describe('stringEnd', () => {
  it.each([
    ['a plain string', '"abc"', 0, 4],
    ['an escaped quote', 'x"a\\"b"', 1, 6],
    ['an escaped backslash before the end', '"a\\\\"b"', 0, 4],
    ['an escaped backslash, then an escaped quote', '"a\\\\\\"b"', 0, 7],
    ['only an escaped backslash', '"\\\\"', 0, 3],
    ['an empty string', 'x""', 1, 2],
    ['no end but an escaped quote', '"a\\"', 0, -1],
    ['no end', '"abc', 0, -1],
    ['the second string of an array', '["a","b"]', 5, 7]
  ])('finds where %s ends', (_, text, open, end) => {
    expect(stringEnd(text, open)).toBe(end)
  })

  it('finds the end of a string of megabytes, however it is escaped', () => {
    const escapes = `"${'\\n'.repeat(4_000_000)}"`
    expect(stringEnd(escapes, 0)).toBe(escapes.length - 1)
  })
})

describe('nestsDeeperThan', () => {
  it.each([
    ['3 arrays, 3 levels', nested(3), 3, false],
    ['4 arrays, 3 levels', nested(4), 3, true],
    ['objects and an array, 2 levels', '{"a":{"b":[1]}}', 2, true],
    ['objects and an array, 3 levels', '{"a":{"b":[1]}}', 3, false],
    ['brackets in a string', '{"a":"[[[[[[[[[["}', 1, false],
    ['brackets side by side', '[1],[2],[3],[4]', 1, false],
    ['brackets after a string that does not end', `"${'['.repeat(300)}`, 1, false],
    ['70 objects, 64 levels', `${'{"a":'.repeat(70)}1${'}'.repeat(70)}`, 64, true],
    ['64 arrays, 64 levels', nested(64), 64, false],
    ['65 arrays, 64 levels', nested(65), 64, true],
    ['6,000 arrays, 64 levels', nested(6000), 64, true]
  ])('%s: %p', (_, text, levels, deeper) => {
    expect(nestsDeeperThan(text, levels)).toBe(deeper)
  })

  it('answers at once for text too short to nest that deep, even unclosed', () => {
    expect(nestsDeeperThan('['.repeat(9), 4)).toBe(false)
    expect(nestsDeeperThan('['.repeat(10), 4)).toBe(true)
  })
})

describe('topLevelKeys', () => {
  it.each([
    ['{}', []],
    ['{"a":1,"b":{"c":2,"d":[{"e":3}]},"f":"g:h"}', ['a', 'b', 'f']],
    ['{ "a" : 1 ,\n\t"b"\r\n:2}', ['a', 'b']],
    ['{"a":1,"a":2}', ['a', 'a']],
    ['{"\\u006bey":1,"k\\"":2,"x\\\\":3}', ['key', 'k"', 'x\\']],
    ['{"a":["b","c"],"d":"e"}', ['a', 'd']]
  ])('reads the keys of %s', (text, keys) => {
    expect(topLevelKeys(text)).toEqual(keys)
    expect(Object.keys(JSON.parse(text) as object)).toEqual([...new Set(keys)])
  })

  it('stops at a string that does not close', () => {
    expect(topLevelKeys('{"a":1,"b')).toEqual(['a'])
  })
})
