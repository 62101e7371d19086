import { KeyHash } from '../targets/key-table.js'
import { fmix32, shardList } from '../targets/shards.js'
import { statusText } from './merge-failures.js'
import { ReportOutcome, Winner } from './merge-table.js'
import { ReportLine } from './report-file.js'

/** One shard's counts by outcome. */
export interface ShardRow {
  /** "K/N". */
  readonly shard: string
  readonly counts: ReadonlyMap<ReportOutcome, number>
}

/** A failure still without its excerpt: `seq` finds the file of its winning line. */
export interface FailureSeen {
  readonly key: string
  readonly status: number | null
  readonly outcome: ReportOutcome
  readonly runAttempt: number
  readonly seq: number
}

const KEPT_FAILURES = 50

/**
 * The report's counts, target by target: by outcome, by status, by shard, and the first failures.
 * Shards are placed as the shard input places them (shards.ts), from the key's hash, so that a
 * missing target and a reported one of the same shard land in one row. With no shard count (no
 * result line said how many shards there were) there are no rows, and no line names a shard.
 */
export class ReportTally {
  readonly counts = new Map<ReportOutcome, number>()
  // Counted by the status itself and named at the end, not with a string made for each target.
  private readonly statuses = new Map<number | null, number>()
  readonly failures: FailureSeen[] = []
  targets = 0
  private readonly byShard: Map<ReportOutcome, number>[] = []
  private readonly labels: readonly string[]
  private readonly placeIn: number

  constructor(shardCount: number | undefined) {
    this.labels = shardList(shardCount ?? 0)
    this.placeIn = shardCount ?? 1
  }

  /** Counts one target, and returns its report line. */
  add(key: string, hash: KeyHash, winner: Winner): ReportLine {
    const { outcome, status, runAttempt } = winner
    const index = fmix32(hash.shard) % this.placeIn
    const shard = (this.byShard[index] ??= new Map())
    shard.set(outcome, (shard.get(outcome) ?? 0) + 1)
    this.counts.set(outcome, (this.counts.get(outcome) ?? 0) + 1)
    this.targets++
    if (runAttempt !== null && outcome !== 'not-made') this.statuses.set(status, (this.statuses.get(status) ?? 0) + 1)
    if ((outcome === 'failed' || outcome === 'unknown') && this.failures.length < KEPT_FAILURES) {
      this.failures.push({ key, status, outcome, runAttempt: runAttempt ?? 0, seq: winner.seq })
    }
    return { key, outcome, status, runAttempt, shard: this.labels[index] ?? null }
  }

  /** "HTTP 200", "no response": the final status of every target whose call was made, in the order first seen. */
  get byStatus(): Map<string, number> {
    return new Map([...this.statuses].map(([status, n]) => [statusText(status), n]))
  }

  /** The shards that hold a target, in order. */
  shards(): ShardRow[] {
    const rows: ShardRow[] = []
    if (this.labels.length > 0) this.byShard.forEach((counts, i) => rows.push({ shard: this.labels[i], counts }))
    return rows
  }
}
