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
    ['one-letter escapes', '\\n\\t\\r\\b\\f', '\n\t\r\b\f']
  ])('undoes %s', (_what, encoded, plain) => {
    expect(decode(encoded)).toBe(plain)
  })

  it.each(['100%', '%zz', '%4', '&', '&foo;', '&#;', '&#x;', '&#99999999;', '\\', '\\q', '\\u12', '\\u{110000}'])(
    'leaves %s as it is',
    text => {
      expect(decode(text)).toBe(text)
    }
  )

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
})
