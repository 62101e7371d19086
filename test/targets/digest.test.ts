import { describe, expect, it } from '@jest/globals'
import { createHash } from 'node:crypto'
import { SMALL_BYTES, Sha256 } from '../../src/targets/digest.js'

const nodeSha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex')

/** Bytes 0..n-1 of a pattern that is not periodic in 64-byte blocks. */
const bytes = (n: number): Buffer => Buffer.from(Array.from({ length: n }, (_, i) => (i * 131 + (i >> 7)) % 251))

/** Feeds `data` in chunks of `chunk` bytes through one reused buffer, as TargetsFile does. */
function digestOf(data: Buffer, chunk: number, small?: number): { hex: string; native: boolean } {
  const hash = new Sha256(small)
  const scratch = Buffer.alloc(chunk)
  for (let at = 0; at < data.length; at += chunk) {
    const n = data.copy(scratch, 0, at, Math.min(at + chunk, data.length))
    hash.update(scratch.subarray(0, n))
    scratch.fill(0xff) // the caller reuses its buffer: what was given must have been kept
  }
  const native = hash.usedNodeCrypto
  return { hex: hash.hex(), native }
}

describe('Sha256', () => {
  it('is the SHA-256 of nothing', () => {
    expect(new Sha256().hex()).toBe(nodeSha256(Buffer.alloc(0)))
  })

  it.each([1, 55, 56, 63, 64, 65, 1000, 4096])('is the SHA-256 of %i bytes, kept and hashed in JavaScript', n => {
    const data = bytes(n)
    const { hex, native } = digestOf(data, 7)
    expect(native).toBe(false)
    expect(hex).toBe(nodeSha256(data))
  })

  it('stays in JavaScript up to its limit exactly, and moves to node:crypto one byte past it', () => {
    const small = 1000
    expect(digestOf(bytes(small), 100, small)).toEqual({ hex: nodeSha256(bytes(small)), native: false })
    expect(digestOf(bytes(small + 1), 100, small)).toEqual({ hex: nodeSha256(bytes(small + 1)), native: true })
  })

  it.each([
    ['a chunk at a time past the limit', 333],
    ['one chunk larger than the limit', 5000]
  ])('gives the same digest once moved to node:crypto (%s)', (_, chunk) => {
    const data = bytes(12_345)
    const { hex, native } = digestOf(data, chunk, 1000)
    expect(native).toBe(true)
    expect(hex).toBe(nodeSha256(data))
  })

  it('holds at most SMALL_BYTES in JavaScript by default', () => {
    expect(digestOf(bytes(SMALL_BYTES), 4096).native).toBe(false)
    const past = digestOf(bytes(SMALL_BYTES + 1), 4096)
    expect(past).toEqual({ hex: nodeSha256(bytes(SMALL_BYTES + 1)), native: true })
  })
})
