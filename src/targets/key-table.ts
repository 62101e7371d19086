import { processKeyedHash } from './keyed-hash.js'
import { fmix32, fnv1a32 } from './shards.js'

/** Parts of a table: a key's part is its shard of 256 (shards.ts). */
const PARTS = 256
const MIN_SLOTS = 16
/** A slot's first two words: the key's two hashes, both 0 in an empty slot. */
const HASH_WORDS = 2

/**
 * A table from target keys to a few 32-bit words each, for millions of keys in tens of MiB:
 * keys are not kept, only their keyed hash (keyed-hash.ts: 64 bits, under a key made for the
 * process), so two keys are confused about once in 2^64 pairs, and no service can make a key its
 * own that it did not list: two keys of the same FNV-1a, which anyone can make, still differ.
 * A slot is the two halves and its words, side by side (one cache line to read, not three), at
 * most 3/4 full.
 *
 * The table is 256 parts, a key's part being its shard of 256: a part grows alone, so growing
 * never holds a whole table twice, and the lines of one shard's results file fill one part, which
 * a processor's cache holds. Told how many keys to expect, each part makes room for its share
 * (and a margin) at once: 5,000,000 keys of two words in 105 MiB, where doubling to fit them would
 * take 128 MiB, and the parts it leaves behind more until V8 collects them.
 *
 * A key's words are found by `find` or `add`, which give their place in `words` (the part looked
 * in last): `words[at]` to `words[at + width - 1]`, valid until the next `add`.
 */
export class KeyTable {
  /** The part `find` or `add` looked in last. */
  words: Uint32Array
  /** Whether the key `add` gave last was new (its words zero). */
  fresh = false
  private count = 0
  private readonly stride: number
  private readonly parts: Uint32Array[] = []
  private readonly used = new Uint32Array(PARTS)

  constructor(width: number) {
    this.stride = width + HASH_WORDS
    for (let p = 0; p < PARTS; p++) this.parts.push(new Uint32Array(MIN_SLOTS * this.stride))
    this.words = this.parts[0]
  }

  /** Keys in the table. */
  get size(): number {
    return this.count
  }

  /** Slots in all parts: 4/3 of the keys at least. */
  get slots(): number {
    let slots = 0
    for (const part of this.parts) slots += part.length / this.stride
    return slots
  }

  /** Where the key's words are in `words`, or -1 when the table has none for it. */
  find(hash: KeyHash): number {
    const part = partOf(hash)
    this.words = this.parts[part]
    const at = this.slotOf(this.words, hash.first, stored(hash))
    return this.words[at] === 0 && this.words[at + 1] === 0 ? -1 : at + HASH_WORDS
  }

  /** Where the key's words are in `words`: zero, and `fresh`, when the key is new. */
  add(hash: KeyHash): number {
    const part = partOf(hash)
    if ((this.used[part] + 1) * 4 * this.stride > this.parts[part].length * 3) {
      this.resize(part, (2 * this.parts[part].length) / this.stride)
    }
    const words = (this.words = this.parts[part])
    const second = stored(hash)
    const at = this.slotOf(words, hash.first, second)
    this.fresh = words[at] === 0 && words[at + 1] === 0
    if (this.fresh) {
      words[at] = hash.first
      words[at + 1] = second
      this.used[part]++
      this.count++
    }
    return at + HASH_WORDS
  }

  /**
   * Makes room for `keys` keys in all, each part for its share and four standard deviations more
   * (a key's part is a draw of 1 in 256), so that no part grows while they are added.
   */
  reserve(keys: number): void {
    const share = keys / PARTS
    const slots = Math.ceil(((share + 4 * Math.sqrt(share) + 8) * 4) / 3)
    for (let part = 0; part < PARTS; part++) {
      if (this.parts[part].length < slots * this.stride) this.resize(part, slots)
    }
  }

  /** Empties the table, keeping its room. */
  clear(): void {
    for (const part of this.parts) part.fill(0)
    this.used.fill(0)
    this.count = 0
  }

  /**
   * The slot (its first word) holding the hashes, or the empty one where they would go: probing
   * from the place the second hash scales to (not a power of two's mask: a part holds any number).
   */
  private slotOf(words: Uint32Array, first: number, second: number): number {
    const { stride } = this
    const end = words.length
    // Exact in a double: slots are far fewer than 2^21.
    for (let at = Math.floor((fmix32(second) * (end / stride)) / 2 ** 32) * stride; ; at += stride) {
      if (at === end) at = 0
      const f = words[at]
      const s = words[at + 1]
      if ((f === first && s === second) || (f === 0 && s === 0)) return at
    }
  }

  private resize(part: number, slots: number): void {
    const old = this.parts[part]
    const words = new Uint32Array(slots * this.stride)
    const { stride } = this
    for (let at = 0; at < old.length; at += stride) {
      if (old[at] === 0 && old[at + 1] === 0) continue
      const to = this.slotOf(words, old[at], old[at + 1])
      for (let w = 0; w < stride; w++) words[to + w] = old[at + w]
    }
    this.parts[part] = words
  }
}

/** The part a key's words are in: its shard of 256. */
function partOf(hash: KeyHash): number {
  return fmix32(hash.shard) & (PARTS - 1)
}

/** The second hash as a slot holds it: never 0 beside a first hash of 0, which marks an empty slot. */
function stored(hash: KeyHash): number {
  return hash.second === 0 && hash.first === 0 ? 1 : hash.second
}

export interface KeyHash {
  /** FNV-1a over UTF-8: the shard assignment's hash (shards.ts). Public: never the key's identity. */
  readonly shard: number
  /** The key's identity: its keyed hash's two halves (keyed-hash.ts). */
  readonly first: number
  readonly second: number
}

/** A key's hashes; the keyed one is the process's, so a KeyHash is never kept past it. */
export function keyHash(key: string): KeyHash {
  const keyed = processKeyedHash()
  keyed.hash(key)
  return { shard: fnv1a32(key), first: keyed.low, second: keyed.high }
}
