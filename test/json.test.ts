import fc from 'fast-check'
import {
  isRawNumber,
  MAX_TARGET_DEPTH,
  numberText,
  parseExact,
  parseJsonObject,
  parseMeasured,
  RawNumber,
  stringifiedLength
} from '../src/json.js'

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

const nested = (depth: number, inner = '') => `${'['.repeat(depth)}${inner}${']'.repeat(depth)}`

describe('parseExact of deep values', () => {
  it('walks a value nested 100,000 deep without recursion, numbers in it or not', () => {
    expect((parseExact(`{"a":${nested(2, '1')},"b":${nested(100_000)}}`) as { a: unknown }).a).toEqual([[1]])
    expect(parseExact(nested(100_000, '"x"'))).toBeInstanceOf(Array)
    expect(parseExact(`[${nested(100_000)},{"n":{"m":[1]}}]`)).toHaveLength(2)
  })

  it('finds a number anywhere: in an object, an array, or deep in either', () => {
    for (const text of ['{"a":{"b":[{"c":2.50}]}}', '[[["x"],[2.50]]]', '[{"a":"b"},[1e5]]', '2.50']) {
      expect(JSON.stringify(parseExact(text))).toBe(text)
    }
  })
})

describe('stringifiedLength', () => {
  it.each([
    '[]',
    '{}',
    '"x"',
    '0',
    '-0',
    'true',
    'false',
    'null',
    '[1,"a",[],{}]',
    '{"a":{"b":[1,2,{"c":null}]},"d":"é😀","e":true}',
    '[9007199254740993,1.50,1e400,-3.25]',
    '[[[["deep"]]],{"":""}]'
  ])('is the length of JSON.stringify of %s', text => {
    const value = parseExact(text)
    expect(stringifiedLength(value)).toBe(JSON.stringify(value).length)
    expect(stringifiedLength(value)).toBe(text.length)
  })

  it('is shorter than a text with whitespace or a repeated key', () => {
    expect(stringifiedLength(parseExact('{"a":1,"a":22}'))).toBe('{"a":22}'.length)
    expect(stringifiedLength(parseExact('[ 1 , {"a" : 2} ]'))).toBe('[1,{"a":2}]'.length)
  })

  it('says nothing of a key JSON.stringify writes first, at any depth, or of what JSON cannot hold', () => {
    expect(stringifiedLength(parseExact('{"b":1,"2":3}'))).toBeUndefined()
    expect(stringifiedLength(parseExact('[{"a":[{"0x":1}]}]'))).toBeUndefined()
    expect(stringifiedLength(parseExact('{"9":1}'))).toBeUndefined()
    expect(stringifiedLength(undefined)).toBeUndefined()
    expect(stringifiedLength([1, () => 2])).toBeUndefined()
    // A key that starts with another character is written where it stands.
    const text = '{"b":1,"a2":3,"/":4,":":5}'
    expect(stringifiedLength(parseExact(text))).toBe(text.length)
  })

  it('agrees with JSON.stringify on any JSON value without an escape or a key that starts with a digit', () => {
    fc.assert(
      fc.property(fc.jsonValue(), value => {
        const text = JSON.stringify(value)
        const length = stringifiedLength(parseExact(text))
        if (text.includes('\\') || /"\d[^"]*":/.test(text)) return
        expect(length).toBe(text.length)
      })
    )
  })
})

describe('parseMeasured', () => {
  it.each([
    '[]',
    '[{"id":"a","n":1}]',
    '{"targets":[{"id":"a"}],"next":"/2"}',
    '[9007199254740993,1.50,1e400,-0,0.5]',
    '{"a":[true,false,null,{"b":{}}]}'
  ])('reads %s as parseExact does, with the length of its JSON.stringify', text => {
    const { value, length } = parseMeasured(text)
    expect(value).toEqual(parseExact(text))
    expect(JSON.stringify(value)).toBe(text)
    expect(length).toBe(text.length)
  })

  it('keeps numbers as sent only where a JavaScript number would change them', () => {
    const { value } = parseMeasured('[1.50,2,9007199254740993]') as { value: unknown[] }
    expect(isRawNumber(value[0])).toBe(true)
    expect(value[1]).toBe(2)
    expect(isRawNumber(value[2])).toBe(true)
    expect(parseMeasured('[1,2.5,-3]').value).toEqual([1, 2.5, -3])
  })

  it('is shorter than a text with whitespace or a repeated key, and says nothing of a digit-led key', () => {
    expect(parseMeasured(' [ {"a" : 1} ] ').length).toBe('[{"a":1}]'.length)
    expect(parseMeasured('{"a":1,"a":22}').length).toBe('{"a":22}'.length)
    const digits = parseMeasured('{"b":1.50,"2":3}')
    expect(digits.length).toBeUndefined()
    expect(JSON.stringify(digits.value)).toBe('{"2":3,"b":1.50}')
  })

  it.each([
    ['a number', '1', 0],
    ['an empty array', '[]', 1],
    ['objects in arrays', '[{"a":[{"b":{}}]},[]]', 5],
    ['a digit-led key', '{"1":[[[]]],"b":1.50}', 4],
    ['numbers to keep as sent', '[[[1.50]],9007199254740993]', 3]
  ])('says whether %s nests deeper than it may', (_what, text, depth) => {
    expect(parseMeasured(text, depth).deeper).toBe(false)
    expect(parseMeasured(text, depth - 1).deeper).toBe(true)
    expect(parseMeasured(text).deeper).toBe(false)
  })

  it('reads a page nested far too deep without overflowing, numbers in it or not', () => {
    const deep = `${'['.repeat(200_000)}${']'.repeat(200_000)}`
    for (const text of [`[{"a":${deep}}]`, `[{"a":${deep},"n":1e400}]`, `[{"1":${deep},"n":1e400}]`]) {
      expect(parseMeasured(text, MAX_TARGET_DEPTH).deeper).toBe(true)
    }
  })

  it('agrees with JSON.stringify on any JSON text', () => {
    fc.assert(
      fc.property(fc.jsonValue(), value => {
        const text = JSON.stringify(value)
        const measured = parseMeasured(text)
        expect(measured.value).toEqual(parseExact(text))
        if (text.includes('\\') || /"\d[^"]*":/.test(text)) return
        expect(measured.length).toBe(JSON.stringify(measured.value).length)
      })
    )
  })
})

describe('isRawNumber', () => {
  it('is a number kept as sent, not an object with a rawJSON field', () => {
    expect(isRawNumber((parseExact('[1.50]') as unknown[])[0])).toBe(true)
    expect(isRawNumber({ rawJSON: '1.50' })).toBe(false)
    expect(isRawNumber(parseExact('{"rawJSON":"1.50"}'))).toBe(false)
    for (const value of [null, undefined, 1, '1.50', [], {}]) expect(isRawNumber(value)).toBe(false)
  })
})
