/** JSON text as an object: undefined when it is not JSON, null when it is JSON but not an object. */
export function parseJsonObject(text: string): Record<string, unknown> | null | undefined {
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    return undefined
  }
  return json && typeof json === 'object' && !Array.isArray(json) ? (json as Record<string, unknown>) : null
}

/** A number kept as the text the server sent, which JSON.stringify writes back verbatim (Node 24). */
export interface RawNumber {
  readonly rawJSON: string
}

interface JsonWithRawText {
  rawJSON(text: string): RawNumber
  isRawJSON(value: unknown): value is RawNumber
}
const json = JSON as unknown as JSON & JsonWithRawText

/**
 * Where a number stands whose text a JavaScript number could change: after [ , or : (or at the
 * start), a number with 16 or more digits (dots included), an exponent, a fraction ending in 0, a
 * fraction below 0.000001 (written 1e-7 and so on), or -0. Every other literal is one that
 * String(Number(text)) gives back. Text inside strings can match too: that only costs the slower
 * exact parse.
 */
const MAY_CHANGE_NUMBERS =
  /[:,[]\s*(?:-0(?![.\d])|-?(?:\d[\d.]{15}|\d+(?:\.\d+)?[eE]|\d+\.\d*0(?!\d)|0\.0{6}))|^\s*-?\d/

/**
 * JSON.parse, but every number that a JavaScript number cannot hold as sent (64-bit ids such as
 * 9007199254740993, 1e400, 1.50) is kept as its source text, written back as it came. Numbers that
 * survive the round trip stay numbers.
 */
export function parseExact(text: string): unknown {
  // Many lists hold no number at all: a walk of the parsed value costs a fourth of the scan of
  // its text, which was a tenth of a long listing's time.
  const value: unknown = JSON.parse(text)
  if (!holdsNumber(value) || !MAY_CHANGE_NUMBERS.test(text)) return value
  return JSON.parse(text, exactNumber as (key: string, value: unknown) => unknown)
}

function holdsNumber(value: unknown): boolean {
  if (typeof value === 'number') return true
  if (value === null || typeof value !== 'object') return false
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (holdsNumber(value[i])) return true
    return false
  }
  for (const key in value) if (holdsNumber((value as Record<string, unknown>)[key])) return true
  return false
}

function exactNumber(_key: string, value: unknown, context?: { source?: string }): unknown {
  if (typeof value !== 'number' || context?.source === undefined) return value
  return String(value) === context.source ? value : json.rawJSON(context.source)
}

export function isRawNumber(value: unknown): value is RawNumber {
  return json.isRawJSON(value)
}

/** A number's text as the server sent it: kept raw, or the number's own when that is the same. */
export function numberText(value: number | RawNumber): string {
  return typeof value === 'number' ? String(value) : value.rawJSON
}
