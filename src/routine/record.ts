import { createHash, Hash, randomBytes } from 'node:crypto'
import { closeSync, ftruncateSync, openSync, rmSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import { RecordSigner } from '../auth/record-key.js'
import { messageOf } from '../errors.js'
import { tempFileError, writeAll } from '../files.js'
import { formatBytes } from '../format.js'
import { redactJson, WITHHELD } from '../secrets.js'
import { Outcome } from './lines.js'
import { headerLine, RecordHeader, sealLine, sealMessage } from './record-format.js'

/** Past this size a results file keeps every line's fields but no more bodies (docs/routine.md). */
export const RESULTS_BODY_CAP_BYTES = 1024 * 1024 * 1024
const FLUSH_BYTES = 64 * 1024

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
  private hash: Hash = createHash('sha256')
  /** The lines not yet written, as UTF-8 bytes: off the JS heap, so no young space holds them. */
  private block = Buffer.allocUnsafe(2 * FLUSH_BYTES)
  private blockBytes = 0
  /** Where each buffered line ends in `block`, and its outcome. */
  private ends: number[] = []
  private outcomes: Outcome[] = []
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
    // Redacted, then kept as bytes: a line held as a string until its block was written survived
    // young-generation collections and was copied by each (docs/performance.md). Redacted as JSON:
    // `***` over a number of the body must not leave a line jq cannot read.
    this.append(redactJson(line, headOf))
    this.ends.push(this.blockBytes)
    this.outcomes.push(outcome)
    if (this.blockBytes >= FLUSH_BYTES) this.flush()
  }

  /** Appends a line and its newline to the block, which grows for a line that does not fit. */
  private append(text: string): void {
    // At most 3 bytes of UTF-8 for each UTF-16 unit, and the newline.
    if (this.block.length - this.blockBytes < 3 * text.length + 1) {
      const need = this.blockBytes + Buffer.byteLength(text) + 1
      if (this.block.length < need) {
        const grown = Buffer.allocUnsafe(Math.max(need, 2 * this.block.length))
        this.block.copy(grown, 0, 0, this.blockBytes)
        this.block = grown
      }
    }
    this.blockBytes += this.block.write(text, this.blockBytes)
    this.block[this.blockBytes++] = 0x0a
  }

  /** Writes what is buffered as sealed blocks; never throws: a failure is kept in `failure`. */
  flush(): void {
    if (this.ends.length === 0 || this.failure) return
    const { ends, outcomes } = this
    const before = this.lines
    try {
      this.writeBlock(ends, outcomes, 0, ends.length)
    } catch (err) {
      this.failure = tempFileError('results file', this.options.dir, err)
    }
    this.ends = []
    this.outcomes = []
    this.blockBytes = 0
    const kept = this.lines - before
    for (let i = kept; i < ends.length; i++) this.lose(outcomes[i], 1)
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
  private writeBlock(ends: readonly number[], outcomes: readonly Outcome[], from: number, to: number): void {
    const text = this.block.subarray(from === 0 ? 0 : ends[from - 1], ends[to - 1])
    // The lines are hashed once: the seal's digest is taken from a copy of the running hash.
    const hash = this.hash.copy().update(text)
    const sha256 = hash.copy().digest('hex')
    const count = this.lines + (to - from)
    const sig = this.options.signer ? this.options.signer.sign(sealMessage(count, sha256)) : null
    const seal = Buffer.from(sealLine({ lines: count, sha256, sig }))
    const bytes = Buffer.concat([text, seal])
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
      this.writeBlock(ends, outcomes, from, middle)
      this.writeBlock(ends, outcomes, middle, to)
      return
    }
    this.hash = hash.update(seal)
    this.writtenBytes += bytes.length
    this.lines = count
    for (let i = from; i < to; i++) this.written.set(outcomes[i], (this.written.get(outcomes[i]) ?? 0) + 1)
  }

  private lose(outcome: Outcome, n: number): void {
    this.unrecorded += n
    this.lost.set(outcome, (this.lost.get(outcome) ?? 0) + n)
  }
}

/**
 * What a line keeps when its parts, each redacted, still hold a secret together: the fields a resume
 * and a report read, and its index; the body says why the rest is gone.
 */
function headOf(line: unknown): unknown {
  const { key, call, outcome, status, runAttempt, shard, index } = line as Record<string, unknown>
  return { key, call, outcome, status, runAttempt, shard, index, body: WITHHELD }
}
