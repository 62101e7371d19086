import { addWindows, BLOCK, FILTER_BITS, grown, hashAt, sameBlock, widened, windowed } from './blocks.js'
import { base64Forms, hexForms, mayHoldSpacedHex, spacedHexForms, textForms } from './forms.js'

/** The shortest run of a secret's characters that is withheld; a shorter secret is withheld whole. */
export const MIN_RUN = 12
/** Shorter secrets are not redacted at all: they would hide ordinary words. */
export const MIN_SECRET = 4
/** Base64 characters that can only come from 12 bytes of a secret, at any byte offset of a blob. */
const MIN_BASE64_RUN = Math.ceil((MIN_RUN * 8) / 6) - 1
/** Hex digits of 12 bytes of a secret: two a byte, aligned in any blob; with separators, 11 more. */
const [MIN_HEX_RUN, MIN_SPACED] = [2 * MIN_RUN, 3 * MIN_RUN - 1]

// Any run of 12 or more characters holds a 3-character block that starts at a multiple of 10: a
// text is looked up every 10 characters only, and a block with a character no form has (a quote, a
// comma: most of a JSON text's blocks) is passed at that character. The rest are looked up in a
// bitmap of hashes; from the first text of 8 KiB, then by the two windows of 6 through them in a
// bitmap of the forms' windows (WINDOW); and only then in the table of every form's blocks. A form
// whose runs are longer (hex: 24, with separators: 35) is looked up every 20 or 30 only, in a bitmap
// and chains of its own: ids' digits are blocks of a key's hex. The table is typed arrays, not a
// map of 3-character strings to arrays (250 KB of young objects as a step started).
const STRIDE = 10
const JWT_HEADER = /^eyJ[A-Za-z0-9_-]+\.(?=[A-Za-z0-9_-]+\.)/
/** A text this long is searched with find()'s matching path run first (runMatch). */
export const LONG_TEXT = 8 * 1024
/** The chains' heads: by the block hash's low bits. */
const HEAD_BITS = 12
/** Strides of STRIDE, 2 STRIDE and 3 STRIDE: each with its bitmap and chains. */
const [STRIDES, FILTER_WORDS] = [3, 1 << (FILTER_BITS - 5)]

/**
 * Every secret the action knows, as the blocks of its forms: the secret; with each space as + (form
 * encoding); its UTF-8 bytes one character each (what percent-encoding decodes to); its UTF-8 bytes
 * in hex, lower and upper case, bare and with a space, a colon or a dash between bytes; and its
 * base64 and base64url at each of the three byte offsets it can have in a longer blob, without the
 * edge characters that depend on the bytes around it. Base64 and hex are matched as they are
 * written, not decoded: a text is not scanned for what may be either.
 */
export class Fragments {
  private readonly forms: string[] = []
  private readonly minRuns: number[] = []
  /** Whether a form is base64: a match at its edge takes the mixed character and padding beside it. */
  private readonly base64: boolean[] = []
  /** Where the public head of a form ends (a JWT's header): a run must be long enough past it. */
  private readonly publicEnds: number[] = []
  private readonly known = new Set<string>()
  /** Forms found whole, by indexOf: the secrets under 12 characters, and their base64 under 15. */
  private readonly short: { readonly form: string; readonly base64: boolean }[] = []
  /** Each block's place: its form and where it starts there, and the next place of its chain (+1). */
  private placeForm = new Int32Array(1024)
  private placeAt = new Int32Array(1024)
  private placeNext = new Int32Array(1024)
  private places = 0
  /** Each chain's first and last place (+1; 0 for none): places are walked in the order added. */
  private readonly heads = new Int32Array(STRIDES << HEAD_BITS)
  private readonly tails = new Int32Array(STRIDES << HEAD_BITS)
  private readonly filter = new Uint32Array(STRIDES * FILTER_WORDS)
  /** The ASCII characters of the forms looked up by block (any other character may be in one). */
  private readonly ascii = new Uint8Array(128)
  /** Every window of every form looked up by block (WINDOW), from the first long text (runMatch). */
  private windows?: Uint32Array
  /** The forms of secrets under MIN_RUN characters, matched only whole (by index). */
  private readonly wholes = new Set<number>()
  /** Secrets whose spaced hex forms are not made yet: no text may have held one (mayHoldSpacedHex). */
  private readonly spacedLater: [string, number, number][] = []

  get empty(): boolean {
    return this.known.size === 0
  }

  /** The blocks in the table: each block of each form that is looked up by block, once. */
  get blocks(): number {
    return this.places
  }

  add(secret: string): void {
    if (secret.length < MIN_SECRET) return
    const whole = secret.length < MIN_RUN
    // A JWT's header (alg, typ, kid) is the same in every token of an issuer: a run counts only
    // with 12 characters after it, so another token of the issuer is not taken for this one.
    const header = JWT_HEADER.exec(secret)?.[0].length ?? 0
    for (const form of textForms(secret)) this.addForm(form, whole ? form.length : MIN_RUN, false, header, whole)
    for (const form of hexForms(secret)) this.addForm(form, whole ? form.length : MIN_HEX_RUN, false, 2 * header, whole)
    this.spacedLater.push([secret, whole ? 0 : MIN_SPACED, 3 * header])
    for (const form of base64Forms(secret)) {
      if (form.length >= 2 * MIN_SECRET) this.addForm(form, whole ? form.length : MIN_BASE64_RUN, true, 0, whole)
    }
  }

  /** Adds the spaced hex forms of the secrets added so far, when `text` may hold one, or is long. */
  private addSpaced(text: string): void {
    if (text.length < LONG_TEXT && !mayHoldSpacedHex(text)) return
    for (const [secret, minRun, header] of this.spacedLater.splice(0)) {
      for (const form of spacedHexForms(secret)) this.addForm(form, minRun || form.length, false, header, minRun === 0)
    }
  }

  private addForm(form: string, minRun: number, base64: boolean, header: number, whole: boolean): void {
    if (this.known.has(form)) return
    this.known.add(form)
    if (minRun < STRIDE + BLOCK - 1) {
      this.short.push({ form, base64 })
      return
    }
    if (whole) this.wholes.add(this.forms.length)
    for (let i = 0; i < form.length; i++) {
      const code = form.charCodeAt(i)
      if (code < 128) this.ascii[code] = 1
    }
    const index = this.forms.push(form) - 1
    this.minRuns.push(minRun)
    this.base64.push(base64)
    this.publicEnds.push(header)
    // Every block of the form, chained by its hash, in one loop: with a call or two a block, the
    // blocks of the few secrets a step adds as it starts made both calls hot enough for V8 to
    // optimize them on another thread, which a busy machine's step waited for.
    const first = Math.max(0, header - BLOCK + 1)
    const count = form.length - BLOCK + 1 - first
    while (this.places + count > this.placeForm.length) {
      this.placeForm = grown(this.placeForm)
      this.placeAt = grown(this.placeAt)
      this.placeNext = grown(this.placeNext)
    }
    const { filter, heads, tails, placeForm, placeAt, placeNext } = this
    // Every run of minRun holds a block at a multiple of the stride: it is looked up there only.
    const stride = Math.min(STRIDES, Math.floor((minRun - BLOCK + 1) / STRIDE)) - 1
    for (let p = first, place = this.places; p < first + count; p++, place++) {
      // hashAt's hash, written out.
      let h = (Math.imul(Math.imul(form.charCodeAt(p), 31) + form.charCodeAt(p + 1), 31) + form.charCodeAt(p + 2)) | 0
      h = (h ^ (h >>> FILTER_BITS)) & ((1 << FILTER_BITS) - 1)
      filter[stride * FILTER_WORDS + (h >>> 5)] |= 1 << (h & 31)
      const chain = (stride << HEAD_BITS) + (h & ((1 << HEAD_BITS) - 1))
      placeForm[place] = index
      placeAt[place] = p
      const tail = tails[chain]
      if (tail === 0) heads[chain] = place + 1
      else placeNext[tail - 1] = place + 1
      tails[chain] = place + 1
    }
    this.places += Math.max(0, count)
    if (this.windows) addWindows(this.windows, form)
  }

  /**
   * Appends to `spans` (start, end pairs) every run of MIN_RUN or more characters of a secret in
   * `text`, and every whole short secret (not with `longOnly`); stops at the first when `first` is set.
   */
  find(text: string, spans: number[], first = false, longOnly = false): void {
    const n = text.length
    if (this.spacedLater.length > 0) this.addSpaced(text)
    if (n >= LONG_TEXT && !this.windows) this.runMatch()
    for (let j = this.nextBlock(text, 0); j >= 0;) {
      const end = this.runsAt(text, j, spans, first, longOnly)
      if (end < 0) return
      // A run already found is not walked again from each of its blocks.
      j = this.nextBlock(
        text,
        (end > 0 ? Math.max(j, Math.floor((end - BLOCK) / STRIDE) * STRIDE - STRIDE) : j) + STRIDE
      )
    }
    for (const { form, base64 } of longOnly ? [] : this.short) {
      for (let at = text.indexOf(form); at >= 0; at = text.indexOf(form, at + 1)) {
        if (base64) widened(text, at, at + form.length, true, true, spans)
        else spans.push(at, at + form.length)
        if (first) return
      }
    }
  }

  /**
   * The first block at `from` or after it, every STRIDE characters, whose hash is in the bitmap; -1
   * when there is none. The loop every page of a listing runs, kept apart from the rare matching
   * path (runsAt): V8 compiles a small loop sooner and in less time, and hashAt is written out here,
   * not called, so that it is not compiled on its own as well.
   */
  private nextBlock(text: string, from: number): number {
    const n = text.length
    for (let j = from; j + BLOCK <= n; j += STRIDE) {
      let h = 0
      let k = 0
      for (; k < BLOCK; k++) {
        const code = text.charCodeAt(j + k)
        if (code < 128 && this.ascii[code] === 0) break
        h = (Math.imul(h, 31) + code) | 0
      }
      if (k < BLOCK) continue
      h = (h ^ (h >>> FILTER_BITS)) & ((1 << FILTER_BITS) - 1)
      const word = h >>> 5
      const bit = 1 << (h & 31)
      if (
        ((this.filter[word] & bit) !== 0 ||
          (j % (2 * STRIDE) === 0 && (this.filter[FILTER_WORDS + word] & bit) !== 0) ||
          (j % (3 * STRIDE) === 0 && (this.filter[2 * FILTER_WORDS + word] & bit) !== 0)) &&
        (!this.windows || windowed(this.windows, text, j))
      ) {
        return j
      }
    }
    return -1
  }

  /**
   * The runs of forms through the block at `j`, appended to `spans`: where the last of them ends (0
   * when none does), or -1 when `first` is set and one was found.
   */
  private runsAt(text: string, j: number, spans: number[], first: boolean, longOnly: boolean): number {
    const chain = hashAt(text, j) & ((1 << HEAD_BITS) - 1)
    let end = 0
    for (let stride = 0; stride < STRIDES; stride++) {
      if (j % ((stride + 1) * STRIDE) !== 0) continue
      for (let place = this.heads[(stride << HEAD_BITS) + chain]; place > 0; place = this.placeNext[place - 1]) {
        const index = this.placeForm[place - 1]
        const p = this.placeAt[place - 1]
        if (!sameBlock(text, j, this.forms[index], p) || (longOnly && this.wholes.has(index))) continue
        const stop = this.runAt(text, j, index, p, spans)
        if (stop === 0) continue
        if (first) return -1
        end = Math.max(end, stop)
      }
    }
    return end
  }

  /**
   * The run of form `index` through the block at `j` of the text and `p` of the form, appended to
   * `spans` when long enough: where it ends, or 0 when it is not. A block of the text rarely is one
   * of a form's: this is apart so that the path every page runs stays small.
   */
  private runAt(text: string, j: number, index: number, p: number, spans: number[]): number {
    const form = this.forms[index]
    let left = 0
    while (left < j && left < p && text.charCodeAt(j - left - 1) === form.charCodeAt(p - left - 1)) left++
    let right = BLOCK
    while (
      j + right < text.length &&
      p + right < form.length &&
      text.charCodeAt(j + right) === form.charCodeAt(p + right)
    ) {
      right++
    }
    if (p + right - Math.max(p - left, this.publicEnds[index]) < this.minRuns[index]) return 0
    if (this.base64[index]) widened(text, j - left, j + right, p - left === 0, p + right === form.length, spans)
    else spans.push(j - left, j + right)
    return spans[spans.length - 1]
  }

  /**
   * Makes the windows, then searches a form of its own, text and base64, where it is sure to match:
   * a path V8 first takes after compiling the search for a long text (a listing's pages) throws that
   * code away, and a match is rare there. Neither as a step starts, whose texts are short: they cost
   * its start-up 2 ms and about 0.5 ms.
   */
  private runMatch(): void {
    this.windows = new Uint32Array(FILTER_WORDS)
    for (const form of this.forms) addWindows(this.windows, form)
    for (const index of [this.base64.indexOf(false), this.base64.indexOf(true)]) {
      if (index >= 0) this.find(this.forms[index], [])
    }
  }
}
