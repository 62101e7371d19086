/** String.prototype.isWellFormed (ES2024): no lone surrogate, which JSON.stringify would escape. */
type WellFormed = string & { isWellFormed(): boolean }

/**
 * The list's text in the response, when it is exactly JSON.stringify(targets): a page the service
 * sends compact (no whitespace between tokens, no repeated key), without a backslash, with the list
 * as the array itself or as its object's first key. Anything else, undefined: the targets are then
 * written by JSON.stringify. Writing the text as it came spares the listing's JSON.stringify of
 * every target (docs/performance.md).
 *
 * Why the text is JSON.stringify(body): without a backslash, a string needs no escape and every `"`
 * opens or closes one; numbers are written as sent (parseExact). JSON.stringify of the body is then
 * its text less any whitespace and repeated keys, so the same length (`length`, parseMeasured's)
 * means the same text. The list, its first key, is then the text between `{"targets":` and what
 * JSON.stringify writes for the other keys.
 */
export function listText(
  text: string,
  length: number | undefined,
  body?: Readonly<Record<string, unknown>>,
  key?: string
): string | undefined {
  if (length === undefined) return undefined
  const whole = text.length === length ? text : text.trim()
  if (whole.length !== length || whole.includes('\\') || !(whole as WellFormed).isWellFormed()) return undefined
  if (body === undefined || key === undefined) return whole
  const head = `{"${key}":`
  if (!whole.startsWith(head)) return undefined
  // The other keys as JSON.stringify writes them after the list: `,"next":…}` is as long as
  // `{"next":…}`, and with no other key, `}`.
  const rest = JSON.stringify(Object.fromEntries(Object.entries(body).filter(([name]) => name !== key)))
  return whole.slice(head.length, length - (rest === '{}' ? 1 : rest.length))
}
