import { fnv1a32 } from './shards.js'

/**
 * A table from target keys to a few 32-bit words each, for a million keys in a few tens of MiB:
 * keys are not kept, only two independent 32-bit hashes of them (FNV-1a over UTF-8, as the shards
 * use, and a multiplicative hash over UTF-16 units), so two keys are confused only when both hashes
 * collide — about once in 10^7 runs of a million keys.
 */
export class KeyTable {
  private capacity = 1024
  private count = 0
  private first = new Uint32Array(this.capacity)
  private second = new Uint32Array(this.capacity)
  private used = new Uint8Array(this.capacity)
  private values: Uint32Array

  constructor(private readonly width: number) {
    this.values = new Uint32Array(this.capacity * width)
  }

  get size(): number {
    return this.count
  }

  /** The words stored for `key` (a view into the table: copy before the next set), or undefined. */
  get(key: string, hash = keyHash(key)): Uint32Array | undefined {
    const slot = this.find(hash.first, hash.second)
    return this.used[slot] ? this.values.subarray(slot * this.width, (slot + 1) * this.width) : undefined
  }

  /** The words for `key`, zeroed when new: the caller fills them in. */
  slot(key: string, hash = keyHash(key)): { readonly words: Uint32Array; readonly fresh: boolean } {
    if ((this.count + 1) * 2 > this.capacity) this.grow()
    const slot = this.find(hash.first, hash.second)
    const fresh = !this.used[slot]
    if (fresh) {
      this.used[slot] = 1
      this.first[slot] = hash.first
      this.second[slot] = hash.second
      this.count++
    }
    return { words: this.values.subarray(slot * this.width, (slot + 1) * this.width), fresh }
  }

  private find(first: number, second: number): number {
    const mask = this.capacity - 1
    let slot = mix(second) & mask
    while (this.used[slot] && (this.first[slot] !== first || this.second[slot] !== second)) slot = (slot + 1) & mask
    return slot
  }

  private grow(): void {
    const { first, second, used, values, width } = this
    this.capacity *= 2
    this.first = new Uint32Array(this.capacity)
    this.second = new Uint32Array(this.capacity)
    this.used = new Uint8Array(this.capacity)
    this.values = new Uint32Array(this.capacity * width)
    for (let i = 0; i < used.length; i++) {
      if (!used[i]) continue
      const slot = this.find(first[i], second[i])
      this.used[slot] = 1
      this.first[slot] = first[i]
      this.second[slot] = second[i]
      this.values.set(values.subarray(i * width, (i + 1) * width), slot * width)
    }
  }
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
