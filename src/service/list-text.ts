import { stringifiedLength } from '../json.js'

/** String.prototype.isWellFormed (ES2024): no lone surrogate, which JSON.stringify would escape. */
type WellFormed = string & { isWellFormed(): boolean }

/**
 * The list's text in the response, when it is exactly JSON.stringify(targets): a page the service
 * sends compact (no whitespace between tokens), without a backslash, and with the list as the
 * array itself or as its object's first key. Anything else, undefined: the targets are then written
 * by JSON.stringify. Writing the text as it came spares the listing's JSON.stringify of every
 * target (docs/performance.md).
 *
 * Why the slice is the list's JSON: without a backslash, a string needs no escape and every `"`
 * opens or closes one; numbers are written as sent (parseExact). JSON.stringify of the list is
 * then its text less any whitespace and repeated keys, so the same length (stringifiedLength)
 * means the same text. In an object, the slice of that length after `{"targets":` is the array
 * itself when what follows it ends the object: a slice that ended inside the array would leave
 * an odd number of quotes, or a bracket that closes nothing, in what follows.
 */
export function listText(text: string, targets: unknown[], key?: string): string | undefined {
  if (text.includes('\\') || !(text as WellFormed).isWellFormed()) return undefined
  const length = stringifiedLength(targets)
  if (length === undefined) return undefined
  if (key === undefined) {
    const list = text.trim()
    return list.length === length ? list : undefined
  }
  if (!text.startsWith(`{"${key}":[`)) return undefined
  const start = key.length + 4
  const rest = text.slice(start + length)
  let after: unknown
  try {
    after = JSON.parse('{"x":0' + rest)
  } catch {
    return undefined
  }
  // The same key again would be the list JSON.parse kept.
  if (Object.hasOwn(after as object, key)) return undefined
  return text.slice(start, start + length)
}
