import { cell, MARKDOWN_SPECIAL, UNSHOWN } from '../../src/report/cells.js'
import { mask } from '../../src/secrets.js'

describe('cell', () => {
  it.each<[string, unknown, string]>([
    ['nothing as empty', undefined, ''],
    ['a string as it is', 'plain text', 'plain text'],
    ['a number as JSON', 42, '42'],
    ['null as JSON', null, 'null'],
    ['an object as JSON, escaped', { a: [1] }, '{"a"\\:\\[1\\]}'],
    [
      'every active character escaped',
      '\\`*_[]()!<>&|~:@$#',
      '\\\\\\`\\*\\_\\[\\]\\(\\)\\!\\<\\>\\&\\|\\~\\:\\@\\$\\#'
    ],
    ['a link inert', '[x](https://e.test)', '\\[x\\]\\(https\\://e.test\\)'],
    ['an e-mail inert', 'bot@clients', 'bot\\@clients'],
    ['a www. host inert, in any case', 'see www.e.test or WWW.f.test', 'see www\\.e.test or WWW\\.f.test'],
    ['HTML inert', '<img src=x onerror=alert(1)>', '\\<img src=x onerror=alert\\(1\\)\\>'],
    ['line breaks and tabs as one space', 'a\r\n\tb\n\nc', 'a b c'],
    ['control characters as a space', 'a\u0000\u0007\u001f\u007f\u009fb', 'a b'],
    ['spaces around trimmed', '  a  ', 'a'],
    ['bidirectional controls dropped', 'a\u202eb\u202ac\u2066d\u2069e\u200ef\u200fg\u061ch', 'abcdefgh'],
    ['other unicode kept', 'é\u2028x', 'é x']
  ])('gives %s', (_, value, expected) => {
    expect(cell(value)).toBe(expected)
  })

  it('shows a placeholder for a value JSON.stringify cannot write, rather than throwing', () => {
    const deep = JSON.parse(`${'['.repeat(200_000)}${']'.repeat(200_000)}`) as unknown
    expect(() => JSON.stringify(deep)).toThrow(RangeError)
    expect(cell(deep)).toBe(cell(UNSHOWN))
    expect(cell(deep)).toBe('\\(not shown\\: nested too deep\\)')
  })

  it('cuts at 80 characters by default, and at maxChars when given', () => {
    expect(cell('x'.repeat(80))).toBe('x'.repeat(80))
    expect(cell('x'.repeat(81))).toBe(`${'x'.repeat(79)}…`)
    expect(cell('abcdef', 6)).toBe('abcdef')
    expect(cell('abcdefg', 6)).toBe('abcde…')
    expect(cell('x'.repeat(400), 400)).toBe('x'.repeat(400))
  })

  it('cuts before escaping, so an escape is never split', () => {
    expect(cell('abcd|', 5)).toBe('abcd\\|')
    expect(cell('abcde|', 5)).toBe('abcd…')
  })

  it('redacts before escaping, so an escaped secret is still hidden', () => {
    mask('cell:secret@value')
    expect(cell('token cell:secret@value here')).toBe('token \\*\\*\\* here')
  })

  it('matches each active character', () => {
    expect('a\\`*_[]()!<>&|~:@$#b'.match(MARKDOWN_SPECIAL)).toHaveLength(18)
  })
})
