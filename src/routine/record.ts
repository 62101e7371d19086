import { createHash, Hash, randomBytes } from 'node:crypto'
import { closeSync, ftruncateSync, openSync, rmSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import { RecordSigner } from '../auth/record-key.js'
import { messageOf } from '../errors.js'
import { tempFileError, writeAll } from '../files.js'
import { formatBytes } from '../format.js'
import { redact } from '../secrets.js'
import { Outcome } from './lines.js'
import { headerLine, RecordHeader, sealLine, sealMessage } from './record-format.js'

/** Past this size a results file keeps every line's fields but no more bodies (docs/routine.md). */
export const RESULTS_BODY_CAP_BYTES = 1024 * 1024 * 1024
const FLUSH_CHARS = 64 * 1024

export interface RecordOptions {
  readonly dir: string
  readonly info: (message: string) => void
  /** What the file's first line says of it: its run, call and snapshot. */
  readonly header: RecordHeader
  /** Signs each block's seal; without it the seals only prove the blocks whole. */
  readonly signer?: RecordSigner
  readonly bodyCapBytes?: number
  readonly write?: typeof writeSync
}

/**
 * The routine's results file: a header, then one JSON line per target, redacted, written in blocks
 * of about 64 KiB, each closed by a seal (record-format.ts), so that a killed writer leaves at most
 * one torn block. When a block cannot be written (a full disk, a file-size limit) the file is cut
 * back to its last seal and the block is tried again in halves, so that every line that fits is
 * kept whole and sealed; the lines that do not fit are counted, by outcome, as unrecorded. What the
 * file holds is what `written` counts: the outputs say no more than the record does.
 */
export class ResultsRecord {
  readonly path: string
  /** Lines that could not be written. */
  unrecorded = 0
  /** Why writing stopped: the first failed write, as the step's error names it. */
  failure: Error | undefined
  /** The result lines the file holds, by outcome; and those it could not take. */
  readonly written = new Map<Outcome, number>()
  readonly lost = new Map<Outcome, number>()
  private readonly fd: number
  private readonly write: typeof writeSync
  private readonly bodyCapBytes: number
  private readonly hash: Hash = createHash('sha256')
  private buffered: string[] = []
  private outcomes: Outcome[] = []
  private bufferedChars = 0
  private writtenBytes = 0
  private lines = 0
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
    const header = Buffer.from(headerLine(options.header))
    try {
      writeAll(this.fd, header, this.write)
    } catch (err) {
      // Before the first call: the step fails and leaves no file behind.
      closeSync(this.fd)
      rmSync(this.path, { force: true })
      throw tempFileError('results file', options.dir, err)
    }
    this.hash.update(header)
    this.writtenBytes = header.length
  }

  /** Whether lines still carry the service's bodies: false past the cap, to bound the file. */
  get keepsBodies(): boolean {
    return !this.capped
  }

  /** Adds one result line (without its newline), redacted as it is kept. */
  add(line: string, outcome: Outcome): void {
    if (this.closed || this.failure) {
      if (!this.closed) this.lose(outcome, 1)
      return
    }
    // Redacted as it is kept, which also leaves it one flat string rather than the pieces it was
    // joined from (kept as pieces until the block was written, at 100,000 calls they made V8 grow
    // its young space and peak memory by 30 %).
    const text = `${redact(line)}\n`
    this.buffered.push(text)
    this.outcomes.push(outcome)
    this.bufferedChars += text.length
    if (this.bufferedChars >= FLUSH_CHARS) this.flush()
  }

  /** Writes what is buffered as sealed blocks; never throws: a failure is kept in `failure`. */
  flush(): void {
    if (this.buffered.length === 0 || this.failure) return
    const lines = this.buffered
    const outcomes = this.outcomes
    this.buffered = []
    this.outcomes = []
    this.bufferedChars = 0
    const before = this.lines
    try {
      this.writeBlock(lines, outcomes, 0, lines.length)
    } catch (err) {
      this.failure = tempFileError('results file', this.options.dir, err)
    }
    const kept = this.lines - before
    for (let i = kept; i < lines.length; i++) this.lose(outcomes[i], 1)
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

  /**
   * Writes lines [from, to) and their seal in one write. When it fails, the file is cut back to the
   * last seal and each half is tried on its own: the lines written are a prefix of the block, and
   * it throws at the first line that does not fit even alone.
   */
  private writeBlock(lines: readonly string[], outcomes: readonly Outcome[], from: number, to: number): void {
    const text = lines.slice(from, to).join('')
    const sha256 = this.hash.copy().update(text).digest('hex')
    const count = this.lines + (to - from)
    const sig = this.options.signer ? this.options.signer.sign(sealMessage(count, sha256)) : null
    const bytes = Buffer.from(text + sealLine({ lines: count, sha256, sig }))
    try {
      // At the last seal, not where the file stands: a failed write may have left it further on.
      writeAll(this.fd, bytes, this.write, this.writtenBytes)
    } catch (err) {
      try {
        ftruncateSync(this.fd, this.writtenBytes) // no torn block: back to the last seal
      } catch {
        // a reader takes the file up to its last seal, and warns of the torn end
      }
      if (to - from === 1) throw err
      const middle = from + Math.ceil((to - from) / 2)
      this.writeBlock(lines, outcomes, from, middle)
      this.writeBlock(lines, outcomes, middle, to)
      return
    }
    this.hash.update(bytes)
    this.writtenBytes += bytes.length
    this.lines = count
    for (let i = from; i < to; i++) this.written.set(outcomes[i], (this.written.get(outcomes[i]) ?? 0) + 1)
  }

  private lose(outcome: Outcome, n: number): void {
    this.unrecorded += n
    this.lost.set(outcome, (this.lost.get(outcome) ?? 0) + n)
  }
}
