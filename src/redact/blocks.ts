// The 3-character blocks Fragments (fragments.ts) looks a text up by: their hash, their comparison,
// the table's growth, and the span a base64 run takes.

export const BLOCK = 3
/**
 * Two blocks. A run of 12 or more through a block at j holds the window that ends with the block
 * (from j - 3) or the one it starts: a run starting 3 or more before j reaches j + 3, and one starting
 * less than 3 before j reaches j + 6 or past it. With a private key's lines, one in eight blocks a
 * page of targets is looked up at was in the bitmap; one in fifty is in the windows too.
 */
export const WINDOW = 2 * BLOCK
/** The bits of a block's hash: its bitmap's size. */
export const FILTER_BITS = 20
const BASE64_CHAR = /^[A-Za-z0-9+/_-]$/
const BASE64_END = /^[A-Za-z0-9+/_-]?=?=?/

/**
 * Appends a base64 run as its span: where the run reaches an edge of the form, with the character
 * beside it (mixed from the secret's bytes and its neighbour's) and the padding after the end.
 */
export function widened(
  text: string,
  start: number,
  stop: number,
  head: boolean,
  tail: boolean,
  spans: number[]
): void {
  const from = head && BASE64_CHAR.test(text.charAt(start - 1)) ? start - 1 : start
  spans.push(from, tail ? BASE64_END.exec(text.slice(stop, stop + 3))![0].length + stop : stop)
}

export function sameBlock(text: string, j: number, form: string, p: number): boolean {
  for (let k = 0; k < BLOCK; k++) if (text.charCodeAt(j + k) !== form.charCodeAt(p + k)) return false
  return true
}

export function grown(array: Int32Array<ArrayBuffer>): Int32Array<ArrayBuffer> {
  const larger = new Int32Array(2 * array.length)
  larger.set(array)
  return larger
}

export function hashAt(text: string, at: number): number {
  let h = 0
  for (let k = 0; k < BLOCK; k++) h = (Math.imul(h, 31) + text.charCodeAt(at + k)) | 0
  return (h ^ (h >>> FILTER_BITS)) & ((1 << FILTER_BITS) - 1)
}

/** Sets the bit of each window of `form` in `windows`, a bitmap of FILTER_BITS. */
export function addWindows(windows: Uint32Array, form: string): void {
  for (let p = 0; p + WINDOW <= form.length; p++) {
    const h = windowHash(form, p)
    windows[h >>> 5] |= 1 << (h & 31)
  }
}

/** Whether the window that ends with the block at `j` of `text`, or the one it starts, is in `windows`. */
export function windowed(windows: Uint32Array, text: string, j: number): boolean {
  let h = j >= BLOCK ? windowHash(text, j - BLOCK) : -1
  if (h >= 0 && (windows[h >>> 5] & (1 << (h & 31))) !== 0) return true
  h = j + WINDOW <= text.length ? windowHash(text, j) : -1
  return h >= 0 && (windows[h >>> 5] & (1 << (h & 31))) !== 0
}

/** hashAt's hash, of the WINDOW characters from `at`. */
function windowHash(text: string, at: number): number {
  let h = 0
  for (let k = 0; k < WINDOW; k++) h = (Math.imul(h, 31) + text.charCodeAt(at + k)) | 0
  return (h ^ (h >>> FILTER_BITS)) & ((1 << FILTER_BITS) - 1)
}
