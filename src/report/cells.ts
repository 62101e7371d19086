import { redact } from '../secrets.js'

const MAX_CELL = 80

/**
 * A value as inert Markdown text, safe in a table cell: service data (names, ids) must not become a
 * link, an image, emphasis, math or HTML. The characters that start those are backslash-escaped,
 * which CommonMark renders as the character itself; escaping ":" and "@" and the dot of "www."
 * also breaks GitHub's bare-URL and e-mail autolinks. Line breaks become spaces; long values are cut.
 */
export function cell(value: unknown, maxChars = MAX_CELL): string {
  // Redacted before escaping, which would hide a secret's text from redact().
  const text = redact(value === undefined ? '' : typeof value === 'string' ? value : jsonOf(value))
  // Bidirectional overrides and isolates could make a name read as another: they are dropped.
  const flat = text
    // eslint-disable-next-line no-control-regex
    .replace(/[\s\u0000-\u001f\u007f-\u009f]+/g, ' ')
    .replace(/[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]/g, '')
    .trim()
  const short = flat.length > maxChars ? `${flat.slice(0, maxChars - 1)}…` : flat
  return short.replace(MARKDOWN_SPECIAL, c => `\\${c}`).replace(/(www)\./gi, '$1\\.')
}

/** Shown for a value JSON.stringify cannot write: a summary must not fail the step that made it. */
export const UNSHOWN = '(not shown: nested too deep)'

/** The value's JSON, or UNSHOWN: nested thousands deep, JSON.stringify overflows the stack. */
function jsonOf(value: unknown): string {
  try {
    return JSON.stringify(value) ?? ''
  } catch {
    return UNSHOWN
  }
}

/** Inline Markdown's active characters, GitHub's autolink triggers, and the backslash itself. */
export const MARKDOWN_SPECIAL = /[\\`*_[\]()!<>&|~:@$#]/g
