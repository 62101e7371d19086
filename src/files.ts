import { writeSync } from 'node:fs'
import { messageOf } from './errors.js'

/**
 * Writes every byte of `bytes` to `fd`, at `position` when given (else where the file stands).
 * writeSync may write fewer bytes than asked (a nearly full disk), so it is called again for the
 * rest; a write of no byte at all throws rather than loop.
 */
export function writeAll(fd: number, bytes: Uint8Array, write: typeof writeSync = writeSync, position?: number): void {
  for (let at = 0; at < bytes.length;) {
    const written =
      position === undefined
        ? write(fd, bytes, at, bytes.length - at)
        : write(fd, bytes, at, bytes.length - at, position + at)
    if (!(written > 0)) throw new Error(`no byte was written, ${bytes.length - at} left to write`)
    at += written
  }
}

/** Why a file in RUNNER_TEMP could not be written, and what to do: the step's error. */
export function tempFileError(file: string, dir: string, err: unknown): Error {
  return new Error(
    `Failed to write the ${file} in ${dir} (RUNNER_TEMP): ${messageOf(err)}. ` +
      'Free disk space on the runner, or give each job fewer targets (see shard).',
    { cause: err }
  )
}
