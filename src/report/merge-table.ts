import { ResultFacts } from '../routine/result-line.js'
import { KeyHash, keyHash, KeyTable } from '../targets/key-table.js'

/** A target's outcome in a report: a routine's outcome, or `missing` (no line in any results file). */
export type ReportOutcome = 'succeeded' | 'skipped' | 'failed' | 'unknown' | 'not-made' | 'missing'

export const REPORT_OUTCOMES: readonly ReportOutcome[] = [
  'succeeded',
  'skipped',
  'failed',
  'unknown',
  'not-made',
  'missing'
]

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
 * 16 MiB to 32 MiB.
 */
export class WinnerTable {
  private readonly table: KeyTable

  /** `lines`: the result lines to be offered, to make room for their keys at once. */
  constructor(lines = 0) {
    this.table = new KeyTable(2, lines)
  }

  /** Keys that have a line. */
  get keys(): number {
    return this.table.size
  }

  /**
   * Counts a line (not a planned one): it wins over the key's earlier line unless that one is of a
   * later run attempt, or of the same attempt and the new line only says it was skipped (a shard
   * skipping what its canary did in the same attempt: the canary's line tells what happened).
   */
  offer(facts: ResultFacts, seq: number): void {
    const { words, fresh } = this.table.slot(facts.key)
    if (!fresh && facts.runAttempt < words[1] >>> 14) return
    const sameAttempt = !fresh && facts.runAttempt === words[1] >>> 14
    if (sameAttempt && facts.outcome === 'skipped' && ((words[1] >>> 11) & 7) !== SKIPPED) return
    words[0] = seq
    words[1] =
      ((facts.runAttempt << 14) |
        (CODES.indexOf(facts.outcome as ReportOutcome) << 11) |
        (facts.status ?? NO_STATUS)) >>>
      0
  }

  /** The key's winning line, or undefined when it has none. */
  winner(key: string, hash: KeyHash = keyHash(key)): Winner | undefined {
    const words = this.table.get(key, hash)
    return words && words[0] !== 0 ? decode(words) : undefined
  }

  /**
   * Marks a key of the snapshot: its winner, a missing target's (no line), or undefined for a key
   * the snapshot listed before.
   */
  list(key: string, hash: KeyHash): Winner | undefined {
    const { words } = this.table.slot(key, hash)
    if (words[1] & LISTED) return undefined
    words[1] |= LISTED
    return decode(words)
  }
}

function decode(words: Uint32Array): Winner {
  const seq = words[0]
  const status = words[1] & NO_STATUS
  return {
    outcome: CODES[(words[1] >>> 11) & 7],
    status: seq === 0 || status === NO_STATUS ? null : status,
    runAttempt: seq === 0 ? null : words[1] >>> 14,
    seq
  }
}
