import { B64TOKEN_CHARACTERS, b64tokenFlaw } from '../../src/auth/b64token.js'

describe('b64tokenFlaw', () => {
  it.each([
    'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJib3QifQ.c2ln', // a JWT
    'ghs_16C7e42F292c6912E7710c838347Ae178B4a', // an opaque token
    'a',
    '0',
    'A-._~+/z',
    'abc=',
    'abc==',
    'YWJj======',
    '-',
    '~~~'
  ])('takes %s as a b64token', token => {
    expect(b64tokenFlaw(token)).toBeUndefined()
  })

  it.each([
    ['', 'is empty'],
    ['--eval=$(shell echo pwned)', 'has an = that is not trailing padding at character 7 of 26'],
    ['abc def', 'has a space at character 4 of 7'],
    ['abc\tdef', 'has a tab at character 4 of 7'],
    ['abc\ndef', 'has a line break at character 4 of 7'],
    ['abc\r', 'has a line break at character 4 of 4'],
    ['abc\u0000', 'has a control character at character 4 of 4'],
    ['abc\u001f', 'has a control character at character 4 of 4'],
    ['abc\u007f', 'has a control character at character 4 of 4'],
    ['abc\u0080', 'has a non-ASCII character at character 4 of 4'],
    ['tökén', 'has a non-ASCII character at character 2 of 5'],
    ['x;rm', 'has a punctuation character other than - . _ ~ + / at character 2 of 4'],
    ...['!', '"', '#', '$', '%', '&', "'", '(', ')', '*', ',', ':', ';', '<', '>', '?', '@', '[', '\\', ']', '^', '`']
      .concat(['{', '|', '}'])
      .map(c => [`a${c}`, 'has a punctuation character other than - . _ ~ + / at character 2 of 2']),
    ['=', 'has an = that is not trailing padding at character 1 of 1'],
    ['==abc', 'has an = that is not trailing padding at character 1 of 5'],
    ['ab=c', 'has an = that is not trailing padding at character 3 of 4'],
    ['ab==c==', 'has an = that is not trailing padding at character 3 of 7'],
    ['ab= ', 'has an = that is not trailing padding at character 3 of 4'],
    [' abc', 'has a space at character 1 of 4']
  ])('finds the flaw of %j: %s', (token, flaw) => {
    expect(b64tokenFlaw(token)).toBe(flaw)
  })

  it('never quotes the token, only its character class and place', () => {
    const token = 'secret-part;secret-part'
    expect(b64tokenFlaw(token)).not.toContain('secret')
    expect(b64tokenFlaw(token)).not.toContain(';')
  })

  it('names the characters a token may hold', () => {
    expect(B64TOKEN_CHARACTERS).toBe('letters, digits, - . _ ~ + / and = as trailing padding')
  })
})
