import { targetKey } from './key.js'

/**
 * Shards split one listing among the jobs of a matrix. The assignment is part of the action's
 * contract (docs/fan-out.md): it depends only on a target and the number of shards, never on
 * page order or on the other targets, so every job of a fan-out computes the same partition.
 *
 *   shard = fmix32(fnv1a32(utf8(key))) mod N, plus 1, with key as in key.ts
 */

/** GitHub refuses a matrix of more than 256 jobs. */
export const MAX_SHARDS = 256

export interface Shard {
  /** 1-based. */
  readonly index: number
  readonly count: number
}

/** "K/N" with 1 <= K <= N <= 256, or undefined when it is not one. */
export function parseShard(text: string): Shard | undefined {
  const match = /^\s*(\d{1,3})\s*\/\s*(\d{1,3})\s*$/.exec(text)
  if (!match) return undefined
  const index = Number(match[1])
  const count = Number(match[2])
  if (index < 1 || count > MAX_SHARDS || index > count) return undefined
  return { index, count }
}

/** How many shards a listing of `targetCount` gets: ceil(count / shardSize), at most 256. */
export function shardCount(targetCount: number, shardSize: number): number {
  return Math.min(MAX_SHARDS, Math.ceil(targetCount / shardSize))
}

/** The `shards` output: ["1/N", …, "N/N"], or [] for an empty listing. */
export function shardList(count: number): string[] {
  return Array.from({ length: count }, (_, i) => `${i + 1}/${count}`)
}

/** The 1-based shard of `count` that a target belongs to. */
export function shardOf(target: unknown, count: number): number {
  return (fmix32(fnv1a32(targetKey(target))) % count) + 1
}

/** FNV-1a, 32 bits, over the UTF-8 bytes of `text` (encoded here, so no buffer per target). */
export function fnv1a32(text: string): number {
  let hash = 0x811c9dc5
  // ASCII first, a byte a unit, as most keys are: this loop is all they cost. With the closure
  // below for every key, a 20-character key took 350-450 ns, not 70 (tsx, 2,000,000 keys).
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c >= 0x80) return fnv1a32From(text, i, hash)
    hash = Math.imul(hash ^ c, 0x01000193)
  }
  return hash >>> 0
}

/** fnv1a32 from unit `from` on, `hash` being the hash of the bytes before it. */
function fnv1a32From(text: string, from: number, hash: number): number {
  const byte = (b: number): void => {
    hash = Math.imul(hash ^ b, 0x01000193)
  }
  for (let i = from; i < text.length; i++) {
    let c = text.charCodeAt(i)
    if (c < 0x80) {
      byte(c)
      continue
    }
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const low = text.charCodeAt(i + 1)
      if (low >= 0xdc00 && low <= 0xdfff) {
        c = 0x10000 + ((c - 0xd800) << 10) + (low - 0xdc00)
        i++
      }
    }
    if (c >= 0xd800 && c <= 0xdfff) c = 0xfffd // a lone surrogate encodes as U+FFFD, as in Buffer.from
    if (c < 0x800) {
      byte(0xc0 | (c >> 6))
    } else if (c < 0x10000) {
      byte(0xe0 | (c >> 12))
      byte(0x80 | ((c >> 6) & 0x3f))
    } else {
      byte(0xf0 | (c >> 18))
      byte(0x80 | ((c >> 12) & 0x3f))
      byte(0x80 | ((c >> 6) & 0x3f))
    }
    byte(0x80 | (c & 0x3f))
  }
  return hash >>> 0
}

/** MurmurHash3's finaliser: spreads FNV's weak low bits, which `mod N` would otherwise see. */
export function fmix32(value: number): number {
  let h = value >>> 0
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b)
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35)
  return (h ^ (h >>> 16)) >>> 0
}
