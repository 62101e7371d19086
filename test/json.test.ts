import fc from 'fast-check'
import { isRawNumber, numberText, parseExact, parseJsonObject, RawNumber } from '../src/json.js'

describe('parseJsonObject', () => {
  it.each([
    ['{"a":1}', { a: 1 }],
    ['{}', {}],
    ['[1]', null],
    ['null', null],
    ['"text"', null],
    ['42', null],
    ['{"a":', undefined],
    ['', undefined],
    ['<html>', undefined]
  ])('%j -> %j', (text, result) => {
    expect(parseJsonObject(text)).toEqual(result)
  })
})

describe('parseExact', () => {
  it.each([
    '9007199254740993',
    '1234567890123456789',
    '-9223372036854775808',
    '1e400',
    '1E5',
    '2.50',
    '-0',
    '0.1000000000000000055511151231257827'
  ])('keeps %s as written', text => {
    const parsed = parseExact(`{"id":${text}}`) as { id: unknown }
    expect(isRawNumber(parsed.id)).toBe(true)
    expect(JSON.stringify(parsed)).toBe(`{"id":${text}}`)
    expect(numberText(parsed.id as RawNumber)).toBe(text)
  })

  it('leaves numbers that survive the trip as numbers', () => {
    expect(parseExact('[1, -7, 1.5, 9007199254740991, "1e5 in a string"]')).toEqual([
      1,
      -7,
      1.5,
      9007199254740991,
      '1e5 in a string'
    ])
    expect(parseExact('{"v":"x.10","n":3}')).toEqual({ v: 'x.10', n: 3 })
  })

  it('writes back any number exactly as sent', () => {
    fc.assert(
      fc.property(fc.oneof(fc.bigInt(), fc.double({ noNaN: true, noDefaultInfinity: true })), n => {
        const text = typeof n === 'bigint' ? n.toString() : JSON.stringify(n)
        expect(JSON.stringify(parseExact(`[${text}]`))).toBe(`[${text}]`)
      }),
      { numRuns: 2000 }
    )
  })
})
