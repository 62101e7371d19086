import { randomBytes } from 'node:crypto'
import { closeSync, openSync, rmSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import { tempFileError, writeAll } from '../files.js'
import { redactJson, WITHHELD } from '../secrets.js'
import type { ReportOutcome } from './merge-table.js'

/** One target's line in the report file. */
export interface ReportLine {
  readonly key: string
  readonly outcome: ReportOutcome
  readonly status: number | null
  /** Null for a missing target. */
  readonly runAttempt: number | null
  /** "K/N", or null when the report cannot know N (it read no result line). */
  readonly shard: string | null
}

const BLOCK_BYTES = 64 * 1024

/** A report line, written by hand as result lines are: a million JSON.stringify calls cost seconds. */
export function reportLine(line: ReportLine): string {
  return (
    `{"key":${JSON.stringify(line.key)},"outcome":"${line.outcome}","status":${line.status},` +
    `"runAttempt":${line.runAttempt},"shard":${line.shard === null ? null : `"${line.shard}"`}}`
  )
}

/** A report line whose parts, each redacted, still hold a secret together: its key is withheld. */
function withheldKey(line: unknown): unknown {
  return { ...(line as Record<string, unknown>), key: WITHHELD }
}

/**
 * The report-file output: one JSON line per target, redacted, mode 0600, in RUNNER_TEMP. Written in
 * blocks of 64 KiB; a failed write throws, and `discard` removes what was written.
 */
export class ReportFile {
  readonly path: string
  private readonly fd: number
  // One block, written into and flushed again and again: a million lines allocate no buffers.
  private readonly block = Buffer.allocUnsafe(BLOCK_BYTES)
  private used = 0
  private closed = false

  constructor(
    private readonly dir: string,
    private readonly writeBytes: typeof writeSync = writeSync
  ) {
    this.path = join(dir, `report-${randomBytes(6).toString('hex')}.jsonl`)
    try {
      this.fd = openSync(this.path, 'wx', 0o600)
    } catch (err) {
      throw tempFileError('report file', dir, err)
    }
  }

  add(line: ReportLine): void {
    // Redacted as JSON: `***` over an escape of the key must not leave a line jq cannot read.
    const text = `${redactJson(reportLine(line), withheldKey)}\n`
    // A UTF-8 byte is at most 3 bytes per UTF-16 unit.
    if (this.used + text.length * 3 > BLOCK_BYTES) this.flush()
    if (text.length * 3 > BLOCK_BYTES) this.write(Buffer.from(text))
    else this.used += this.block.write(text, this.used)
  }

  /** Writes the rest and closes the file. */
  close(): void {
    if (this.closed) return
    try {
      this.flush()
    } finally {
      this.closed = true
      closeSync(this.fd)
    }
  }

  /** Closes and removes the file: a report cut short must not be read as whole. */
  discard(): void {
    if (!this.closed) {
      this.closed = true
      closeSync(this.fd)
    }
    rmSync(this.path, { force: true })
  }

  private flush(): void {
    if (this.used === 0) return
    const bytes = this.block.subarray(0, this.used)
    this.used = 0
    this.write(bytes)
  }

  private write(bytes: Buffer): void {
    try {
      writeAll(this.fd, bytes, this.writeBytes)
    } catch (err) {
      throw tempFileError('report file', this.dir, err)
    }
  }
}
