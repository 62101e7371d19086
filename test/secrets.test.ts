import {
  echoedForms,
  excerpt,
  holdsOnly,
  holdsSecret,
  mask,
  maskPrivateKey,
  REDACT_MARGIN_CHARS,
  redact,
  redactJson,
  redactThenCut,
  secretPath,
  WITHHELD
} from '../src/secrets.js'
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
      '::add-mask::a b/ü&#x2B;c\n', // and hex (the named form is the decimal one here)
      '::add-mask::6120622fc3bc2b63\n', // its UTF-8 bytes in hex, which the runner does not hide
      '::add-mask::6120622FC3BC2B63\n'
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

  it('counts a line of a multi-line secret without its blanks, and redacts each line on its own', () => {
    mask('sh0rt-1\n  yz\nanother-longer-line')
    expect(written).toContain('::add-mask::sh0rt-1\n')
    expect(written.some(line => line.startsWith('::add-mask::  yz'))).toBe(false)
    // sh0rt-1 is a run of 7 of the whole secret: it is withheld as a line of its own.
    expect(redact('said sh0rt-1 once')).toBe('said *** once')
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
    ['base64url', Buffer.from(secret).toString('base64url')],
    ['in lower-case hex', Buffer.from(secret).toString('hex')],
    ['in upper-case hex', Buffer.from(secret).toString('hex').toUpperCase()]
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
  captureStdout()
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

// A secret with every character an encoder treats specially: each form below encodes some of them.
const SECRET = `p4ss~W+rd/"q<u&o'te=d sp@ce%41ü!tail`
const hex = (c: string, upper = false) => {
  const h = (c.codePointAt(0) as number).toString(16).padStart(4, '0')
  return upper ? h.toUpperCase() : h
}
const each = (f: (c: string) => string) => [...SECRET].map(f).join('')
const html = (map: Record<string, string>) => each(c => map[c] ?? c)
const base64At = (prefix: string, encoding: 'base64' | 'base64url') =>
  Buffer.from(`${prefix}${SECRET}:more bytes after it`).toString(encoding)

describe('redaction through normalising views', () => {
  captureStdout()
  beforeEach(() => mask(SECRET))

  it('withholds every secret a text holds, not only the first, as it is and in a view', () => {
    mask('second-secret-0042')
    const text = `a ${SECRET} b second-secret-0042 c ${encodeURIComponent(SECRET)} d`
    expect(redact(text)).toBe('a *** b *** c *** d')
  })

  it.each([
    ['as given', SECRET],
    ['URI-encoded', encodeURIComponent(SECRET)],
    ['percent-encoded in lower case', encodeURIComponent(SECRET).replace(/%[0-9A-F]{2}/g, h => h.toLowerCase())],
    [
      'percent-encoded in mixed case (%7e%2B)',
      each(c => (c === '~' ? '%7e' : c === '+' ? '%2B' : c === ' ' ? '%20' : c))
    ],
    ['form-encoded', new URLSearchParams({ s: SECRET }).toString().slice(2)],
    [
      'form-encoded in lower case',
      new URLSearchParams({ s: SECRET })
        .toString()
        .slice(2)
        .replace(/%[0-9A-F]{2}/g, h => h.toLowerCase())
    ],
    ['JSON-escaped', JSON.stringify(SECRET).slice(1, -1)],
    ['JSON with \\/', JSON.stringify(SECRET).slice(1, -1).replace(/\//g, '\\/')],
    ["Go's JSON (\\u003c \\u0026 \\u003e)", html({ '<': '\\u003c', '&': '\\u0026', '>': '\\u003e', '"': '\\"' })],
    [
      '.NET JSON (\\u002B, upper case)',
      html({ '+': '\\u002B', "'": '\\u0027', '"': '\\u0022', '<': '\\u003C', '&': '\\u0026' })
    ],
    ['every character \\u-escaped, lower case', each(c => `\\u${hex(c)}`)],
    ['every character \\u-escaped, upper case', each(c => `\\u${hex(c, true)}`)],
    ['JS \\x escapes', html({ '~': '\\x7e', '+': '\\x2B', "'": "\\'" })],
    ['escape-html (&#39;)', html({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })],
    ["PHP's htmlspecialchars (&#039;)", html({ '&': '&amp;', '<': '&lt;', '"': '&quot;', "'": '&#039;' })],
    ['named references (&apos;)', html({ '&': '&amp;', '<': '&lt;', '"': '&quot;', "'": '&apos;', '+': '&plus;' })],
    ['hex references in lower case (&#x2b;)', html({ '+': '&#x2b;', '/': '&#x2f;', '<': '&#x3c;', "'": '&#x27;' })],
    ['decimal references for every character', each(c => `&#${c.codePointAt(0)};`)],
    ['base64', Buffer.from(SECRET).toString('base64')],
    ['base64url', Buffer.from(SECRET).toString('base64url')],
    ['JSON in a JSON string', JSON.stringify(JSON.stringify(SECRET).slice(1, -1)).slice(1, -1)],
    ['HTML-escaped twice', html({ "'": '&amp;#39;', '&': '&amp;amp;' })],
    ['percent-encoded twice', encodeURIComponent(encodeURIComponent(SECRET))],
    ['in lower-case hex', Buffer.from(SECRET).toString('hex')],
    ['in upper-case hex', Buffer.from(SECRET).toString('hex').toUpperCase()],
    ['in hex with a space between bytes', spacedHex(SECRET, ' ')],
    ['in upper-case hex with a colon between bytes', spacedHex(SECRET, ':').toUpperCase()],
    ['in hex with a dash between bytes', spacedHex(SECRET, '-')],
    // Hex is matched in every view, as the other forms are: here its digits \u-escaped.
    [
      'in hex, each digit \\u-escaped',
      Buffer.from(SECRET)
        .toString('hex')
        .replace(/./g, h => `\\u00${h.charCodeAt(0).toString(16)}`)
    ]
  ])('withholds the secret %s', (_form, echoed) => {
    expect(redact(`said: ${echoed}!`)).toBe('said: ***!')
  })

  it('withholds the secret as a path segment of a redirect, which encodes some characters only', () => {
    const location = new URL(`https://idp.test/cb/${SECRET}?state=1`).href
    expect(location).toContain("%22q%3Cu&o'te=d%20sp@ce%41%C3%BC!tail")
    // Its %41 is the secret's own: what is left after the *** is less than 12 characters of it.
    const out = redact(location)
    expect(out).toMatch(/^https:\/\/idp\.test\/cb\/\*\*\*.{0,20}\?state=1$/)
    expect(holdsSecret(out)).toBe(false)
  })

  it.each([
    ['base64, at byte offset 0 of a longer blob', base64At('', 'base64')],
    ['base64, at byte offset 1', base64At('x', 'base64')],
    ['base64, at byte offset 2', base64At('xy', 'base64')],
    ['base64url, at byte offset 1', base64At('x', 'base64url')],
    ['base64url, at byte offset 2', base64At('xy', 'base64url')],
    ['base64 of user:secret (HTTP Basic)', Buffer.from(`client-id:${SECRET}`).toString('base64')],
    ['base64 after other base64 characters', `/v12/${Buffer.from(SECRET).toString('base64url')}`]
  ])('withholds the secret as %s, and keeps what is not it', (_form, blob) => {
    const out = redact(`{"blob":"${blob}"}`)
    expect(out).toMatch(/^\{"blob":"[A-Za-z0-9+/_=-]*\*\*\*[A-Za-z0-9+/_=-]*"\}$/)
    expect(Buffer.from(out.split('***')[0].slice(9), 'base64').toString('latin1')).not.toContain(SECRET.slice(0, 12))
    expect(holdsSecret(out)).toBe(false)
  })

  const fragment = SECRET.slice(10, 22) // 12 characters: q<u&o'te=d s
  it.each([
    ['as given', fragment],
    ['HTML-escaped', fragment.replace('&', '&amp;').replace("'", '&#39;').replace('<', '&lt;')],
    ['JSON \\u-escaped', fragment.replace('<', '\\u003c')],
    ['percent-encoded', encodeURIComponent(fragment)],
    ['base64', Buffer.from(`..${fragment}..`).toString('base64')],
    ['in lower-case hex', Buffer.from(fragment).toString('hex')],
    ['in upper-case hex', Buffer.from(fragment).toString('hex').toUpperCase()],
    ['in hex with a space between bytes', spacedHex(fragment, ' ')],
    ['in upper-case hex with a colon between bytes', spacedHex(fragment, ':').toUpperCase()]
  ])('withholds a run of 12 characters of the secret %s', (_form, echoed) => {
    // A separator before the run is the form's own: it goes with it.
    expect(redact(`said: ${echoed}!`)).toMatch(/^said: ?[A-Za-z0-9+/]*\*\*\*[A-Za-z0-9+/=]*!$/)
  })

  it('keeps a run of 11 characters, and text that merely looks encoded', () => {
    const eleven = SECRET.slice(10, 21)
    const hex = Buffer.from(eleven).toString('hex')
    for (const text of [
      eleven,
      encodeURIComponent(eleven),
      hex,
      hex.toUpperCase(),
      spacedHex(eleven, ' '),
      spacedHex(eleven, ':').toUpperCase(),
      '100% &amp; \\u0041 &#39; QUJDREVGR0hJSktMTU5PUA=='
    ]) {
      expect(redact(text)).toBe(text)
    }
  })

  it('withholds a short secret whole, in any view, and no part of it', () => {
    mask('sh0rt+s')
    expect(redact('a sh0rt+s b sh0rt%2Bs c sh0rt&#43;s d')).toBe('a *** b *** c *** d')
    expect(redact('sh0rt')).toBe('sh0rt')
    const hex = Buffer.from('sh0rt+s').toString('hex')
    expect(redact(`a ${hex} b ${hex.toUpperCase()} c ${hex.slice(0, -2)} d`)).toBe(
      `a *** b *** c ${hex.slice(0, -2)} d`
    )
  })

  it('withholds the hex of the secret inside a longer hex blob, and keeps the bytes around it', () => {
    const blob = (prefix: string, suffix: string) => Buffer.from(`${prefix}${SECRET}${suffix}`).toString('hex')
    expect(redact(`dump: ${blob('\u0000\u00ff', 'z')}`)).toBe('dump: 00c3bf***7a')
    expect(redact(`DUMP: ${blob('a', '\u0001').toUpperCase()}.`)).toBe('DUMP: 61***01.')
  })

  it('withholds the UTF-8 bytes of a secret in base64, as percent bytes too', () => {
    expect(redact(Buffer.from(`ab${SECRET}`, 'utf8').toString('base64'))).toMatch(/\*\*\*/)
    expect(holdsSecret(Buffer.from(SECRET.slice(-14)).toString('base64url'))).toBe(true)
  })
})

/** The UTF-8 bytes of `text` in hex, with `separator` between bytes. */
function spacedHex(text: string, separator: string): string {
  return (Buffer.from(text).toString('hex').match(/../g) ?? []).join(separator)
}

describe('maskPrivateKey', () => {
  const written = captureStdout()
  // Pasted with blanks at the ends of its lines.
  const body = [
    'MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj',
    'MZa8tqXI2ZtOxIflUNqCZfNXOxS16xyrJuvEFcY6wpNeGB3SIpnCHtKfmFnzxDe8',
    'Zw=='
  ]
  const pem = [
    '-----BEGIN PRIVATE KEY----- ',
    `${body[0]}  `,
    `${body[1]}\t`,
    body[2],
    '-----END PRIVATE KEY----- ',
    ''
  ]

  it('registers each line of the key without its blanks, and neither marker', () => {
    maskPrivateKey(pem.join('\n'))
    for (const line of body) expect(written).toContain(`::add-mask::${line}\n`)
    expect(written.filter(line => line.includes('PRIVATE KEY'))).toEqual([`::add-mask::${pem.join('%0A')}\n`])
    expect(redact('error: no -----END PRIVATE KEY----- line')).toBe('error: no -----END PRIVATE KEY----- line')
  })

  it('registers neither marker of a key whose every line is indented', () => {
    const own = ['MIIBVAIBADANBgkqhkiG9w0BAQEFAASCAT4wggE6AgEAAkEAq7BFUpkGp3', 'vA7YfZ9Q==']
    maskPrivateKey(['-----BEGIN PRIVATE KEY-----', ...own, '-----END PRIVATE KEY-----'].map(l => `  ${l}`).join('\n'))
    for (const line of own) expect(written).toContain(`::add-mask::${line}\n`)
    expect(written.filter(line => line.includes('PRIVATE KEY') && !line.includes('%0A'))).toEqual([])
    expect(redact('expected -----BEGIN PRIVATE KEY----- here')).toBe('expected -----BEGIN PRIVATE KEY----- here')
  })

  it('registers no line of the key under 4 characters without its blanks: it would hide words', () => {
    maskPrivateKey(['-----BEGIN PRIVATE KEY-----', body[0], '  ab', body[1], '-----END PRIVATE KEY-----'].join('\n'))
    expect(written.filter(line => /^::add-mask::\s*ab\s*$/.test(line))).toEqual([])
  })

  it('withholds a line of the key in hex', () => {
    maskPrivateKey(pem.join('\n'))
    const hex = Buffer.from(body[1]).toString('hex')
    expect(redact(`key bytes: ${hex}`)).toBe('key bytes: ***')
    expect(redact(`KEY BYTES: ${hex.toUpperCase()}`)).toBe('KEY BYTES: ***')
  })

  it('withholds a run across two lines of the key, as JSON writes it', () => {
    maskPrivateKey(pem.join('\r\n'))
    expect(redact(`{"key":"${body[0].slice(-6)}\\n${body[1].slice(0, 6)}"}`)).toBe('{"key":"***"}')
  })
})

describe('redactThenCut', () => {
  captureStdout()

  it('withholds a token across the cut whole: nothing of it is kept up to the cut', () => {
    const token = Buffer.from(Array.from({ length: 97 }, (_, i) => (i * 37 + 11) % 256)).toString('base64url')
    expect(token).toHaveLength(130)
    mask(token)
    const body = `${'x'.repeat(1000)}${token}${'y'.repeat(1000)}`
    const { text, cut } = redactThenCut(body, 1000 + 127)
    expect(cut).toBe(true)
    expect(text).toBe(`${'x'.repeat(1000)}***${'y'.repeat(124)}`)
  })

  it('says whether it cut, and never cuts a surrogate pair in two', () => {
    expect(redactThenCut('short', 10)).toEqual({ text: 'short', cut: false })
    expect(redactThenCut('ab😀', 3)).toEqual({ text: 'ab', cut: true })
    expect(redactThenCut('a😀b', 3)).toEqual({ text: 'a😀', cut: true })
    expect(redactThenCut('a\u{10FFFF}b', 2)).toEqual({ text: 'a', cut: true })
    expect(redactThenCut('ab\ue000c', 3)).toEqual({ text: 'ab\ue000', cut: true })
  })
})

describe('excerpt', () => {
  captureStdout()
  const token = Buffer.from(Array.from({ length: 400 }, (_, i) => (i * 53 + 7) % 256)).toString('base64url')

  it('drops the blanks left at either end', () => {
    expect(excerpt('\n  status: ok \r\n')).toBe('status: ok')
  })

  it('says it cut a long text even when redaction leaves less than it shows', () => {
    mask(token)
    expect(excerpt(`ok ${token}`, 10)).toBe('ok ***…')
    // No longer than what it shows and its margin: read whole, and not cut.
    expect(excerpt(`ok ${token.slice(0, 10 + REDACT_MARGIN_CHARS - 3)}`, 10)).toBe('ok ***')
  })

  it('reads no further than what it shows and its margin', () => {
    // Cutting this secret out leaves it whole again: a text that holds it is withheld.
    mask('p4ss***word-secret')
    const trap = 'p4ssp4ss***word-secretword-secret'
    expect(redact(trap)).toMatch(/^\[withheld/)
    expect(excerpt(`ok ${'x'.repeat(10 + REDACT_MARGIN_CHARS)}${trap}`, 10)).toBe(`ok ${'x'.repeat(7)}…`)
  })
})

describe('holdsSecret', () => {
  captureStdout()

  it('finds a given secret in any form, without registering it', () => {
    const token = 'eyJ0eXAiOiJKV1QifQ.only-this-token.signature'
    expect(holdsSecret(Buffer.from(token).toString('base64'), token)).toBe(true)
    expect(holdsSecret(`x${encodeURIComponent(token)}`, token)).toBe(true)
    expect(holdsSecret(`x${Buffer.from(token).toString('hex').toUpperCase()}x`, token)).toBe(true)
    expect(holdsSecret('nothing here', token)).toBe(false)
    expect(redact(token)).toBe(token)
  })

  it('finds every registered secret, whichever is given, and tells the given one apart', () => {
    const earlier = 'eyJ0eXAiOiJKV1QifQ.first-one-issued.aaaa1111bbbb'
    const current = 'eyJ0eXAiOiJKV1QifQ.renewed-later-on.cccc2222dddd'
    mask('client-secret-4f9a2c')
    mask(earlier)
    mask(current)
    for (const text of ['x client-secret-4f9a2c x', Buffer.from(earlier).toString('base64'), current]) {
      expect(holdsSecret(text)).toBe(true)
      expect(holdsSecret(text, current)).toBe(true)
    }
    expect(holdsOnly(`said ${earlier}`, current)).toBe(false)
    expect(holdsOnly(`said ${current}`, current)).toBe(true)
    expect(holdsSecret('client-secr', current)).toBe(false)
  })

  it('leaves out a registered secret under 12 characters, which redact() still withholds whole', () => {
    mask('s3cr3t!')
    const hex = Buffer.from('s3cr3t!').toString('hex')
    const spaced = (hex.match(/../g) ?? []).join(':')
    for (const text of ['rotate s3cr3t! weekly', `sha 00${hex}ff`, `mac ${spaced}`]) {
      expect(holdsSecret(text)).toBe(false)
      expect(redact(text)).toContain('***')
    }
    // A longer one, in the same forms, is found.
    mask('longer-s3cr3t!-here')
    const long = Buffer.from('longer-s3cr3t!-here').toString('hex')
    for (const text of [`sha 00${long}ff`, `mac ${(long.match(/../g) ?? []).join(':')}`]) {
      expect(holdsSecret(text)).toBe(true)
    }
  })
})

describe('secretPath', () => {
  captureStdout()

  it('names where in a JSON value a secret stands, registered or given, and never quotes it', () => {
    mask('registered-secret-77')
    const value = { targets: [{ id: 'a' }, { id: 'b', owner: { 'note <b>': 'x registered-secret-77' } }] }
    expect(secretPath(value.targets, 'targets')).toBe('targets[1].owner.note <b>')
    expect(secretPath([{ n: 'the given-token-0123' }], 'list', 'given-token-0123')).toBe('list[0].n')
    expect(secretPath({ key: 'nothing' }, 'v', 'given-token-0123')).toBeUndefined()
    expect(secretPath({ 'registered-secret-77': 'plain' }, 'v')).toBeUndefined()
    expect(secretPath({ a: null, b: 1, c: true, d: 'x', e: [null] }, 'v')).toBeUndefined()
  })
})

describe('redactJson', () => {
  captureStdout()
  // Each character's hex is two decimal digits: 12 characters of it are a 24-digit number.
  const secret = 'aPbQcRdSeTfUgVhW'
  const digits = Buffer.from(secret.slice(2, 14)).toString('hex')

  it('keeps JSON whose redaction hides a number: the number becomes the string ***', () => {
    mask(secret)
    expect(digits).toMatch(/^\d{24}$/)
    const text = `{"ok":true,"n":${digits},"m":[1,${digits}]}`
    expect(() => JSON.parse(redact(text))).toThrow()
    expect(redactJson(text)).toBe('{"ok":true,"n":"***","m":[1,"***"]}')
  })

  it('gives the redacted text itself when it is JSON, and the same text when nothing is found', () => {
    mask(secret)
    const text = `{"a":"said ${secret} twice","b":12.50}`
    expect(redactJson(text)).toBe('{"a":"said *** twice","b":12.50}')
    const plain = '{"b":12.50,  "c":"nothing"}'
    expect(redactJson(plain)).toBe(plain)
  })

  it('redacts keys and strings on their own, keeping numbers as sent and a key named __proto__', () => {
    mask(secret)
    const text = `{"${secret}":1,"__proto__":{"n":${digits}},"big":12345678901234567890}`
    expect(JSON.parse(redactJson(text))).toEqual(
      JSON.parse('{"***":1,"__proto__":{"n":"***"},"big":12345678901234567890}')
    )
    expect(redactJson(text)).toContain('"big":12345678901234567890')
  })

  it('redacts a plain number part by part: a short secret whose hex is all digits', () => {
    mask('1234') // its hex: 31323334
    expect(redactJson('{"n":31323334,"m":5}')).toBe('{"n":"***","m":5}')
  })

  it('redacts text that is not JSON as text', () => {
    mask(secret)
    expect(redactJson(`n=${digits}`)).toBe('n=***')
  })

  it('gives JSON too deep to walk as a JSON string of the redacted text', () => {
    mask(secret)
    const deep = `${'['.repeat(600)}${digits}${']'.repeat(600)}`
    expect(JSON.parse(redactJson(deep))).toBe(`${'['.repeat(600)}***${']'.repeat(600)}`)
  })

  it('keeps the last resort, or else a JSON string, when the parts still hold a secret together', () => {
    // A run of 12 of this secret stands only across a string and a number.
    mask('wqzvjk",9876543')
    const text = '["wqzvjk",9876543]'
    expect(redact(text)).toBe('["***]')
    expect(redactJson(text)).toBe(JSON.stringify('["***]'))
    expect(redactJson(text, value => ({ items: (value as unknown[]).length }))).toBe('{"items":2}')
  })

  it('gives a string where redaction withholds the whole text', () => {
    mask('p4ss***word-secret')
    const text = '{"k":"p4ssp4ss***word-secretword-secret","n":1}'
    expect(redact(text)).toBe(WITHHELD)
    expect(JSON.parse(redactJson(text))).toEqual({ k: WITHHELD, n: 1 })
  })
})
