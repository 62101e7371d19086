import { fnv1a32 } from './shards.js'

/**
 * A table from target keys to a few 32-bit words each, for a million keys in a few tens of MiB:
 * keys are not kept, only two independent 32-bit hashes of them (FNV-1a over UTF-8, as the shards
 * use, and a multiplicative hash over UTF-16 units), so two keys are confused only when both hashes
 * collide — about once in 10^7 runs of a million keys. A slot is its two hashes and its words, no
 * more (an empty slot is one whose hashes are both 0), at most 3/4 full: 5,000,000 keys of two
 * words in 128 MiB. Given the number of keys to expect, the table never grows past it (growing
 * holds the old arrays beside the new).
 */
export class KeyTable {
  private capacity: number
  private count = 0
  private first: Uint32Array
  private second: Uint32Array
  private values: Uint32Array

  /** `expected`: the keys to make room for at once; more still fit, the table growing. */
  constructor(
    private readonly width: number,
    expected = 0
  ) {
    this.capacity = capacityFor(expected)
    this.first = new Uint32Array(this.capacity)
    this.second = new Uint32Array(this.capacity)
    this.values = new Uint32Array(this.capacity * width)
  }

  get size(): number {
    return this.count
  }

  /** The slots: how many keys fit before the table grows is 3/4 of it. */
  get slots(): number {
    return this.capacity
  }

  /** The words stored for `key` (a view into the table: copy before the next set), or undefined. */
  get(key: string, hash = keyHash(key)): Uint32Array | undefined {
    const second = stored(hash)
    const slot = this.find(hash.first, second)
    return this.second[slot] === 0 && this.first[slot] === 0
      ? undefined
      : this.values.subarray(slot * this.width, (slot + 1) * this.width)
  }

  /** The words for `key`, zeroed when new: the caller fills them in. */
  slot(key: string, hash = keyHash(key)): { readonly words: Uint32Array; readonly fresh: boolean } {
    if ((this.count + 1) * 4 > this.capacity * 3) this.grow()
    const second = stored(hash)
    const slot = this.find(hash.first, second)
    const fresh = this.second[slot] === 0 && this.first[slot] === 0
    if (fresh) {
      this.first[slot] = hash.first
      this.second[slot] = second
      this.count++
    }
    return { words: this.values.subarray(slot * this.width, (slot + 1) * this.width), fresh }
  }

  private find(first: number, second: number): number {
    const mask = this.capacity - 1
    const firsts = this.first
    const seconds = this.second
    let slot = mix(second) & mask
    for (;;) {
      const s = seconds[slot]
      const f = firsts[slot]
      if ((s === second && f === first) || (s === 0 && f === 0)) return slot
      slot = (slot + 1) & mask
    }
  }

  private grow(): void {
    const { first, second, values, width } = this
    this.capacity *= 2
    this.first = new Uint32Array(this.capacity)
    this.second = new Uint32Array(this.capacity)
    this.values = new Uint32Array(this.capacity * width)
    for (let i = 0; i < first.length; i++) {
      if (first[i] === 0 && second[i] === 0) continue
      const slot = this.find(first[i], second[i])
      this.first[slot] = first[i]
      this.second[slot] = second[i]
      this.values.set(values.subarray(i * width, (i + 1) * width), slot * width)
    }
  }
}

/** 2^28 slots: far past any table of keys a runner's memory holds; a count past it is not one. */
const MAX_CAPACITY = 2 ** 28

/** The least power of two, 1,024 or more (and at most MAX_CAPACITY), that holds `keys` at most 3/4 full. */
export function capacityFor(keys: number): number {
  let capacity = 1024
  while (keys * 4 > capacity * 3 && capacity < MAX_CAPACITY) capacity *= 2
  return capacity
}

/** The second hash as a slot holds it: never 0 beside a first hash of 0, which marks an empty slot. */
function stored(hash: KeyHash): number {
  return hash.second === 0 && hash.first === 0 ? 1 : hash.second
}

export interface KeyHash {
  /** FNV-1a over UTF-8: the shard assignment's hash. */
  readonly first: number
  readonly second: number
}

export function keyHash(key: string): KeyHash {
  let h = 0x9747b28c
  for (let i = 0; i < key.length; i++) {
    h = Math.imul(h ^ key.charCodeAt(i), 0x5bd1e995)
    h ^= h >>> 15
  }
  return { first: fnv1a32(key), second: h >>> 0 }
}

function mix(value: number): number {
  let h = Math.imul(value ^ (value >>> 16), 0x85ebca6b)
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35)
  return (h ^ (h >>> 16)) >>> 0
}
