import { randomHex } from '../random.js'

/**
 * HalfSipHash (Aumasson and Bernstein's SipHash on 32-bit words, as the Linux kernel's hsiphash
 * uses it), with a 64-bit output, of a string's UTF-16 code units read as little-endian bytes. Keyed
 * by a random 64-bit key, its outputs cannot be steered by someone who does not know the key: two
 * keys a service made to collide under FNV-1a (public, as the shards need it) still differ here,
 * but for about one pair in 2^64. A round count of 1 per word and 3 at the end is hsiphash's, for
 * hash tables; 2 and 4 is the reference's, whose published vectors the tests check.
 */
export class KeyedHash {
  /** The last hash's two 32-bit halves, unsigned. */
  low = 0
  high = 0
  constructor(
    private readonly k0: number,
    private readonly k1: number,
    private readonly c = 1,
    private readonly d = 3
  ) {}

  /**
   * Hashes `text` into `low` and `high`. One loop, its state in locals: a step per word of the
   * text, then the last word (the length in bytes, mod 256, in its top byte, and an odd last unit),
   * then the two finishing steps of `d` rounds, each giving a half.
   */
  hash(text: string): void {
    const { k0, k1, c, d } = this
    let v0 = k0
    let v1 = k1 ^ 0xee
    let v2 = k0 ^ 0x6c796765
    let v3 = k1 ^ 0x74656462
    const n = text.length
    const words = n >>> 1
    for (let step = 0; step <= words + 2; step++) {
      let m = 0
      let count = c
      if (step < words) m = text.charCodeAt(2 * step) | (text.charCodeAt(2 * step + 1) << 16)
      else if (step === words) m = (((2 * n) & 0xff) << 24) | (n & 1 ? text.charCodeAt(n - 1) : 0)
      else {
        count = d
        if (step === words + 1) v2 ^= 0xee
        else {
          this.low = (v1 ^ v3) >>> 0
          v1 ^= 0xdd
        }
      }
      v3 ^= m
      for (let r = 0; r < count; r++) {
        v0 = (v0 + v1) | 0
        v1 = (v1 << 5) | (v1 >>> 27)
        v1 ^= v0
        v0 = (v0 << 16) | (v0 >>> 16)
        v2 = (v2 + v3) | 0
        v3 = (v3 << 8) | (v3 >>> 24)
        v3 ^= v2
        v0 = (v0 + v3) | 0
        v3 = (v3 << 7) | (v3 >>> 25)
        v3 ^= v0
        v2 = (v2 + v1) | 0
        v1 = (v1 << 13) | (v1 >>> 19)
        v1 ^= v2
        v2 = (v2 << 16) | (v2 >>> 16)
      }
      v0 ^= m
    }
    this.high = (v1 ^ v3) >>> 0
  }
}

let shared: KeyedHash | undefined

/** The process's keyed hash: its key, from the kernel's generator, made when first asked for. */
export function processKeyedHash(): KeyedHash {
  if (!shared) {
    const key = randomHex(8)
    shared = new KeyedHash(parseInt(key.slice(0, 8), 16) | 0, parseInt(key.slice(8), 16) | 0)
  }
  return shared
}
