import { parseExact } from '../../src/json.js'
import { hasId, isTargetObject, targetKey } from '../../src/targets/key.js'

describe('targetKey', () => {
  it.each([
    [{ id: 'abc', name: 'x' }, 'abc'],
    [{ id: 42 }, '42'],
    [{ id: '' }, ''],
    [{ id: { nested: 1 }, name: 'x' }, '{"id":{"nested":1},"name":"x"}'],
    [{ id: true }, '{"id":true}'],
    [{ name: 'no id' }, '{"name":"no id"}'],
    ['plain-string', '"plain-string"'],
    [7, '7'],
    [null, 'null'],
    [undefined, 'null'],
    [['a'], '["a"]'],
    [[{ id: 'in-array' }], '[{"id":"in-array"}]']
  ])('%j -> %s', (target, key) => {
    expect(targetKey(target)).toBe(key)
  })

  it('keeps a number id as the text it was sent as', () => {
    expect(targetKey(parseExact('{"id":9007199254740993}'))).toBe('9007199254740993')
    expect(targetKey(parseExact('{"id":1.50}'))).toBe('1.50')
  })
})

describe('hasId', () => {
  it.each([
    [{ id: 'a' }, true],
    [{ id: '' }, true],
    [{ id: 0 }, true],
    [parseExact('{"id":9007199254740993}'), true],
    [{ id: null }, false],
    [{ id: { x: 1 } }, false],
    [{ id: ['a'] }, false],
    [{ name: 'a' }, false],
    [[{ id: 'a' }], false],
    ['a', false],
    [null, false]
  ])('%j -> %s', (target, expected) => {
    expect(hasId(target)).toBe(expected)
  })
})

describe('isTargetObject', () => {
  it('holds for an object with fields, not for an array, a number kept as sent, null or a scalar', () => {
    const [raw] = parseExact('[9007199254740993]') as unknown[]
    expect([{ id: 'a' }, {}].map(isTargetObject)).toEqual([true, true])
    expect([[], raw, null, 'a', 7, true, undefined].map(isTargetObject)).toEqual([
      false,
      false,
      false,
      false,
      false,
      false,
      false
    ])
  })
})
