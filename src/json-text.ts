// Walks over JSON text that do not parse it: linear in the text, and safe whatever it nests.

const QUOTE = 0x22
const BACKSLASH = 0x5c
const COLON = 0x3a
/** JSON's whitespace: space, tab, line feed, carriage return. */
const JSON_SPACE: ReadonlySet<number> = new Set([0x20, 0x09, 0x0a, 0x0d])

/**
 * Where the JSON string that opens at `open` (a double quote) closes, or -1 when it does not. One
 * pass and no regular expression: a pattern over a string of megabytes can overflow the stack.
 */
export function stringEnd(text: string, open: number): number {
  for (let at = open + 1; ;) {
    const quote = text.indexOf('"', at)
    if (quote < 0) return -1
    let backslashes = 0
    // The opening quote ends the walk back: it is no backslash.
    while (text.charCodeAt(quote - 1 - backslashes) === BACKSLASH) backslashes++
    if (backslashes % 2 === 0) return quote
    at = quote + 1
  }
}

/**
 * Each bracket of JSON text outside its strings, with the depth it opens or closes, and each string
 * with the depth it stands at; stops when `visit` returns true. Linear in the text, whatever it
 * nests: nothing here recurses.
 */
function walk(text: string, visit: (depth: number, stringAt?: number, stringEnd?: number) => boolean): void {
  let depth = 0
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === QUOTE) {
      const end = stringEnd(text, i)
      if (end < 0 || visit(depth, i, end)) return
      i = end
    } else if (c === 0x5b || c === 0x7b) {
      if (visit(++depth)) return
    } else if (c === 0x5d || c === 0x7d) {
      depth--
    }
  }
}

/** Whether JSON text nests arrays and objects more than `levels` deep (`[[1]]` is 2), without parsing it. */
export function nestsDeeperThan(text: string, levels: number): boolean {
  // Text this short cannot be valid JSON so deep; a body that is not JSON is kept as text anyway.
  if (text.length < 2 * (levels + 1)) return false
  let deeper = false
  walk(text, depth => (deeper = depth > levels))
  return deeper
}

/**
 * The keys of a JSON object's text at its top level, in order, as JSON.parse reads them (escapes
 * decoded), repeats included: JSON.parse keeps only the last of a repeated key. Only meaningful for
 * text JSON.parse accepts as an object.
 */
export function topLevelKeys(text: string): string[] {
  const keys: string[] = []
  walk(text, (depth, at, end) => {
    if (depth !== 1 || at === undefined || end === undefined) return false
    let after = end + 1
    while (JSON_SPACE.has(text.charCodeAt(after))) after++
    if (text.charCodeAt(after) !== COLON) return false
    const quoted = text.slice(at, end + 1)
    keys.push(quoted.includes('\\') ? (JSON.parse(quoted) as string) : quoted.slice(1, -1))
    return false
  })
  return keys
}
