import * as core from '@actions/core'
import { isRawNumber, numberText, parseExact } from './json.js'
import { nestsDeeperThan } from './json-text.js'
import { Fragments } from './redact/fragments.js'
import { secretSpans, withoutSpans } from './redact/views.js'

// The runner hides a registered value as it is and base64-, JSON-, upper-case URI- and
// XML-escaped; a server may echo it in forms the runner does not hide (hex, base64url, …), so those
// are registered too. redact() does not list forms: it decodes what it reads (src/redact/views.ts).
const fragments = new Fragments()
/** The values given to fragments: a secret among them needs no search of its own. */
const added = new Set<string>()
function addFragments(value: string): void {
  fragments.add(value)
  added.add(value)
}

/** Registers a secret, and the forms of it a server may echo, with the runner and with redact(). */
export function mask(value: string): void {
  if (value.trim() === '') return
  register(value)
  addFragments(value)
  // A log line can hold part of a multi-line secret: mask each line on its own too.
  for (const line of value.split(/\r?\n/)) {
    if (line !== value && line.trim().length >= 4) {
      register(line)
      addFragments(line)
    }
  }
  const forms = echoedForms(value)
  // The runner derives the base64, JSON- and upper-case URI-escaped forms itself; not these.
  for (const form of forms.slice(FIRST_FORM_RUNNER_MISSES)) if (form.length >= 4) register(form)
}

const registered = new Set<string>()
function register(value: string): void {
  if (registered.has(value)) return
  registered.add(value)
  core.setSecret(value)
}

/** A PEM private key: the whole block and each line of it, but not its BEGIN/END markers. */
export function maskPrivateKey(pem: string): void {
  if (pem.trim() === '') return
  register(pem)
  // Redaction takes the key's lines, never its markers: an error may name "PRIVATE KEY-----".
  // Lines are taken without their blanks: a key pasted indented in YAML keeps them on each line.
  const lines = pem
    .split(/\r?\n/)
    .map(line => line.trim())
    .filter(line => !line.startsWith('-----') && line.length >= 4)
  addFragments(lines.join('\n'))
  for (const line of lines) mask(line)
}

/** application/x-www-form-urlencoded, as URLSearchParams writes it (a space is +). */
export function formEncode(value: string): string {
  return new URLSearchParams({ v: value }).toString().slice(2)
}

/** The forms a server may echo a secret in: first those the runner hides by itself. */
export function echoedForms(value: string): string[] {
  const json = JSON.stringify(value).slice(1, -1)
  const uri = encodeURIComponent(value)
  const bytes = Buffer.from(value, 'utf8')
  return [
    value,
    json,
    uri,
    bytes.toString('base64'),
    json.replace(/[^\x20-\x7e]/g, c => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`),
    value
      .split('')
      .map(c => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
      .join(''),
    uri.replace(/%[0-9A-F]{2}/g, hex => hex.toLowerCase()),
    formEncode(value),
    bytes.toString('base64url'),
    // Form encoding with lower-case hex (%7e: Entra secrets hold ~), JSON with escaped slashes,
    // JSON with HTML-sensitive ASCII as \u002B (.NET's System.Text.Json), HTML character references.
    formEncode(value).replace(/%[0-9A-F]{2}/g, hex => hex.toLowerCase()),
    json.replace(/\//g, '\\/'),
    json.replace(
      /[+<>&'`]|\\"/g,
      c => `\\u${(c.length === 2 ? '"' : c).charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`
    ),
    htmlEscaped(value, c => `&#${c.codePointAt(0)};`),
    htmlEscaped(value, c => `&#x${(c.codePointAt(0) as number).toString(16).toUpperCase()};`),
    htmlEscaped(value, c => NAMED_REFERENCES[c] ?? `&#${c.codePointAt(0)};`),
    // Its UTF-8 bytes in hex, as a hex dump or a debug log of bytes writes them.
    bytes.toString('hex'),
    bytes.toString('hex').toUpperCase()
  ]
}

const NAMED_REFERENCES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;'
}

/** The value with the characters HTML escapers escape written as references. */
function htmlEscaped(value: string, reference: (c: string) => string): string {
  return value.replace(/[&<>"'+=`]/g, reference)
}
const FIRST_FORM_RUNNER_MISSES = 4

export const WITHHELD = '[withheld: it holds a secret in a form that could not be cut out]'

/**
 * The text with every run of 12 or more characters of a secret (a shorter secret: the whole of
 * it) replaced by ***, in whatever encoding the text holds it: see src/redact/views.ts. When a
 * replacement leaves a secret readable, the whole text is withheld and says so.
 */
export function redact(text: string): string {
  if (fragments.empty || text.length < 4) return text
  const spans = secretSpans(text, fragments)
  if (spans.length === 0) return text
  const out = withoutSpans(text, spans)
  return secretSpans(out, fragments, true).length > 0 ? WITHHELD : out
}

/** How deep JSON may nest to be redacted part by part: past it, redactJson gives a JSON string. */
const MAX_PARTS_DEPTH = 512

/**
 * JSON text redacted, and still JSON: redact() of the text when that is JSON, as it nearly always
 * is (nothing found, or a string's inside). A secret's hex form can be all digits, so `***` can
 * also fall on a number, an escape or between tokens; the value is then redacted part by part,
 * each key, string and number on its own (a number that changes becomes a string). When the parts
 * still hold a secret together, `lastResort(value)` is kept instead, redacted the same way; failing
 * that, and for JSON too deep to walk, the redacted text as a JSON string. Text that is not JSON
 * is only redacted. Only a text redaction changed is parsed: the common path is redact() alone.
 */
export function redactJson(text: string, lastResort?: (value: unknown) => unknown): string {
  const clean = redact(text)
  if (clean === text || isJson(clean)) return clean
  if (nestsDeeperThan(text, MAX_PARTS_DEPTH)) return isJson(text) ? JSON.stringify(clean) : clean
  let value: unknown
  try {
    value = parseExact(text)
  } catch {
    return clean
  }
  for (const kept of lastResort ? [value, lastResort(value)] : [value]) {
    const out = JSON.stringify(redactParts(kept))
    if (secretSpans(out, fragments, true).length === 0) return out
  }
  return JSON.stringify(clean)
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text)
    return true
  } catch {
    return false
  }
}

/** A parsed value with each key, string and number redacted on its own. */
function redactParts(value: unknown): unknown {
  if (typeof value === 'string') return redact(value)
  if (typeof value === 'number' || isRawNumber(value)) {
    const digits = numberText(value)
    const clean = redact(digits)
    return clean === digits ? value : clean
  }
  if (value === null || typeof value !== 'object') return value
  if (Array.isArray(value)) return value.map(redactParts)
  // No prototype: a key "__proto__" is kept as a key, as JSON.parse kept it.
  const out = Object.create(null) as Record<string, unknown>
  for (const [key, item] of Object.entries(value)) out[redact(key)] = redactParts(item)
  return out
}

/**
 * Whether `text` holds a secret of 12 characters or more in any form redact() finds: any registered
 * one (the client secret, the Basic pair, a private key's lines, an assertion, every token so far),
 * and `also` (the bearer token a request sends) even if it was never registered. One pass when
 * `also` is registered. A shorter secret (a short line of a key) is left out: found only whole, it
 * or its hex would be found in ordinary data, and a listing would fail on a word or a digest.
 */
export function holdsSecret(text: string, also?: string): boolean {
  if (!fragments.empty && secretSpans(text, fragments, true, true).length > 0) return true
  return also !== undefined && !added.has(also) && holdsOnly(text, also)
}

/** Whether `text` holds `secret` itself in any form redact() finds, registered or not. */
export function holdsOnly(text: string, secret: string): boolean {
  // A caller asks of many texts with the same secret: its forms are made once.
  if (lastAsked?.secret !== secret) {
    lastAsked = { secret, fragments: new Fragments() }
    lastAsked.fragments.add(secret)
  }
  return !lastAsked.fragments.empty && secretSpans(text, lastAsked.fragments, true).length > 0
}
let lastAsked: { readonly secret: string; readonly fragments: Fragments } | undefined

/**
 * Where in `value` (a parsed JSON text named `name`) a secret stands, as holdsSecret() finds it: a
 * path such as "targets[3].owner.note", or undefined. Keys are quoted redacted and cut.
 */
export function secretPath(value: unknown, name: string, also?: string): string | undefined {
  if (typeof value === 'string') return holdsSecret(value, also) ? name : undefined
  if (!value || typeof value !== 'object') return undefined
  for (const [key, child] of Object.entries(value)) {
    const found = secretPath(child, Array.isArray(value) ? `${name}[${key}]` : `${name}.${excerpt(key, 40)}`, also)
    if (found) return found
  }
  return undefined
}

/**
 * How much more than it shows a caller should keep of a text it will cut: room past the cut for a
 * run of 12 bytes in any one-layer encoding (35 characters of spaced hex, at most 10 characters a
 * character: &#1114111;), so that a secret across the cut is withheld, not kept up to it.
 */
export const REDACT_MARGIN_CHARS = 384

/**
 * Redacts, then cuts to at most `maxChars` (never inside a surrogate pair): a secret across the
 * cut is withheld whole, not kept up to it. Give it the text with REDACT_MARGIN_CHARS past the cut.
 */
export function redactThenCut(text: string, maxChars: number): { readonly text: string; readonly cut: boolean } {
  const clean = redact(text)
  if (clean.length <= maxChars) return { text: clean, cut: false }
  const high = clean.charCodeAt(maxChars - 1)
  return { text: clean.slice(0, high >= 0xd800 && high <= 0xdbff ? maxChars - 1 : maxChars), cut: true }
}

// eslint-disable-next-line no-control-regex
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f]+/g

/** A short, single-line, redacted excerpt of a response body, safe to put in a message. */
export function excerpt(text: string, max = 300): string {
  // Redacted before it is cut: only the part that can be shown, and the margin, is read.
  const long = text.length > max + REDACT_MARGIN_CHARS
  const head = redact(long ? text.slice(0, max + REDACT_MARGIN_CHARS) : text)
  const clean = head.replace(CONTROL_CHARACTERS, ' ').trim()
  return clean.length > max || long ? `${clean.slice(0, max)}…` : clean
}
