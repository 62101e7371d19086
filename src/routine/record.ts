import { randomBytes } from 'node:crypto'
import { closeSync, ftruncateSync, openSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import { messageOf } from '../errors.js'
import { tempFileError, writeAll } from '../files.js'
import { formatBytes } from '../format.js'
import { redact } from '../secrets.js'

/** Past this size a results file keeps every line's fields but no more bodies (docs/routine.md). */
export const RESULTS_BODY_CAP_BYTES = 1024 * 1024 * 1024
const FLUSH_CHARS = 64 * 1024

export interface RecordOptions {
  readonly dir: string
  readonly info: (message: string) => void
  readonly bodyCapBytes?: number
  readonly write?: typeof writeSync
}

/**
 * The routine's results file: one JSON line per target, redacted, written in blocks of about 64 KiB
 * and flushed whole, so that a killed writer leaves at most one torn last line. Once a write fails
 * (a full disk) the file is cut back to its last whole line, and every line after it is counted as
 * unrecorded instead: what was written stays.
 */
export class ResultsRecord {
  readonly path: string
  /** Lines that could not be written. */
  unrecorded = 0
  /** Why writing stopped: the first failed write, as the step's error names it. */
  failure: Error | undefined
  private readonly fd: number
  private readonly write: typeof writeSync
  private readonly bodyCapBytes: number
  private buffered: string[] = []
  private bufferedChars = 0
  private writtenBytes = 0
  private closed = false
  private capped = false

  constructor(private readonly options: RecordOptions) {
    this.path = join(options.dir, `results-${randomBytes(6).toString('hex')}.jsonl`)
    this.write = options.write ?? writeSync
    this.bodyCapBytes = options.bodyCapBytes ?? RESULTS_BODY_CAP_BYTES
    try {
      this.fd = openSync(this.path, 'wx', 0o600)
    } catch (err) {
      throw tempFileError('results file', options.dir, err)
    }
  }

  /** Whether lines still carry the service's bodies: false past the cap, to bound the file. */
  get keepsBodies(): boolean {
    return !this.capped
  }

  /** Adds one line (without its newline); redacted as it is kept. */
  add(line: string): void {
    if (this.closed || this.failure) {
      if (!this.closed) this.unrecorded++
      return
    }
    // Redacted as it is kept, which also leaves it one flat string rather than the pieces it was
    // joined from (kept as pieces until the block was written, at 100,000 calls they made V8 grow
    // its young space and peak memory by 30 %).
    const text = `${redact(line)}\n`
    this.buffered.push(text)
    this.bufferedChars += text.length
    if (this.bufferedChars >= FLUSH_CHARS) this.flush()
  }

  /** Writes what is buffered; never throws: a failure is kept in `failure`. */
  flush(): void {
    if (this.buffered.length === 0 || this.failure) return
    const lines = this.buffered.length
    const bytes = Buffer.from(this.buffered.join(''))
    this.buffered = []
    this.bufferedChars = 0
    try {
      writeAll(this.fd, bytes, this.write)
      this.writtenBytes += bytes.length
    } catch (err) {
      this.unrecorded += lines
      this.failure = tempFileError('results file', this.options.dir, err)
      try {
        ftruncateSync(this.fd, this.writtenBytes) // no torn line: back to the last whole one
      } catch {
        // the lines before it stay; the torn end is ignored by a resume, with a warning
      }
      return
    }
    if (!this.capped && this.writtenBytes >= this.bodyCapBytes) {
      this.capped = true
      this.options.info(
        `The results file passed ${formatBytes(this.bodyCapBytes)}: from here on its lines keep their fields but not the service's bodies`
      )
    }
  }

  /** Flushes and closes; later lines are dropped. Idempotent. */
  close(): void {
    if (this.closed) return
    this.flush()
    this.closed = true
    try {
      closeSync(this.fd)
    } catch (err) {
      this.failure ??= new Error(`Failed to close the results file: ${messageOf(err)}`)
    }
  }
}
