import { jest } from '@jest/globals'
import { Fragments, LONG_TEXT } from '../../src/redact/fragments.js'
import { base64Forms, hexForms, spacedHexForms, textForms } from '../../src/redact/forms.js'

const SECRET = 'Zq8!mW2#pL5@vN9$'

function spansIn(text: string, ...secrets: string[]): string[] {
  const fragments = new Fragments()
  for (const secret of secrets) fragments.add(secret)
  const spans: number[] = []
  fragments.find(text, spans)
  const found = new Set<string>()
  for (let k = 0; k < spans.length; k += 2) found.add(text.slice(spans[k], spans[k + 1]))
  return [...found]
}

/** The spans find() appends, as it appends them. */
function rawSpans(text: string, first: boolean, ...secrets: string[]): number[] {
  const fragments = new Fragments()
  for (const secret of secrets) fragments.add(secret)
  const spans: number[] = []
  fragments.find(text, spans, first)
  return spans
}

describe('Fragments', () => {
  it('finds a run of 12 characters at any place of the text, and not one of 11', () => {
    // The text is looked up every 10 characters: every offset from one place looked up to the next.
    for (let pad = 0; pad < 31; pad++) {
      const text = `${'.'.repeat(pad)}<${SECRET.slice(3, 15)}>`
      expect(spansIn(text, SECRET)).toEqual([SECRET.slice(3, 15)])
      expect(spansIn(`${'.'.repeat(pad)}<${SECRET.slice(3, 14)}>`, SECRET)).toEqual([])
    }
  })

  it('finds a secret of punctuation, whose characters a text looked up passes over in other blocks', () => {
    const secret = '!@#$%^&*()_+-=[]{};:'
    for (let pad = 0; pad < 10; pad++) {
      const text = `${'a'.repeat(pad)}"${secret.slice(2, 16)}",`
      expect(spansIn(text, secret)).toEqual([secret.slice(2, 16)])
    }
    // Its characters in another order are no run of it.
    expect(spansIn(`x${[...secret].reverse().join('')}x`, secret)).toEqual([])
  })

  it('finds a secret of characters beyond ASCII, in a text of them', () => {
    const secret = 'пароль-секрет-длинный'
    for (let pad = 0; pad < 10; pad++) {
      expect(spansIn(`${'ж'.repeat(pad)} ${secret.slice(1, 14)} ж`, secret)).toEqual([secret.slice(1, 14)])
    }
  })

  it('passes a block of the text that only shares a hash with a block of a secret', () => {
    // "aa\u0082" hashes as "abc" does: the bitmap lets it through, the map of blocks does not.
    const secret = 'abcdefghijklmnop'
    expect(spansIn(`${'.'.repeat(10)}aa\u0082${'.'.repeat(7)}`, secret)).toEqual([])
    expect(spansIn(`${'.'.repeat(10)}${secret}`, secret)).toEqual([secret])
  })

  it('takes a short secret that is not base64 without the characters beside it', () => {
    expect(spansIn('xk3y!y', 'k3y!')).toEqual(['k3y!'])
    expect(spansIn('the value is undefined', 'k3y!')).toEqual([])
  })

  it('finds a short secret whole only', () => {
    expect(spansIn('a k3y! b', 'k3y!')).toEqual(['k3y!'])
    expect(spansIn('a k3y b', 'k3y!')).toEqual([])
    expect(spansIn('ab', 'abc')).toEqual([]) // under 4 characters: never redacted
    expect(spansIn('abc', 'abc')).toEqual([])
  })

  it('finds a short secret at the start of the text, and each time it is there, unless asked for one', () => {
    expect(rawSpans('k3y! k3y! x', false, 'k3y!')).toEqual([0, 4, 5, 9])
    expect(rawSpans('k3y! k3y! x', true, 'k3y!')).toEqual([0, 4])
  })

  it('is empty until it holds a secret of 4 characters or more', () => {
    const fragments = new Fragments()
    expect(fragments.empty).toBe(true)
    fragments.add('abc')
    expect(fragments.empty).toBe(true)
    fragments.add('abcd')
    expect(fragments.empty).toBe(false)
  })

  it('reports a match once however often its secret was added', () => {
    const text = `<${SECRET}> <${SECRET.slice(2, 14)}> <k3y!>`
    expect(rawSpans(text, false, SECRET, 'k3y!', SECRET, 'k3y!')).toEqual(rawSpans(text, false, SECRET, 'k3y!'))
  })

  it('finds a secret of 11 characters whole where its last block ends the text or is followed', () => {
    const secret = 'k8#Qz!mW2pL'
    expect(spansIn(`.${secret}`, secret)).toEqual([secret])
    expect(spansIn(`.${secret}.`, secret)).toEqual([secret])
  })

  it('finds a run that starts where another ends', () => {
    const [long, short] = ['Zq8!mW2#pL5@', 'k8#Qz!mW2pL']
    expect(spansIn(`${long}${short}.`, long, short)).toEqual([long, short])
    expect(spansIn(`${long}${'.'.repeat(40)}${short}.`, long, short)).toEqual([long, short])
  })

  it('walks a long run once, not again from each of its blocks', () => {
    const secret = 'abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWX'
    const spans = rawSpans(`....${secret}....`, false, secret)
    expect(new Set(spans)).toEqual(new Set([4, 64]))
    expect(spans.length / 2).toBeLessThanOrEqual(2) // of its 10 blocks
  })

  it('looks a block of a secret up in its chains only when a window of 6 through it is one too', () => {
    const fragments = new Fragments()
    fragments.add(SECRET)
    const runsAt = jest.spyOn(fragments as unknown as { runsAt: () => number }, 'runsAt')
    // Each block of the secret alone, where the text is looked up: in the bitmap, no window about it.
    const blocks = Array.from({ length: SECRET.length - 2 }, (_, p) => `${SECRET.slice(p, p + 3)}.......`)
    const spans: number[] = []
    // Not before the first long text: a step's first texts are short, and it starts sooner so.
    fragments.find(blocks.join(''), spans)
    expect([spans, runsAt.mock.calls.length]).toEqual([[], blocks.length])
    fragments.find('.'.repeat(LONG_TEXT), spans)
    runsAt.mockClear()
    fragments.find(blocks.join(''), spans)
    expect([spans, runsAt.mock.calls.length]).toEqual([[], 0])
    fragments.find(`${blocks.join('')}${SECRET.slice(0, 12)}`, spans)
    expect([spans.length, runsAt.mock.calls.length]).toEqual([2, 1])
  })

  it('finds a run of a secret added after its first long text, as of one added before', () => {
    const fragments = new Fragments()
    fragments.add(SECRET)
    fragments.find('.'.repeat(LONG_TEXT), [])
    const later = 'Lk8Jh-mN2bV-Qw3Er9T'
    fragments.add(later)
    for (const [secret, at] of [
      [SECRET, 2],
      [later, 4]
    ] as const) {
      const spans: number[] = []
      fragments.find(`.....${secret.slice(at, at + 12)}.....`, spans)
      expect(spans).toEqual([5, 17])
    }
  })

  it('finds the run around a block that two secrets share, for each of them', () => {
    const [a, b] = ['Xy7-prod-Qw3Er9T', 'mN2bV-prod-Lk8Jh']
    // The only block at a multiple of 6 inside each run is -prod-.
    expect(spansIn(`...${a.slice(0, 12)}...`, a, b)).toEqual([a.slice(0, 12)])
    expect(spansIn(`.${b.slice(0, 12)}.`, a, b)).toEqual([b.slice(0, 12)])
  })

  it("holds each block of each form once, and none of a JWT's header", () => {
    // Every form here is long enough to be looked up by block: each 3-character block at each place.
    const blocksOf = (forms: string[], skip = 0): number =>
      [...new Set(forms)].reduce((sum, form) => sum + form.length - 2 - skip, 0)
    const plain = new Fragments()
    plain.add(SECRET)
    const unspaced = blocksOf(textForms(SECRET)) + blocksOf(hexForms(SECRET)) + blocksOf(base64Forms(SECRET))
    expect(plain.blocks).toBe(unspaced)
    // The spaced hex forms are made once a text may hold one: four hex pairs, one separator.
    for (const text of ['ab cd, ef 0x1', 'at 2026-12-08 14:13:52', 'ab:cd:ef-01', 'ab cd ef:01 23']) {
      plain.find(text, [])
      expect(plain.blocks).toBe(unspaced)
    }
    plain.find('ab:cd:ef:01', [])
    expect(plain.blocks).toBe(unspaced + blocksOf(spacedHexForms(SECRET)))
    const jwt = 'eyJhbGciOiJFUzI1NiIsImtpZCI6IjEifQ.eyJzdWIiOiJib3QiLCJleHAiOjF9.c2lnbmF0dXJl'
    const header = jwt.indexOf('.') + 1
    const token = new Fragments()
    token.add(jwt)
    token.find('.'.repeat(LONG_TEXT), []) // a long text: they are made at once
    // The header's blocks are left out, but for the last two that end past it.
    expect(token.blocks).toBe(
      blocksOf(textForms(jwt), header - 2) +
        blocksOf(hexForms(jwt), 2 * header - 2) +
        blocksOf(spacedHexForms(jwt), 3 * header - 2) +
        blocksOf(base64Forms(jwt))
    )
  })

  it('makes room at once for a form with more blocks than twice its table holds', () => {
    // 1,500 characters, none of its runs repeated: its hex forms are 3,000 blocks each, three times
    // the table's first room.
    let x = 7
    const secret = Array.from({ length: 1500 }, () => {
      x = (Math.imul(x, 1103515245) + 12345) & 0x7fffffff
      return 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'[(x >>> 16) % 62]
    }).join('')
    const fragments = new Fragments()
    fragments.add(secret)
    for (const at of [0, 700, 1488]) {
      const run = secret.slice(at, at + 12)
      const spans: number[] = []
      for (const hex of [Buffer.from(run).toString('hex'), Buffer.from(run).toString('hex').toUpperCase()]) {
        fragments.find(`<${hex}>`, spans, true)
        expect(spans).toEqual([1, 25])
        spans.length = 0
      }
      fragments.find(`..${run}..`, spans, true)
      expect(spans).toEqual([2, 14])
    }
  })

  it('finds runs of the first secret and the last as its table grows far past its first room', () => {
    // Each secret of 40 characters is some 20 forms of 40-odd blocks: 30 are 20,000-odd places.
    const secrets = Array.from(
      { length: 30 },
      (_, i) => `s${i}-` + `${i}`.repeat(4) + 'Qw3Er9TyU7iO1pA5sD2fG6hJ8kL0zX4cV'.slice(i % 7)
    )
    const fragments = new Fragments()
    for (const secret of secrets) fragments.add(secret)
    for (const secret of [secrets[0], secrets[14], secrets[29]]) {
      const run = secret.slice(1, 13)
      const spans: number[] = []
      fragments.find(`..${run}..`, spans, true)
      expect(spans).toEqual([2, 14])
      const hex = Buffer.from(run).toString('hex')
      spans.length = 0
      fragments.find(`<${hex}>`, spans, true)
      expect(spans).toEqual([1, 25])
    }
  })

  it('takes no run from a block that only shares its hash and chain with a block of the secret', () => {
    // "zAa" and "zBB" hash alike; the nine characters after the block are the secret's, but the run
    // is only those nine: under 12, no secret.
    const secret = 'zAaQw3Er9TyU7iO1pB'
    expect(spansIn(`zBB${secret.slice(3, 12)}`, secret)).toEqual([])
    expect(spansIn(`zAa${secret.slice(3, 12)}`, secret)).toEqual([secret.slice(0, 12)])
  })

  it('takes no block for the secret that only hashes as one of its blocks does', () => {
    // 'Aa' and 'BB' hash alike: so do AaAaAa and BBBBBB.
    expect(spansIn('BBBBBB', 'AaAaAa-xyz12')).toEqual([])
  })

  it('finds the UTF-8 bytes of a secret of non-ASCII characters only, one character each', () => {
    const secret = 'парольсекрет'
    const bytes = Buffer.from(secret, 'utf8').toString('latin1')
    expect(spansIn(`"${bytes}"`, secret)).toEqual([bytes])
  })

  it('finds the secret with + for each space, as form encoding writes it', () => {
    expect(spansIn('x=pass+phrase+here+ok', 'pass phrase here ok')).toEqual(['pass+phrase+here+ok'])
  })

  it.each([0, 1, 2])('finds the base64 of the secret at byte offset %i, with the characters it shares', shift => {
    const blob = Buffer.from(`${'ab'.slice(0, shift)}${SECRET}xyz`).toString('base64')
    const [found] = spansIn(`"${blob}"`, SECRET)
    const start = blob.indexOf(found)
    expect(found.length).toBeGreaterThanOrEqual(20)
    // What is left either side decodes to the bytes around the secret, and part of one of its bytes.
    expect(start).toBeLessThanOrEqual(2)
    expect(blob.length - start - found.length).toBeLessThanOrEqual(6)
  })

  it('finds base64url and the base64 of the form-encoded secret (HTTP Basic)', () => {
    const secret = 'a b/c+d?e~f>g<h'
    const url = Buffer.from(secret).toString('base64url')
    expect(url).toContain('-')
    expect(spansIn(url, secret)).toContain(url)
    const basic = Buffer.from(`id:${new URLSearchParams({ s: secret }).toString().slice(2)}`).toString('base64')
    expect(spansIn(basic, secret)).toEqual([basic.slice(3)]) // from the character 'id:' shares
  })

  it('finds the base64 of a secret that form encoding leaves as it is, and base64url with _ and -', () => {
    const plain = 'abcDEF123456ghiJKL'
    expect(spansIn(Buffer.from(plain).toString('base64'), plain)).toEqual([Buffer.from(plain).toString('base64')])
    const secret = 'a?b>c?d>e?f>g?h'
    const url = Buffer.from(secret).toString('base64url')
    expect(url).toMatch(/_.*-/)
    expect(spansIn(url, secret)).toEqual([url])
  })

  it('takes the characters beside a base64 run only where the run reaches the edge of the form', () => {
    const blob = Buffer.from(SECRET).toString('base64') // WnE4IW1XMiNwTDVAdk45JA==
    const inner = blob.slice(2, 20)
    expect(`${blob[1]}${blob[20]}`).not.toContain('+')
    expect(spansIn(`+${inner}+`, SECRET)).toEqual([inner])
  })

  it('matches a run of 15 base64 characters of a secret of 12, as of a longer one', () => {
    const secret = SECRET.slice(0, 12)
    const blob = Buffer.from(secret).toString('base64')
    expect(spansIn(`${blob.slice(0, 15)}.`, secret)).toEqual([blob.slice(0, 15)])
  })

  it('looks for the base64 of a short secret from 8 characters, with the mixed characters beside it', () => {
    expect(spansIn(Buffer.from('k3y!').toString('base64'), 'k3y!')).toEqual([]) // azN5I: 5 characters
    expect(spansIn(`x ${Buffer.from('abc123').toString('base64')} x`, 'abc123')).toEqual(['YWJjMTIz'])
    const nine = 'k8#Qz!mW2'
    const blob = Buffer.from(`x${nine}yz`).toString('base64') // eGs4I1F6IW1XMnl6
    expect(spansIn(blob, nine)).toEqual([blob.slice(1, 14)])
    // A form found whole (10 characters, under the blocks' 12) takes the mixed characters too.
    const eight = Buffer.from('xk8#Qz!mWyz').toString('base64') // eGs4I1F6IW1XeXo=
    expect(spansIn(`"${eight}"`, 'k8#Qz!mW')).toEqual([eight.slice(1, 13)])
    expect(spansIn(`"${eight.slice(2, 12)}"`, 'k8#Qz!mW')).toEqual([eight.slice(2, 12)])
  })

  it.each(['hex', 'HEX'])('finds 12 bytes of a secret in %s at any place of the text, and not 11', hexCase => {
    const hex = (text: string) => Buffer.from(text).toString('hex')[hexCase === 'hex' ? 'toLowerCase' : 'toUpperCase']()
    for (let pad = 0; pad < 31; pad++) {
      const twelve = hex(SECRET.slice(3, 15))
      expect(spansIn(`${'.'.repeat(pad)}<${twelve}>`, SECRET)).toEqual([twelve])
      expect(spansIn(`${'.'.repeat(pad)}<${hex(SECRET.slice(3, 14))}>`, SECRET)).toEqual([])
    }
  })

  // A byte dump (od -An -tx1), a fingerprint (aa:bb:…), Python's bytes.hex('-'): one separator a byte.
  it.each([' ', ':', '-'].flatMap(separator => [[separator, 'lower'] as const, [separator, 'upper'] as const]))(
    'finds 12 bytes of a secret in hex split by "%s", %s case, at any place of the text, and not 11',
    (separator, hexCase) => {
      const spaced = (text: string) => {
        const hex = (Buffer.from(text).toString('hex').match(/../g) ?? []).join(separator)
        return hexCase === 'lower' ? hex : hex.toUpperCase()
      }
      for (let pad = 0; pad < 31; pad++) {
        const twelve = spaced(SECRET.slice(3, 15))
        expect(twelve).toHaveLength(35)
        expect(spansIn(`${'.'.repeat(pad)}<${twelve}>`, SECRET)).toEqual([twelve])
        expect(spansIn(`${'.'.repeat(pad)}<${spaced(SECRET.slice(3, 14))}>`, SECRET)).toEqual([])
      }
      // Inside a longer dump: the secret's bytes, and none of those around them.
      const dump = spaced(`\u0000${SECRET}z`)
      expect(spansIn(dump, SECRET)).toEqual([spaced(SECRET)])
      // A short secret, whole only.
      expect(spansIn(`x ${spaced('k3y!')} x`, 'k3y!')).toEqual([spaced('k3y!')])
      expect(spansIn(`x ${spaced('k3y')} x`, 'k3y!')).toEqual([])
    }
  )

  it('does not take hex with two separators between bytes, or with mixed separators, as a form', () => {
    const pairs = Buffer.from(SECRET).toString('hex').match(/../g) ?? []
    // After a long text, the spaced forms are made: what is not found is not found by the matcher.
    const long = '.'.repeat(LONG_TEXT)
    expect(spansIn(`${long}${pairs.join('  ')}`, SECRET)).toEqual([])
    expect(spansIn(`${long}${pairs.map((pair, k) => (k % 2 ? `${pair}:` : `${pair} `)).join('')}`, SECRET)).toEqual([])
    expect(spansIn(`${long}${pairs.join(' ')}`, SECRET)).toEqual([pairs.join(' ')])
  })

  it('finds spaced hex form-encoded, with + between bytes, as a query holds it', () => {
    const pairs = Buffer.from(SECRET).toString('hex').match(/../g) ?? []
    expect(spansIn(`q=${pairs.join('+')}&x=1`, SECRET)).toEqual([pairs.join('+')])
    expect(spansIn(`q=${pairs.join('+').toUpperCase()}`, SECRET)).toEqual([pairs.join('+').toUpperCase()])
  })

  it('finds the hex of a secret inside a longer hex blob, and nothing of the bytes around it', () => {
    const blob = Buffer.from(`\u0000${SECRET}\u00ff`).toString('hex')
    expect(spansIn(blob, SECRET)).toEqual([Buffer.from(SECRET).toString('hex')])
    expect(spansIn(blob.toUpperCase(), SECRET)).toEqual([Buffer.from(SECRET).toString('hex').toUpperCase()])
    // Hex in mixed case is no form: a hex dump writes one case.
    const mixed = Buffer.from(SECRET)
      .toString('hex')
      .replace(/[a-f](?=.)/, c => c.toUpperCase())
    expect(mixed).not.toMatch(/^[0-9a-f]+$|^[0-9A-F]+$/)
    expect(spansIn(mixed, SECRET)[0]).not.toBe(mixed)
  })

  it('finds the hex of a short secret whole only, from 8 digits', () => {
    expect(spansIn('x 6b337921 x', 'k3y!')).toEqual(['6b337921']) // 8 digits: looked for by indexOf
    expect(spansIn('x 6B337921 x', 'k3y!')).toEqual(['6B337921'])
    expect(spansIn('x 6b3379 x', 'k3y!')).toEqual([])
    const eleven = 'k8#Qz!mW2pL'
    const hex = Buffer.from(eleven).toString('hex') // 22 digits: looked for by block, whole
    expect(spansIn(`.${hex}.`, eleven)).toEqual([hex])
    expect(spansIn(`.${hex.slice(2)}.`, eleven)).toEqual([])
  })

  it('finds the hex of a secret of 8 to 11 characters whole at any place of the text', () => {
    // 16 to 22 digits: each is looked up by the blocks at a stride its length holds one of.
    for (const secret of ['k8#Qz!mW', 'k8#Qz!mW2', 'k8#Qz!mW2p', 'k8#Qz!mW2pL']) {
      const hex = Buffer.from(secret).toString('hex')
      for (let pad = 0; pad < 30; pad++) expect(spansIn(`${'.'.repeat(pad)}${hex}.`, secret)).toEqual([hex])
    }
  })

  it("takes no hex run inside a JWT's header for the token, and one of 12 bytes past it", () => {
    const jwt = 'eyJhbGciOiJFUzI1NiIsImtpZCI6IjEifQ.eyJzdWIiOiJib3QiLCJleHAiOjF9.c2lnbmF0dXJl'
    const header = jwt.slice(0, jwt.indexOf('.') + 1)
    const hex = (text: string) => Buffer.from(text).toString('hex')
    expect(spansIn(hex(`${header}eyJzdWIiOiJ0aGVtIn0.eA`), jwt)).toEqual([]) // 11 past the header
    expect(spansIn(hex(`${header}eyJzdWIiOiJi.`), jwt)).toEqual([hex(`${header}eyJzdWIiOiJi`)])
    expect(spansIn(hex(`${header}eyJzdWIiOiJi.`).toUpperCase(), jwt)).toEqual([
      hex(`${header}eyJzdWIiOiJi`).toUpperCase()
    ])
  })

  it("takes no spaced hex run inside a JWT's header for the token, and one of 12 bytes past it", () => {
    const jwt = 'eyJhbGciOiJFUzI1NiIsImtpZCI6IjEifQ.eyJzdWIiOiJib3QiLCJleHAiOjF9.c2lnbmF0dXJl'
    const header = jwt.slice(0, jwt.indexOf('.') + 1)
    const spaced = (text: string) => (Buffer.from(text).toString('hex').match(/../g) ?? []).join(' ')
    expect(spansIn(spaced(`${header}eyJzdWIiOiJ0aGVtIn0.eA`), jwt)).toEqual([]) // 11 past the header
    // The separator after the run is the form's own (the next byte differs): it goes with the run.
    expect(spansIn(spaced(`${header}eyJzdWIiOiJi.`), jwt)).toEqual([`${spaced(`${header}eyJzdWIiOiJi`)} `])
  })

  it('runs its matching path on its own forms once, before the first long text it searches', () => {
    const fragments = new Fragments()
    fragments.add(SECRET)
    const find = jest.spyOn(fragments, 'find')
    const searched = () => find.mock.calls.map(([text]) => (text.length >= LONG_TEXT - 1 ? text.length : text))
    fragments.find('a short text', [])
    fragments.find('x'.repeat(LONG_TEXT - 1), [])
    const long = `${'x'.repeat(LONG_TEXT - SECRET.length)}${SECRET}`
    const spans: number[] = []
    fragments.find(long, spans)
    fragments.find(long, [])
    // The secret, then its first base64 form: the matching paths of both kinds of form.
    const base64 = Buffer.from(SECRET)
      .toString('base64')
      .slice(0, Math.floor((8 * SECRET.length) / 6))
    expect(searched()).toEqual(['a short text', LONG_TEXT - 1, LONG_TEXT, SECRET, base64, LONG_TEXT])
    expect(spans).toEqual([LONG_TEXT - SECRET.length, LONG_TEXT])
  })

  // pw-1234's hex is a form of blocks, its base64 is not; pw-12 has no form of blocks at all.
  it.each(['pw-1234', 'pw-12'])('searches a long text with a table without a form of each kind (%s)', secret => {
    const long = `${'x'.repeat(LONG_TEXT)} ${secret}`
    expect(spansIn(long, secret)).toEqual([secret])
  })

  it('leaves out the forms of a short secret it looks up by block when asked for long runs only', () => {
    // 11 characters: its hex (22 digits) and spaced hex (32) are looked up by block, and whole.
    const short = 'k8#Qz!mW2pL'
    const fragments = new Fragments()
    fragments.add(short)
    fragments.add(SECRET)
    const spaced = (text: string) => (Buffer.from(text).toString('hex').match(/../g) ?? []).join(' ')
    const found = (text: string, longOnly: boolean): string[] => {
      const spans: number[] = []
      fragments.find(text, spans, false, longOnly)
      return spans.length === 0 ? [] : [text.slice(spans[0], spans[1])]
    }
    for (const form of [Buffer.from(short).toString('hex'), spaced(short)]) {
      expect(found(`<${form}>`, false)).toEqual([form])
      expect(found(`<${form}>`, true)).toEqual([])
    }
    // A longer secret's runs, in the same forms, are found all the same.
    const run = SECRET.slice(2, 14)
    for (const form of [run, Buffer.from(run).toString('hex'), spaced(run)]) {
      expect(found(`<${form}>`, true)).toEqual([form])
    }
  })

  it('stops at the first match when asked', () => {
    const fragments = new Fragments()
    fragments.add(SECRET)
    const spans: number[] = []
    fragments.find(`${SECRET} and ${SECRET}`, spans, true)
    expect(spans).toEqual([0, SECRET.length])
  })

  it("takes no run inside a JWT's header for the token, and one of 12 past it", () => {
    const jwt = 'eyJhbGciOiJFUzI1NiIsImtpZCI6IjEifQ.eyJzdWIiOiJib3QiLCJleHAiOjF9.c2lnbmF0dXJl'
    const header = jwt.slice(0, jwt.indexOf('.') + 1)
    expect(spansIn(`${header}eyJzdWIiOiJ0aGVtIn0.eA`, jwt)).toEqual([]) // 11 past the header
    expect(spansIn(`x${header}eyJzdWIiOiJi.`, jwt)).toEqual([`${header}eyJzdWIiOiJi`])
    expect(spansIn(`"${jwt.slice(-12)}"`, jwt)).toEqual([jwt.slice(-12)])
  })

  it("takes a JWT's header as public at the start of a secret only", () => {
    const secret = 'Zq8!mW2#pL5@eyJhbGci.eyJzdWIi.c2lnbmF0dXJl'
    expect(spansIn(`<${secret.slice(0, 12)}>`, secret)).toEqual([secret.slice(0, 12)])
  })
})
