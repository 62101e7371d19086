import { createHash, Hash } from 'node:crypto'
import { RecordVerifier } from '../auth/record-key.js'
import { formatCount, logSafe, quoted } from '../format.js'
import { parseShard } from '../targets/shards.js'
import { READABLE_FORMATS, RecordHeader, RESULTS_FORMAT, sealMessage } from './record-format.js'
import { MAX_RUN_ATTEMPT, ResultFacts, ResultFileError } from './result-line.js'

/**
 * What a reader holds a results file to, as evidence another job handed over (docs/security.md):
 * a file of another run, of another snapshot, or claiming a later attempt is not counted, and with
 * a verifier (the run's record key) neither is a file it did not sign, nor a block whose seal does
 * not match the bytes before it.
 */
export interface Expectation {
  /** GITHUB_RUN_ID; undefined outside Actions, where any run is taken. */
  readonly run?: string
  /** The reader's run attempt: lines of a later one are refused. */
  readonly attempt?: number
  /**
   * Whether lines of the reader's own attempt count: a report's do; a resume's only from a canary's
   * file, the one legitimate record of the same attempt written before it.
   */
  readonly sameAttempt: 'counted' | 'canary only'
  /** The snapshot's digest (targets-from), when the reader has one. */
  readonly snapshot?: string
  /** The run's record key: every file must be signed with it. */
  readonly verifier?: RecordVerifier
}

export type RefusalReason = 'unsigned' | 'key' | 'altered' | 'run' | 'attempt' | 'snapshot'

/** Why a file, or the rest of it from a line on, is not counted. */
export interface Refusal {
  readonly reason: RefusalReason
  /** What the message says of it: no text of the file but quoted and cleaned. */
  readonly detail: string
  /** The first line not counted: 1 for the whole file. */
  readonly fromLine: number
}

/** A file that is not a results file this version reads, named with both versions. */
export class NewerFormatError extends ResultFileError {}

const HEADER_KEYS = [
  'm2m',
  'format',
  'run',
  'attempt',
  'call',
  'shard',
  'snapshot',
  'listing',
  'where',
  'plan',
  'canary',
  'signer'
]
/** The header as earlier format 2 writers wrote it: `key` where `signer` is now. */
const RELEASED_HEADER_KEYS = [...HEADER_KEYS.slice(0, -1), 'key']
const DIGEST = /^sha256:[0-9a-f]{64}$/
const SEAL_KEYS = ['m2m', 'lines', 'sha256', 'sig']

/**
 * One file's reading as evidence: its header, each block's lines held until the seal that closes
 * it vouches for them, the running SHA-256 the seals are checked against. Format 1 files (no
 * header) are read line by line, as before; they cannot be checked, so a verifier refuses them.
 */
export class FileEvidence {
  header: RecordHeader | undefined
  refusal: Refusal | undefined
  /** Result lines given over: vouched for by a seal, or of a format 1 file. */
  counted = 0
  /** Lines refused one by one: their call, attempt or shard is not the header's, or a later attempt. */
  refusedLines = 0
  private readonly hash: Hash | undefined
  private held: ResultFacts[] = []
  private format = 1

  constructor(
    private readonly file: string,
    private readonly expected: Expectation,
    private readonly give: (facts: ResultFacts, header: RecordHeader | undefined) => void
  ) {
    // Only a verifier makes the bytes' hash worth its cost: without one, seals mark whole blocks.
    if (expected.verifier) this.hash = createHash('sha256')
  }

  /** Whether the rest of the file is to be skipped. */
  get closed(): boolean {
    return this.refusal !== undefined
  }

  /** The first line: the header of a format 2 file. Throws for one this version cannot read. */
  headerLine(text: string, bytes: Buffer): void {
    const said = parseObject(text)
    if (said?.m2m !== 'results' || !Number.isSafeInteger(said.format)) throw this.notOurs('its first line')
    if (!READABLE_FORMATS.includes(said.format as number)) {
      throw new NewerFormatError(
        `${quoted(this.file)} is a results file of format ${formatCount(said.format as number)}, which this version of the action does not read ` +
          `(it reads formats ${READABLE_FORMATS.join(' and ')}): upgrade this step's action to the version of the job that wrote it`
      )
    }
    const value = parseObject(text, HEADER_KEYS) ?? released(parseObject(text, RELEASED_HEADER_KEYS))
    const header = value && checkedHeader(value)
    if (!header) throw this.notOurs('its header')
    this.format = RESULTS_FORMAT
    this.header = header
    this.hash?.update(bytes).update('\n')
    const { expected } = this
    if (expected.verifier && header.signer !== expected.verifier.publicKey) {
      return this.refuse(
        header.signer === null ? 'unsigned' : 'key',
        header.signer === null ? 'unsigned' : 'signed with another key',
        1
      )
    }
    if (expected.run !== undefined && header.run !== expected.run) {
      return this.refuse('run', `of run ${quoted(logSafe(header.run))}, not this run (${expected.run})`, 1)
    }
    if (this.laterAttempt(header.attempt, header.canary)) {
      return this.refuse('attempt', `of run attempt ${header.attempt}, not before this one (${expected.attempt})`, 1)
    }
    if (expected.snapshot !== undefined && header.snapshot !== expected.snapshot) {
      return this.refuse('snapshot', `of another snapshot (${header.snapshot ?? 'a listing'}), not targets-from's`, 1)
    }
  }

  /** A result line: given over now (format 1), or held until its block's seal. Its bytes are read to be hashed. */
  line(facts: ResultFacts, bytes: () => Buffer, lineNumber: number): void {
    if (this.format === 1) {
      if (this.expected.verifier)
        return this.refuse('unsigned', 'unsigned (format 1, written before records were signed)', lineNumber)
      if (this.laterAttempt(facts.runAttempt, false)) {
        this.refusedLines++
        return
      }
      this.counted++
      return this.give(facts, undefined)
    }
    this.hash?.update(bytes()).update('\n')
    const header = this.header!
    if (facts.call !== header.call || facts.runAttempt !== header.attempt || facts.shard !== header.shard) {
      this.refusedLines++
      return
    }
    this.held.push(facts)
  }

  /** A line of the file's own that is not its first: a seal, which gives over the lines it vouches for. */
  sealLine(text: string, bytes: Buffer, lineNumber: number): void {
    const seal = this.format === 1 ? undefined : parseObject(text, SEAL_KEYS)
    const valid =
      seal?.m2m === 'seal' &&
      Number.isSafeInteger(seal.lines) &&
      typeof seal.sha256 === 'string' &&
      /^[0-9a-f]{64}$/.test(seal.sha256) &&
      (seal.sig === null || typeof seal.sig === 'string')
    if (!valid) throw this.notOurs(`line ${lineNumber}`)
    const { verifier } = this.expected
    if (verifier && this.hash) {
      const sha256 = this.hash.copy().digest('hex')
      const message = sealMessage(seal.lines as number, sha256)
      if (sha256 !== seal.sha256 || seal.sig === null || !verifier.verify(message, seal.sig as string)) {
        return this.refuse(
          'altered',
          `altered after it was written: its seal at line ${lineNumber} does not match`,
          lineNumber
        )
      }
      this.hash.update(bytes).update('\n')
    }
    for (const facts of this.held) this.give(facts, this.header)
    this.counted += this.held.length
    this.held = []
  }

  /** Lines after the last seal: a writer stopped mid-block. Whether there were any. */
  end(): boolean {
    const torn = this.held.length > 0
    this.held = []
    return torn
  }

  private laterAttempt(attempt: number, canary: boolean): boolean {
    const current = this.expected.attempt
    if (current === undefined) return false
    if (attempt > current) return true
    return attempt === current && this.expected.sameAttempt === 'canary only' && !canary
  }

  private refuse(reason: RefusalReason, detail: string, fromLine: number): void {
    this.refusal = { reason, detail, fromLine }
    this.held = []
  }

  private notOurs(what: string): ResultFileError {
    return new ResultFileError(
      `${quoted(this.file)} ${what} is not a results file's of this action (docs/routine.md, "The record")`
    )
  }
}

/** A JSON object (with exactly these keys, when given), or undefined. */
function parseObject(text: string, keys?: readonly string[]): Record<string, unknown> | undefined {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return undefined
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) return undefined
  if (!keys) return value as Record<string, unknown>
  const own = Object.keys(value)
  return own.length === keys.length && keys.every(k => own.includes(k)) ? (value as Record<string, unknown>) : undefined
}

/** An earlier writer's header with its `key` read as `signer`. */
function released(value: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (!value) return undefined
  const { key, ...rest } = value
  return { ...rest, signer: key }
}

/** A header's fields by shape, or undefined when one is not what the writer writes. */
function checkedHeader(v: Record<string, unknown>): RecordHeader | undefined {
  const text = (x: unknown, max: number): x is string => typeof x === 'string' && x.length <= max
  const orNull = (x: unknown, ok: (y: unknown) => boolean): boolean => x === null || ok(x)
  const fits =
    text(v.run, 100) &&
    /^[\w-]+$/.test(v.run) &&
    Number.isSafeInteger(v.attempt) &&
    (v.attempt as number) >= 1 &&
    (v.attempt as number) <= MAX_RUN_ATTEMPT &&
    text(v.call, 16) &&
    /^[0-9a-f]{16}$/.test(v.call) &&
    orNull(v.shard, x => text(x, 7) && parseShard(x) !== undefined) &&
    orNull(v.snapshot, x => text(x, 71) && DIGEST.test(x)) &&
    orNull(v.listing, x => text(x, 71) && DIGEST.test(x)) &&
    orNull(v.where, x => text(x, 4096)) &&
    orNull(v.plan, x => text(x, 300) && /^plan[12]\.[0-9a-f.]+$/.test(x)) &&
    typeof v.canary === 'boolean' &&
    orNull(v.signer, x => text(x, 60) && /^m2mrk1\.[A-Za-z0-9_-]{43}$/.test(x))
  return fits ? (v as unknown as RecordHeader) : undefined
}
