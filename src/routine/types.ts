import { Bearer } from '../auth/bearer.js'
import { RecordSigner } from '../auth/record-key.js'
import { CallSpec } from '../service/call.js'
import { Outcome } from './lines.js'
import { RecordHeader } from './record-format.js'
import { EarlierResults } from './resume.js'
import { FailureLimit } from './stop-rule.js'
import { Failure } from './tally.js'
import { WavePlan } from './waves.js'

export interface RoutineOptions {
  readonly spec: CallSpec
  /** The call input as written, for messages. */
  readonly call: string
  /** The operation's fingerprint (fingerprint.ts), in the Idempotency-Key; lines carry the header's. */
  readonly fingerprint: string
  readonly baseUrl: URL
  /** The bearer token of each call: renewed as it nears expiry, recovered once after a 401. */
  readonly bearer: Pick<Bearer, 'current' | 'recover' | 'latest'>
  readonly concurrency: number
  readonly rate?: number
  readonly accept: ReadonlySet<number>
  /** call-max-failures: when no new call starts (stop-rule.ts). */
  readonly maxFailures: FailureLimit
  /** call-waves or call-canary: which wave each target is in; absent for one wave of all. */
  readonly waves?: WavePlan
  /** call-idempotent: a POST or PATCH may be repeated after any transient failure. */
  readonly idempotent: boolean
  /** The Idempotency-Key's run: the same for a target in every attempt of the run. */
  readonly runId: string
  readonly runAttempt: number
  /** The shard input, "K/N", for the lines. */
  readonly shard?: string
  readonly resultsDir: string
  /** The results file's header: whose the record is. */
  readonly header: RecordHeader
  /** Signs the results file's seals: the run's record key, when the job holds one. */
  readonly signer?: RecordSigner
  /**
   * Feeds every target to `offer` in order, a batch at a time, awaiting each batch; absent for the
   * one call without targets. With `keep`, only the targets at the places it keeps, each batch with
   * their places in the list. Every target fed must have passed a Preflight: the calls' URLs rely
   * on it (no dot segment).
   */
  readonly targets?: (
    offer: (batch: readonly unknown[], places?: readonly number[]) => Promise<void>,
    keep?: (place: number) => boolean
  ) => Promise<void>
  /** How many targets `targets` feeds. */
  readonly count?: number
  /** What earlier attempts finished (call-resume-from): skipped, with a line each. */
  readonly earlier?: EarlierResults
  /** A dry run: a planned line per target, and no call. */
  readonly dryRun?: boolean
  /** target-label: the field that names a target to a person; detected when not given. */
  readonly nameField?: string
  /** A cancellation: no new call; the calls in flight get `drainMs`, then are recorded unknown. */
  readonly signal?: AbortSignal
  /** A second signal: the record is flushed and closed at once. */
  readonly hardStop?: AbortSignal
  readonly drainMs?: number
  /** The drain's timer: setTimeout, or a test's clock that fires when told. */
  readonly setTimer?: typeof setTimeout
  /** Told of the results file once it exists, before the first call. */
  readonly onRecord?: (path: string) => void
  readonly info: (message: string) => void
  readonly now?: () => number
}

/** One planned call as the summary shows it. */
export interface PlannedRow {
  /** The target's place in the list, 0-based. */
  readonly index: number
  readonly key: string
  /** What a person calls the target (targetName), when it has such a field. */
  readonly name?: string
  /** "DELETE /v1/targets/t-001". */
  readonly call: string
}

export interface RoutineResult {
  /** Targets the routine had (1 for the one call without targets). */
  readonly count: number
  /** Calls made: succeeded, failed or unknown. */
  readonly calls: number
  readonly outcomes: ReadonlyMap<Outcome, number>
  readonly byStatus: ReadonlyMap<string, number>
  readonly failedByStatus: ReadonlyMap<string, number>
  readonly failures: readonly Failure[]
  readonly durationMs: number
  readonly resultsFile: string
  /** Lines the results file could not take (a full disk), and why; by outcome. */
  readonly unrecorded: number
  readonly unrecordedOutcomes: ReadonlyMap<Outcome, number>
  readonly recordFailure?: Error
  /** The body of the one call without targets, when under 1 MiB. */
  readonly response?: string
  /** A dry run's first calls as a person reads them: the target and "DELETE /v1/targets/t-001". */
  readonly planned: readonly PlannedRow[]
  /** Why new calls stopped early: a 401, call-max-failures, an unwritable results file. */
  readonly stopped?: string
  /** With waves: their sizes, and the last one that started. */
  readonly waves?: { readonly counts: readonly number[]; readonly reached: number }
  readonly cancelled: boolean
}
