import { sha256 } from '@noble/hashes/sha2.js'
import { createHash, Hash } from 'node:crypto'

/**
 * Bytes hashed in JavaScript before the hash moves to node:crypto. Loading node:crypto costs a
 * step about 14 ms of CPU and 360 KB of young garbage (a collection of its own), ten times what
 * hashing a small listing in JavaScript does; past this size node:crypto is the faster
 * (docs/performance.md, "Where the start-up's time goes").
 */
export const SMALL_BYTES = 256 * 1024

/**
 * The SHA-256 of the bytes given, as `update` receives them: kept (copied, as a caller may reuse
 * its buffer) while they are few and hashed at the end by @noble/hashes; once they pass
 * `smallBytes`, handed to node:crypto with everything after them.
 */
export class Sha256 {
  private held: Buffer | undefined
  private heldBytes = 0
  private native: Hash | undefined

  constructor(private readonly smallBytes = SMALL_BYTES) {}

  update(bytes: Uint8Array): void {
    if (this.native) {
      this.native.update(bytes)
      return
    }
    if (this.heldBytes + bytes.length > this.smallBytes) {
      this.native = createHash('sha256')
      if (this.held) this.native.update(this.held.subarray(0, this.heldBytes))
      this.native.update(bytes)
      this.held = undefined
      return
    }
    this.held ??= Buffer.allocUnsafe(this.smallBytes)
    this.held.set(bytes, this.heldBytes)
    this.heldBytes += bytes.length
  }

  /** The hex digest; the hash is done with. */
  hex(): string {
    if (this.native) return this.native.digest('hex')
    return Buffer.from(sha256(this.held ? this.held.subarray(0, this.heldBytes) : new Uint8Array(0))).toString('hex')
  }

  /** Whether the bytes went to node:crypto (for tests). */
  get usedNodeCrypto(): boolean {
    return this.native !== undefined
  }
}
