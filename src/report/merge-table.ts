import { ResultFacts } from '../routine/result-line.js'
import { KeyHash, keyHash, KeyTable } from '../targets/key-table.js'
import { ReportOutcome } from './report-outcomes.js'

// Apart, so that the outputs of a step that makes no report load none of the report's code.
export { REPORT_OUTCOMES, type ReportOutcome } from './report-outcomes.js'

/** A target's final line, as the table keeps it. */
export interface Winner {
  readonly outcome: ReportOutcome
  readonly status: number | null
  /** Null for a missing target. */
  readonly runAttempt: number | null
  /** The winning line's place among the lines counted (1-based), 0 for none. */
  readonly seq: number
}

// Code 0 is "no line": a target of the snapshot only.
const CODES: readonly ReportOutcome[] = ['missing', 'succeeded', 'skipped', 'failed', 'unknown', 'not-made']
const SKIPPED = CODES.indexOf('skipped')
const NO_STATUS = 0x3ff
const LISTED = 1 << 10

/**
 * The winning line of every target key, in two words a key and no key text: the line's place in
 * the read (word 0) and, in word 1, its run attempt (18 bits: a line claims MAX_RUN_ATTEMPT at
 * most), outcome (3), whether the snapshot lists the key (1) and status (10). A million keys cost
 * 22 MiB when room is made for them at once (reserve), up to 32 MiB as they come.
 */
export class WinnerTable {
  private readonly table = new KeyTable(2)

  /** Keys that have a line. */
  get keys(): number {
    return this.table.size
  }

  /**
   * Counts a line (not a planned one): it wins over the key's earlier line unless that one is of a
   * later run attempt, or of the same attempt and the new line only says it was skipped (a shard
   * skipping what its canary did in the same attempt: the canary's line tells what happened).
   */
  offer(facts: ResultFacts, seq: number, hash: KeyHash = keyHash(facts.key)): void {
    const { table } = this
    const at = table.add(hash)
    const words = table.words
    const fresh = table.fresh
    if (!fresh && facts.runAttempt < words[at + 1] >>> 14) return
    const sameAttempt = !fresh && facts.runAttempt === words[at + 1] >>> 14
    if (sameAttempt && facts.outcome === 'skipped' && ((words[at + 1] >>> 11) & 7) !== SKIPPED) return
    words[at] = seq
    words[at + 1] =
      ((facts.runAttempt << 14) |
        (CODES.indexOf(facts.outcome as ReportOutcome) << 11) |
        (facts.status ?? NO_STATUS)) >>>
      0
  }

  /** The key's winning line, or undefined when it has none. */
  winner(key: string, hash: KeyHash = keyHash(key)): Winner | undefined {
    const at = this.table.find(hash)
    return at >= 0 && this.table.words[at] !== 0 ? decode(this.table.words, at) : undefined
  }

  /**
   * Marks a key of the snapshot: its winner, a missing target's (no line), or undefined for a key
   * the snapshot listed before.
   */
  list(hash: KeyHash): Winner | undefined {
    const at = this.table.add(hash)
    const words = this.table.words
    if (words[at + 1] & LISTED) return undefined
    words[at + 1] |= LISTED
    return decode(words, at)
  }

  /** Makes room for `keys` keys at once (KeyTable.reserve). */
  reserve(keys: number): void {
    this.table.reserve(keys)
  }

  /** Forgets every line: for counting them again. */
  clear(): void {
    this.table.clear()
  }
}

function decode(words: Uint32Array, at: number): Winner {
  const seq = words[at]
  const status = words[at + 1] & NO_STATUS
  return {
    outcome: CODES[(words[at + 1] >>> 11) & 7],
    status: seq === 0 || status === NO_STATUS ? null : status,
    runAttempt: seq === 0 ? null : words[at + 1] >>> 14,
    seq
  }
}
