import * as core from '@actions/core'

// Every form a secret can take in text we might quote: as given, JSON-escaped
// (an error body echoing a request) and URL-encoded (a form body or a URL).
const variants = new Set<string>()

export function mask(value: string): void {
  if (value.trim() === '') return
  core.setSecret(value)
  // A log line can hold part of a multi-line secret: mask each line on its own too.
  for (const line of value.split(/\r?\n/)) if (line !== value && line.trim().length >= 4) core.setSecret(line)
  for (const v of [value, JSON.stringify(value).slice(1, -1), encodeURIComponent(value)]) {
    if (v.length >= 4) variants.add(v)
  }
}

export function redact(text: string): string {
  let out = text
  const longestFirst = [...variants].sort((a, b) => b.length - a.length)
  for (const v of longestFirst) out = out.split(v).join('***')
  return out
}

// eslint-disable-next-line no-control-regex
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f]+/g

/** A short, single-line, redacted excerpt of a response body, safe to put in a message. */
export function excerpt(text: string, max = 300): string {
  const clean = redact(text).replace(CONTROL_CHARACTERS, ' ').trim()
  return clean.length > max ? `${clean.slice(0, max)}…` : clean
}
