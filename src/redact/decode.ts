/**
 * One layer of the encodings a server may write a secret in, undone: percent-encoding (hex in any
 * case, UTF-8 sequences as their character), HTML character references (decimal, hex in any case,
 * named) and JSON/JS escapes (\uXXXX and \u{…} in any case, \xHH, \/ and the other one-letter
 * escapes). Every other character stays itself; form encoding's + is matched, not decoded (see
 * fragments.ts). A step reads one character or one sequence and gives what it stands for.
 */

/** Whether a text holds a character that starts a sequence decode() would change. */
export function mayBeEncoded(text: string): boolean {
  // Every page of a listing is asked: three searches for one character cost a sixth of one pass
  // of /[%&\\]/.
  return text.includes('%') || text.includes('&') || text.includes('\\')
}
const SEQUENCE_START = /[%&\\]/g

const HEX = /^[0-9A-Fa-f]+$/

/** What one step read: the text it stands for, and where the next step starts. */
interface Step {
  readonly text: string
  readonly next: number
}

/** The text `input` stands for with one layer of encoding undone. */
export function decode(input: string): string {
  let out = ''
  let literal = 0
  const starts = SEQUENCE_START
  starts.lastIndex = 0
  for (let match = starts.exec(input); match; match = starts.exec(input)) {
    const step = sequenceAt(input, match.index)
    if (step === undefined) continue
    out += input.slice(literal, match.index) + step.text
    literal = starts.lastIndex = step.next
  }
  return literal === 0 ? input : out + input.slice(literal)
}

/**
 * Where the characters [from, to) of decode(input) came from in `input`: a span that holds every
 * sequence any of them was decoded from. Walks the input again; redaction calls it only for a match.
 */
export function sourceSpan(input: string, from: number, to: number): [number, number] {
  let produced = 0
  let start = -1
  for (let i = 0; i < input.length;) {
    const step = sequenceAt(input, i) ?? { text: input[i], next: i + 1 }
    const after = produced + step.text.length
    if (start < 0 && after > from) start = i
    if (after >= to && start >= 0) return [start, step.next]
    produced = after
    i = step.next
  }
  return [start < 0 ? input.length : start, input.length]
}

/** The sequence that starts at `i` (a %, & or \), or undefined when none does. */
function sequenceAt(input: string, i: number): Step | undefined {
  switch (input.charCodeAt(i)) {
    case 0x25:
      return percentAt(input, i)
    case 0x26:
      return referenceAt(input, i)
    case 0x5c:
      return escapeAt(input, i)
    default:
      return undefined
  }
}

function hexAt(input: string, i: number, length: number): number | undefined {
  const digits = input.slice(i, i + length)
  return digits.length === length && HEX.test(digits) ? parseInt(digits, 16) : undefined
}

/** %XX, and a whole UTF-8 sequence of them as its character; a stray byte as the byte. */
function percentAt(input: string, i: number): Step | undefined {
  const lead = hexAt(input, i + 1, 2)
  if (lead === undefined) return undefined
  const length = lead >= 0xf0 && lead <= 0xf4 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc2 && lead < 0xe0 ? 2 : 1
  if (length > 1) {
    const bytes = [lead]
    for (let k = 1; k < length; k++) {
      const at = i + 3 * k
      const byte = input[at] === '%' ? hexAt(input, at + 1, 2) : undefined
      if (byte === undefined || (byte & 0xc0) !== 0x80) break
      bytes.push(byte)
    }
    if (bytes.length === length) {
      const text = Buffer.from(bytes).toString('utf8')
      if (!text.includes('\ufffd')) return { text, next: i + 3 * length }
    }
  }
  return { text: String.fromCharCode(lead), next: i + 3 }
}

const NAMED: Readonly<Record<string, string>> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  excl: '!',
  num: '#',
  dollar: '$',
  percnt: '%',
  lpar: '(',
  rpar: ')',
  ast: '*',
  midast: '*',
  plus: '+',
  comma: ',',
  period: '.',
  sol: '/',
  colon: ':',
  semi: ';',
  equals: '=',
  quest: '?',
  commat: '@',
  lsqb: '[',
  lbrack: '[',
  bsol: '\\',
  rsqb: ']',
  rbrack: ']',
  Hat: '^',
  lowbar: '_',
  UnderBar: '_',
  grave: '`',
  DiacriticalGrave: '`',
  lcub: '{',
  lbrace: '{',
  verbar: '|',
  vert: '|',
  VerticalLine: '|',
  rcub: '}',
  rbrace: '}',
  nbsp: '\u00a0',
  Tab: '\t',
  NewLine: '\n'
}
/** The references HTML reads without their semicolon, as browsers do. */
const LEGACY = new Set(['amp', 'lt', 'gt', 'quot', 'AMP', 'LT', 'GT', 'QUOT'])

/** &#39; &#039; &#x2b; &#X2B; &amp; &QUOT; …; the numeric ones with or without their semicolon. */
function referenceAt(input: string, i: number): Step | undefined {
  if (input[i + 1] === '#') {
    const hex = input[i + 2] === 'x' || input[i + 2] === 'X'
    const match = (hex ? /^[0-9A-Fa-f]{1,6}/ : /^[0-9]{1,7}/).exec(input.slice(i + (hex ? 3 : 2), i + 10))
    if (!match) return undefined
    const code = parseInt(match[0], hex ? 16 : 10)
    if (code > 0x10ffff) return undefined
    const end = i + (hex ? 3 : 2) + match[0].length
    return { text: String.fromCodePoint(code), next: input[end] === ';' ? end + 1 : end }
  }
  const match = /^[A-Za-z]{2,16}/.exec(input.slice(i + 1, i + 18))
  if (!match) return undefined
  const name = match[0]
  const end = i + 1 + name.length
  if (input[end] === ';') {
    const text = NAMED[name] ?? (LEGACY.has(name) ? NAMED[name.toLowerCase()] : undefined)
    return text === undefined ? undefined : { text, next: end + 1 }
  }
  // Without a semicolon, only the legacy names, and only their own letters.
  for (const legacy of LEGACY) {
    if (name.startsWith(legacy)) return { text: NAMED[legacy.toLowerCase()], next: i + 1 + legacy.length }
  }
  return undefined
}

const SINGLE: Readonly<Record<string, string>> = {
  '"': '"',
  "'": "'",
  '/': '/',
  '\\': '\\',
  '`': '`',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
  '0': '\0'
}

/** \uXXXX, \UXXXXXXXX, \u{X…}, \xHH and the one-letter escapes, hex in any case. */
function escapeAt(input: string, i: number): Step | undefined {
  const kind = input[i + 1]
  if (kind === 'u' || kind === 'U') {
    if (input[i + 2] === '{') {
      const close = input.indexOf('}', i + 3)
      const code = close > i + 3 && close <= i + 9 ? hexAt(input, i + 3, close - i - 3) : undefined
      return code === undefined || code > 0x10ffff ? undefined : { text: String.fromCodePoint(code), next: close + 1 }
    }
    const long = kind === 'U' ? hexAt(input, i + 2, 8) : undefined
    if (long !== undefined && long <= 0x10ffff) return { text: String.fromCodePoint(long), next: i + 10 }
    const code = hexAt(input, i + 2, 4)
    return code === undefined ? undefined : { text: String.fromCharCode(code), next: i + 6 }
  }
  if (kind === 'x' || kind === 'X') {
    const code = hexAt(input, i + 2, 2)
    return code === undefined ? undefined : { text: String.fromCharCode(code), next: i + 4 }
  }
  const text = kind === undefined ? undefined : SINGLE[kind]
  return text === undefined ? undefined : { text, next: i + 2 }
}
