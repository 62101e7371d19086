import { nestsDeeperThan } from './json-text.js'

/**
 * The deepest a target may nest arrays and objects, in a listing's page and in a targets file:
 * JSON.stringify and revivers recurse, and deeper JSON would overflow the stack of a later step.
 */
export const MAX_TARGET_DEPTH = 512

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
  return exactFrom(text, JSON.parse(text))
}

/** What parseMeasured read: the value parseExact gives, and the length of its JSON.stringify. */
export interface Measured {
  readonly value: unknown
  /** JSON.stringify(value).length; undefined when a key starts with a digit (see stringifiedLength). */
  readonly length?: number
  /** Whether it nests arrays and objects deeper than the maxDepth asked (`[[1]]` is 2). */
  readonly deeper: boolean
}

/**
 * parseExact, the length of JSON.stringify of what it read, and whether it nests deeper than
 * `maxDepth`, from one walk of the value: a listing's page is walked once for all three. A deeper
 * value is given as JSON.parse read it: the exact parse's reviver recurses, and would overflow.
 */
export function parseMeasured(text: string, maxDepth = Infinity): Measured {
  const value: unknown = JSON.parse(text)
  const walked = measure(value)
  if (walked === undefined) {
    const deeper = nestsDeeperThan(text, maxDepth)
    return { value: deeper ? value : exactFrom(text, value), deeper }
  }
  const deeper = walked.depth > maxDepth
  if (deeper || !walked.numbers || !MAY_CHANGE_NUMBERS.test(text)) return { value, length: walked.length, deeper }
  const exact: unknown = JSON.parse(text, exactNumber as (key: string, value: unknown) => unknown)
  return { value: exact, length: stringifiedLength(exact), deeper }
}

/** The value JSON.parse read from `text`, read again keeping numbers as sent when it must be. */
function exactFrom(text: string, value: unknown): unknown {
  // Many lists hold no number at all: a walk of the parsed value costs a fourth of the scan of
  // its text, which was a tenth of a long listing's time.
  if (!holdsNumber(value) || !MAY_CHANGE_NUMBERS.test(text)) return value
  return JSON.parse(text, exactNumber as (key: string, value: unknown) => unknown)
}

// A walk with a stack of its own, not recursion: a value nested thousands deep must not overflow.
// An object in an array is looked into where it stands, not pushed: a listing is an array of
// objects, and this takes its walk from about 600 instructions a target to about 260.
function holdsNumber(value: unknown): boolean {
  const pending: unknown[] = [value]
  while (pending.length > 0) {
    const next = pending.pop()
    if (typeof next === 'number') return true
    if (next === null || typeof next !== 'object') continue
    if (!Array.isArray(next)) {
      if (valuesHoldNumber(next, pending)) return true
      continue
    }
    for (let i = 0; i < next.length; i++) {
      const item: unknown = next[i]
      if (typeof item === 'number') return true
      if (item === null || typeof item !== 'object') continue
      if (Array.isArray(item)) pending.push(item)
      else if (valuesHoldNumber(item, pending)) return true
    }
  }
  return false
}

/** Whether one of an object's values is a number; the objects and arrays among them are left in `pending`. */
function valuesHoldNumber(object: object, pending: unknown[]): boolean {
  for (const key in object) {
    const value = (object as Record<string, unknown>)[key]
    if (typeof value === 'number') return true
    if (value !== null && typeof value === 'object') pending.push(value)
  }
  return false
}

/**
 * The length of JSON.stringify(value) for a value parseExact read from JSON text holding no
 * backslash and no lone surrogate, or undefined when it cannot say: a key that starts with a digit
 * (an array index is written before the other keys, not where the text has it). Such a value's
 * strings need no escape and its numbers are written as sent, so JSON.stringify writes its text with
 * only the whitespace and repeated keys left out: the two have the same length only when they are
 * the same text.
 */
export function stringifiedLength(value: unknown): number | undefined {
  return measure(value)?.length
}

/** Left on measure's stack under an array's or object's items: when it comes off, the walk is back out. */
const OUT = {}

/**
 * stringifiedLength's walk, which also says whether the value holds a number and how deep it nests:
 * a walk with a stack of its own, like holdsNumber's.
 */
function measure(value: unknown): { length: number; numbers: boolean; depth: number } | undefined {
  let length = 0
  let numbers = false
  let [depth, deepest] = [0, 0]
  const pending: unknown[] = [value]
  while (pending.length > 0) {
    const next = pending.pop()
    if (typeof next === 'string') {
      length += next.length + 2
    } else if (typeof next === 'number') {
      length += String(next).length
      numbers = true
    } else if (typeof next === 'boolean') {
      length += next ? 4 : 5
    } else if (next === null) {
      length += 4
    } else if (typeof next !== 'object') {
      return undefined
    } else if (next === OUT) {
      depth--
    } else if (Array.isArray(next)) {
      if (++depth > deepest) deepest = depth
      pending.push(OUT)
      // The brackets and a comma between each two.
      length += next.length === 0 ? 2 : next.length + 1
      for (let i = 0; i < next.length; i++) {
        const item: unknown = next[i]
        if (typeof item === 'string') length += item.length + 2
        else pending.push(item)
      }
    } else if (isRawNumber(next)) {
      length += next.rawJSON.length
      numbers = true
    } else {
      if (++depth > deepest) deepest = depth
      pending.push(OUT)
      let keys = 0
      for (const key in next) {
        const first = key.charCodeAt(0)
        if (first >= 0x30 && first <= 0x39) return undefined
        const item = (next as Record<string, unknown>)[key]
        // "key": and the value.
        length += key.length + 3
        if (typeof item === 'string') length += item.length + 2
        else pending.push(item)
        keys++
      }
      length += keys === 0 ? 2 : keys + 1
    }
  }
  return { length, numbers, depth: deepest }
}

function exactNumber(_key: string, value: unknown, context?: { source?: string }): unknown {
  if (typeof value !== 'number' || context?.source === undefined) return value
  return String(value) === context.source ? value : json.rawJSON(context.source)
}

export function isRawNumber(value: unknown): value is RawNumber {
  // The property first: a call into JSON.isRawJSON costs more than the load, for every target.
  return typeof (value as Partial<RawNumber> | null)?.rawJSON === 'string' && json.isRawJSON(value)
}

/** A number's text as the server sent it: kept raw, or the number's own when that is the same. */
export function numberText(value: number | RawNumber): string {
  return typeof value === 'number' ? String(value) : value.rawJSON
}
