import { randomBytes } from 'node:crypto'
import { closeSync, openSync, readSync } from 'node:fs'

/** Bytes read from the kernel at a time: a step's file names and output delimiters in one read. */
export const POOL_BYTES = 512

/**
 * Random bytes from the kernel's generator (/dev/urandom, where node:crypto's own come from too)
 * where the runner has one, else from node:crypto (Windows). A step that only lists needs a few,
 * for a file name and its outputs' delimiters, and loading node:crypto for them cost it about
 * 14 ms of CPU (docs/performance.md). Read POOL_BYTES at a time; each byte is given out once.
 */
export class RandomPool {
  private pool: Buffer | undefined
  private used = POOL_BYTES

  constructor(private readonly device = '/dev/urandom') {}

  /** `bytes` random bytes, in hex. */
  hex(bytes: number): string {
    if (bytes > POOL_BYTES) return randomBytes(bytes).toString('hex')
    if (this.used + bytes > POOL_BYTES) {
      this.pool = this.fromDevice()
      this.used = 0
    }
    if (!this.pool) {
      this.used = POOL_BYTES
      return randomBytes(bytes).toString('hex')
    }
    const hex = this.pool.toString('hex', this.used, this.used + bytes)
    this.used += bytes
    return hex
  }

  /** POOL_BYTES from the device, or undefined when it cannot give them all. */
  private fromDevice(): Buffer | undefined {
    const out = Buffer.alloc(POOL_BYTES)
    let fd: number | undefined
    try {
      fd = openSync(this.device, 'r')
      return readSync(fd, out, 0, POOL_BYTES, null) === POOL_BYTES ? out : undefined
    } catch {
      return undefined
    } finally {
      if (fd !== undefined) closeSync(fd)
    }
  }
}

const shared = new RandomPool()

/** `bytes` random bytes in hex, from the step's pool. */
export function randomHex(bytes: number): string {
  return shared.hex(bytes)
}
