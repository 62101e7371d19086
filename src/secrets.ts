import * as core from '@actions/core'

// Every form of a secret that we or a server might print. The runner hides a registered value as
// it is and base64-, JSON-, upper-case URI- and XML-escaped; a server may echo it in forms the
// runner does not hide, so those are registered and redacted too.
const variants = new Set<string>()

/** Registers a secret, and the forms of it a server may echo, with the runner and with redact(). */
export function mask(value: string): void {
  if (value.trim() === '') return
  register(value)
  // A log line can hold part of a multi-line secret: mask each line on its own too.
  for (const line of value.split(/\r?\n/)) if (line !== value && line.trim().length >= 4) register(line)
  const forms = echoedForms(value)
  for (const form of forms) if (form.length >= 4) variants.add(form)
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
  variants.add(pem)
  for (const line of pem.split(/\r?\n/)) if (!line.startsWith('-----') && line.trim().length >= 4) mask(line.trim())
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
    htmlEscaped(value, c => NAMED_REFERENCES[c] ?? `&#${c.codePointAt(0)};`)
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

let longestFirst: string[] = []
let sortedCount = -1

export function redact(text: string): string {
  // Sorted again only when a secret was added since: redact() runs for every call's result.
  if (sortedCount !== variants.size) {
    longestFirst = [...variants].sort((a, b) => b.length - a.length)
    sortedCount = variants.size
  }
  let out = text
  for (const v of longestFirst) if (out.includes(v)) out = out.split(v).join('***')
  return out
}

// eslint-disable-next-line no-control-regex
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f]+/g

/** A short, single-line, redacted excerpt of a response body, safe to put in a message. */
export function excerpt(text: string, max = 300): string {
  const clean = redact(text).replace(CONTROL_CHARACTERS, ' ').trim()
  return clean.length > max ? `${clean.slice(0, max)}…` : clean
}
