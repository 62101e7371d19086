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

  it.each(['0.0000001', '-0.0000001', '0.00000012', '1.0e-7', '123.450'])('keeps %s as written', text => {
    expect(JSON.stringify(parseExact(`{"a": [1, ${text}]}`))).toBe(`{"a":[1,${text}]}`)
  })

  // Any literal JSON's grammar allows, wherever a number may stand: JSON.stringify above writes
  // only the forms JavaScript itself would, and never 0.0000001 (it writes 1e-7).
  const digits = (min: number, max: number) =>
    fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: min, maxLength: max })
  const literal = fc
    .tuple(
      fc.constantFrom('', '-'),
      fc.oneof(
        fc.constant('0'),
        fc.tuple(fc.constantFrom(...'123456789'), digits(0, 24)).map(([a, b]) => a + b)
      ),
      // Leading zeros made likely: 0.0000001 is where JavaScript switches to an exponent.
      fc.option(
        fc
          .tuple(fc.nat(8), digits(0, 16))
          .filter(([zeros, rest]) => zeros + rest.length > 0)
          .map(([zeros, rest]) => `.${'0'.repeat(zeros)}${rest}`),
        { nil: '' }
      ),
      fc.option(
        fc.tuple(fc.constantFrom('e', 'E'), fc.constantFrom('', '+', '-'), digits(1, 3)).map(e => e.join('')),
        {
          nil: ''
        }
      )
    )
    .map(parts => parts.join(''))

  it('writes back every literal the JSON grammar allows, in any place, exactly as sent', () => {
    fc.assert(
      fc.property(literal, fc.constantFrom('', ' ', '\n\t'), fc.string(), (n, space, text) => {
        const json = `{"s":${JSON.stringify(text)},"a":[${space}${n},${space}{"b":${space}${n}}],"c":${n}}`
        const compact = `{"s":${JSON.stringify(text)},"a":[${n},{"b":${n}}],"c":${n}}`
        expect(JSON.stringify(parseExact(json))).toBe(compact)
        expect(JSON.stringify(parseExact(`${space}${n}`))).toBe(n)
      }),
      { numRuns: 5000 }
    )
  })
})
