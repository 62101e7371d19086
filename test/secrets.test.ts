import { echoedForms, excerpt, mask, redact } from '../src/secrets.js'
import { captureStdout } from './helpers.js'

describe('secrets', () => {
  const written = captureStdout()

  it('registers the secret with the runner, then each line of a multi-line one', () => {
    mask('line-one\nline-two')
    expect(written.slice(0, 3)).toEqual([
      '::add-mask::line-one%0Aline-two\n',
      '::add-mask::line-one\n',
      '::add-mask::line-two\n'
    ])
  })

  it('registers the echoed forms the runner does not derive, once each', () => {
    mask('a b/ü+c')
    expect(written).toEqual([
      '::add-mask::a b/ü+c\n',
      '::add-mask::a b/\\u00fc+c\n',
      '::add-mask::\\u0061\\u0020\\u0062\\u002f\\u00fc\\u002b\\u0063\n',
      '::add-mask::a%2520b%252f%25c3%25bc%252bc\n', // the command escapes % as %25
      '::add-mask::a+b%252F%25C3%25BC%252Bc\n',
      `::add-mask::${Buffer.from('a b/ü+c').toString('base64url')}\n`,
      '::add-mask::a+b%252f%25c3%25bc%252bc\n', // form encoding, lower-case hex
      '::add-mask::a b\\/ü+c\n', // JSON, escaped slash
      '::add-mask::a b/ü\\u002Bc\n', // JSON as .NET writes it
      '::add-mask::a b/ü&#43;c\n', // HTML references: decimal
      '::add-mask::a b/ü&#x2B;c\n' // and hex (the named form is the decimal one here)
    ])
    written.length = 0
    mask('a b/ü+c')
    expect(written).toEqual([])
  })

  it('masks lines of four characters or more of a multi-line secret, and no shorter ones', () => {
    mask('abcd\nxyz\nlonger-line')
    expect(written).toContain('::add-mask::abcd\n')
    expect(written).toContain('::add-mask::longer-line\n')
    expect(written).not.toContain('::add-mask::xyz\n')
  })

  it('ignores empty values', () => {
    mask('   ')
    expect(written).toEqual([])
  })

  const secret = 'p@ss "word"/ü+ x'
  it.each([
    ['as given', secret],
    ['JSON-escaped', JSON.stringify(secret).slice(1, -1)],
    ['JSON \\u-escaped', JSON.stringify(secret).slice(1, -1).replace('ü', '\\u00fc')],
    [
      'every character \\u-escaped',
      secret
        .split('')
        .map(c => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
        .join('')
    ],
    ['URI-encoded', encodeURIComponent(secret)],
    ['lower-case percent-encoded', encodeURIComponent(secret).replace(/%[0-9A-F]{2}/g, h => h.toLowerCase())],
    ['form-encoded', new URLSearchParams({ s: secret }).toString().slice(2)],
    ['base64', Buffer.from(secret).toString('base64')],
    ['base64url', Buffer.from(secret).toString('base64url')]
  ])('redacts the secret %s', (_form, echoed) => {
    mask(secret)
    expect(echoedForms(secret)).toContain(echoed)
    expect(redact(`server said: ${echoed}!`)).toBe('server said: ***!')
  })

  it('quotes at most ~300 characters, single-line, redacted before cutting', () => {
    mask('secret-in-the-middle')
    const body = `${'a'.repeat(290)}secret-in-the-middle\r\n\u0000${'b'.repeat(500)}`
    const quoted = excerpt(body)
    expect(quoted).not.toMatch(/secret|[\r\n]/)
    expect(quoted.includes('\u0000')).toBe(false)
    expect(quoted.length).toBeLessThanOrEqual(301)
    expect(quoted.startsWith(`${'a'.repeat(290)}*** b`)).toBe(true)
  })
})

describe('forms real servers echo a secret in', () => {
  const secret = `s~e+c/r"e<t&'x`
  it.each([
    ['form encoding with lower-case hex', 's%7ee%2bc%2fr%22e%3ct%26%27x'],
    ['JSON with escaped slashes', 's~e+c\\/r\\"e<t&\'x'],
    ['JSON with HTML-sensitive ASCII as \\u escapes (.NET)', 's~e\\u002Bc/r\\u0022e\\u003Ct\\u0026\\u0027x'],
    ['HTML decimal references', 's~e&#43;c/r&#34;e&#60;t&#38;&#39;x'],
    ['HTML hex references', 's~e&#x2B;c/r&#x22;e&#x3C;t&#x26;&#x27;x'],
    ['HTML named references', 's~e&#43;c/r&quot;e&lt;t&amp;&#39;x']
  ])('%s', (_what, echoed) => {
    expect(echoedForms(secret)).toContain(echoed)
    mask(secret)
    expect(redact(`server said: ${echoed}!`)).toBe('server said: ***!')
  })
})
