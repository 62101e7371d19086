import { excerpt } from '../secrets.js'

/** How much of what a service said the summaries and the log show. */
export const SAID_CHARS = 160
/** Bodies longer than this are shown as text: parsing them for a message field costs at scale. */
const PARSED_CHARS = 64 * 1024
/** The fields a service's JSON error puts its sentence in, in the order they are looked for. */
const MESSAGE_FIELDS = ['message', 'detail', 'error_description', 'error', 'title']

/**
 * What a service said, as a person reads it: a JSON body's message field (`message`, `detail`,
 * `error_description`, `error`, also one level down in an `error` object) unescaped, else the text;
 * redacted, on one line, and cut at a word boundary with an ellipsis. Not yet inert: a Markdown
 * cell escapes it (cell()), a log line is written as data.
 */
export function serviceSaid(said: unknown, maxChars = SAID_CHARS): string {
  const message = messageIn(said)
  if (message !== undefined) return cutAtWord(message, maxChars)
  if (typeof said === 'string') return cutAtWord(said, maxChars)
  if (said == null) return ''
  return cutAtWord(JSON.stringify(said) ?? '', maxChars)
}

function messageIn(said: unknown, depth = 0): string | undefined {
  let value = said
  if (typeof said === 'string') {
    const text = said.trim()
    if (!text.startsWith('{') || text.length > PARSED_CHARS) return undefined
    try {
      value = JSON.parse(text)
    } catch {
      return undefined
    }
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined
  const fields = value as Record<string, unknown>
  for (const field of MESSAGE_FIELDS) {
    const found = fields[field]
    if (typeof found === 'string' && found.trim() !== '') return found
    if (field === 'error' && depth === 0 && typeof found === 'object') {
      const inner = messageIn(found, 1)
      if (inner !== undefined) return inner
    }
  }
  return undefined
}

/** Redacted and on one line (excerpt()), then cut after the last whole word that fits. */
function cutAtWord(text: string, maxChars: number): string {
  const short = excerpt(text, maxChars)
  if (!short.endsWith('…') || short.length <= maxChars) return short
  const body = short.slice(0, -1)
  const space = body.lastIndexOf(' ')
  // A word longer than half the room is cut where it is: no word boundary is near.
  const kept = space >= maxChars / 2 ? body.slice(0, space) : body
  return `${kept.replace(/[\s,;:.-]+$/, '')}…`
}
