import { writeSync } from 'node:fs'

/**
 * Writes every byte of `bytes` to `fd`. writeSync may write fewer bytes than asked (a nearly full
 * disk), so it is called again for the rest; a write of no byte at all throws rather than loop.
 */
export function writeAll(fd: number, bytes: Uint8Array, write: typeof writeSync = writeSync): void {
  for (let at = 0; at < bytes.length;) {
    const written = write(fd, bytes, at, bytes.length - at)
    if (!(written > 0)) throw new Error(`no byte was written, ${bytes.length - at} left to write`)
    at += written
  }
}
