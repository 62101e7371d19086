import fc from 'fast-check'
import { decode, sourceSpan } from '../../src/redact/decode.js'

describe('decode', () => {
  it.each([
    ['percent-encoding, hex in any case', 'a%7eb%7Ec%2bd%2B', 'a~b~c+d+'],
    ['a UTF-8 sequence as its character', '%C3%BC%c3%bc%F0%9F%98%80', 'üü😀'],
    ['a stray byte as the byte', '%C3x%ff', '\u00c3x\u00ff'],
    ['decimal references, with or without leading zeros or semicolon', '&#39;&#039;&#39x', "'''x"],
    ['hex references in any case', '&#x2b;&#X2B;&#x2B;&#xfc;', '+++ü'],
    ['named references', '&amp;&quot;&apos;&lt;&gt;&plus;&sol;&equals;&QUOT;', '&"\'<>+/="'],
    ['legacy named references without a semicolon', '&ampx&lt', '&x<'],
    ['JSON escapes in any case', '\\u003c\\u003C\\u0026\\/\\"\\\\', '<<&/"\\'],
    ['JS escapes', "\\x2b\\X2B\\u{1F600}\\U0001F600\\'", "++😀😀'"],
    ['one-letter escapes', '\\n\\t\\r\\b\\f', '\n\t\r\b\f'],
    ['UTF-8 sequences from the lowest lead byte of each length', '%C2%A0%E0%A4%85%F0%9F%98%80', '\u00a0\u0905😀'],
    ['UTF-8 sequences up to the highest lead byte', '%E2%82%AC%F4%8F%BF%BF', '€\u{10FFFF}'],
    ['a sequence, then a stray continuation byte as the byte', '%C3%BC%80', 'ü\u0080'],
    [
      'an overlong or surrogate sequence as its bytes, never a character',
      '%E0%80%AF%ED%A0%80',
      'à\u0080¯í\u00a0\u0080'
    ],
    ['a lead byte, then hex digits that lack their %', '%C3xBC', 'ÃxBC'],
    ['references up to the last code point', '&#x10FFFF;&#1114111', '\u{10FFFF}\u{10FFFF}'],
    ['\\u{…} of one to six digits, after a stray }', '}\\u{41}\\u{10FFFF}', '}A\u{10FFFF}'],
    ['\\u of four digits only', '\\u0041BCDE\\u00000041', 'ABCDE\u00000041'],
    ['\\U of eight digits up to the last code point', '\\U0010FFFF', '\u{10FFFF}'],
    ['\\U of eight digits past the last code point as \\U of four', '\\U00110000', '\u00110000']
  ])('undoes %s', (_what, encoded, plain) => {
    expect(decode(encoded)).toBe(plain)
  })

  it.each([
    '100%',
    '%zz',
    '%4',
    '&',
    '&foo;',
    '&1amp;',
    '&#;',
    '&#x;',
    '&#q39;',
    '&#xq2b;',
    '&#99999999;',
    '\\',
    '\\q',
    '\\u12',
    '\\u{110000}',
    '\\u{zz}',
    '\\u{}',
    '\\u{41',
    '\\xzz'
  ])('leaves %s as it is', text => {
    expect(decode(text)).toBe(text)
  })

  it('undoes one layer only', () => {
    expect(decode('&amp;#39;')).toBe('&#39;')
    expect(decode('%2527')).toBe('%27')
    expect(decode('\\\\u0041')).toBe('\\u0041')
  })
})

describe('sourceSpan', () => {
  it('maps decoded characters to the whole sequences they came from', () => {
    const input = 'ab%2Bc&amp;d\\u0065f%C3%BCg'
    const decoded = decode(input)
    expect(decoded).toBe('ab+c&defüg')
    const span = (from: number, to: number) => input.slice(...sourceSpan(input, from, to))
    expect(span(0, 2)).toBe('ab')
    expect(span(2, 3)).toBe('%2B')
    expect(span(3, 6)).toBe('c&amp;d')
    expect(span(6, 8)).toBe('\\u0065f')
    expect(span(8, 10)).toBe('%C3%BCg')
  })

  it('maps a character that is half a surrogate pair to the sequence of the pair', () => {
    const input = 'x%F0%9F%98%80y'
    expect(decode(input)).toBe('x😀y')
    expect(sourceSpan(input, 1, 2)).toEqual([1, 13])
    expect(sourceSpan(input, 2, 4)).toEqual([1, 14])
  })

  it('maps a span past the decoded text, or empty at its end, to the rest of the input', () => {
    expect(sourceSpan('%41b', 0, 5)).toEqual([0, 4])
    expect(sourceSpan('a%41', 1, 5)).toEqual([1, 4])
    expect(sourceSpan('a%41', 2, 2)).toEqual([4, 4])
  })

  const piece = fc.constantFrom(
    ...['a', '%41', '%C3', '%C3%BC', '%F0%9F%98%80', '&amp;', '&ampx', '&#39', '\\u0041', '\\u{1F600}', '\\n'],
    ...['%', '&', '\\', '%zz']
  )
  it('gives a span of the input that decodes to the characters asked for', () => {
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 8 }), fc.nat(), fc.nat(), (pieces, a, b) => {
        const input = pieces.join('')
        const decoded = decode(input)
        const [from, to] = [a, b].map(n => n % (decoded.length + 1)).sort((x, y) => x - y)
        const [start, end] = sourceSpan(input, from, to)
        expect(0 <= start && start <= end && end <= input.length).toBe(true)
        expect(decode(input.slice(start, end))).toContain(decoded.slice(from, to))
      })
    )
  })
})
