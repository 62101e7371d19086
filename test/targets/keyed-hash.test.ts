import { describe, expect, it } from '@jest/globals'
import { KeyedHash, processKeyedHash } from '../../src/targets/keyed-hash.js'

// The reference's HalfSipHash-2-4 vectors with a 64-bit output (veorq/SipHash, vectors_hsip64):
// key bytes 00..07, message bytes 00..(i-1). Only even lengths can be a string's UTF-16 bytes.
const VECTORS: Record<number, string> = {
  0: '218d1f59b9b83cc8',
  2: '064f39ef7c50eb57',
  4: 'd5e78a175be52ea1',
  6: 'ce3e91358aa2bc25',
  8: 'edfee820bce4858c',
  62: 'f90b3ab572d46693'
}

/** The string whose UTF-16LE bytes are 00, 01, … (length - 1). */
const message = (length: number): string =>
  String.fromCharCode(...Array.from({ length: length / 2 }, (_, i) => (2 * i) | ((2 * i + 1) << 8)))

/** The hash's 8 bytes, little-endian halves, in hex: as the reference writes them. */
const bytes = (h: KeyedHash): string => {
  const out = Buffer.alloc(8)
  out.writeUInt32LE(h.low, 0)
  out.writeUInt32LE(h.high, 4)
  return out.toString('hex')
}

describe('KeyedHash', () => {
  it("gives the reference's HalfSipHash-2-4 vectors", () => {
    const h = new KeyedHash(0x03020100, 0x07060504, 2, 4)
    for (const [length, expected] of Object.entries(VECTORS)) {
      h.hash(message(Number(length)))
      expect(bytes(h)).toBe(expected)
    }
  })

  it('reads an odd last unit, and tells lengths and units apart', () => {
    const h = new KeyedHash(0x03020100, 0x07060504)
    const seen = new Set<string>()
    for (const text of [
      '',
      '\0',
      '\0\0',
      'a',
      'ab',
      'ba',
      'abc',
      'abd',
      'é',
      '\u0100',
      '\u0001\u0000',
      'x'.repeat(300)
    ]) {
      h.hash(text)
      seen.add(bytes(h))
    }
    expect(seen.size).toBe(12)
    // The same text, the same hash.
    h.hash('abc')
    const first = bytes(h)
    h.hash('abc')
    expect(bytes(h)).toBe(first)
  })

  it('gives other hashes under another key, and the rounds matter', () => {
    const a = new KeyedHash(1, 2)
    const b = new KeyedHash(1, 3)
    const c = new KeyedHash(1, 2, 2, 4)
    a.hash('tgt-1')
    b.hash('tgt-1')
    c.hash('tgt-1')
    expect(bytes(a)).not.toBe(bytes(b))
    expect(bytes(a)).not.toBe(bytes(c))
  })

  it('is keyed once a process, from the kernel', () => {
    const h = processKeyedHash()
    expect(processKeyedHash()).toBe(h)
    h.hash('tgt-1')
    const fixed = new KeyedHash(0, 0)
    fixed.hash('tgt-1')
    // A key of all zeros is one in 2^64.
    expect(bytes(h)).not.toBe(bytes(fixed))
  })
})
