import { Bearer } from '../auth/bearer.js'
import { messageOf } from '../errors.js'
import { formatCount } from '../format.js'
import { Transport } from '../http/client.js'
import { Limiter } from '../http/limiter.js'
import { redact } from '../secrets.js'
import { CallSpec } from '../service/call.js'
import { targetKey } from '../targets/key.js'
import { CallEnd, callPlan, makeCall, plannedCall } from './call.js'
import { targetLabel } from './label.js'
import { LineContext, LineFields, Outcome, resultBody, resultLine } from './lines.js'
import { progressLine } from './progress.js'
import { ResultsRecord } from './record.js'
import { EarlierResults } from './resume.js'
import { Scheduler } from './scheduler.js'
import { Failure, Tally } from './tally.js'

export interface RoutineOptions {
  readonly spec: CallSpec
  /** The call input as written, for messages. */
  readonly call: string
  /** The operation's fingerprint (fingerprint.ts): on every line, and in the Idempotency-Key. */
  readonly fingerprint: string
  readonly baseUrl: URL
  /** The bearer token of each call: renewed as it nears expiry, recovered once after a 401. */
  readonly bearer: Pick<Bearer, 'current' | 'recover' | 'latest'>
  readonly concurrency: number
  readonly rate?: number
  readonly accept: ReadonlySet<number>
  readonly maxFailures: number
  /** call-idempotent: a POST or PATCH may be repeated after any transient failure. */
  readonly idempotent: boolean
  /** The Idempotency-Key's run: the same for a target in every attempt of the run. */
  readonly runId: string
  readonly runAttempt: number
  /** The shard input, "K/N", for the lines. */
  readonly shard?: string
  readonly resultsDir: string
  /**
   * Feeds every target to `each` in order, awaiting it; absent for the one call without targets.
   * Every target fed must have passed a Preflight: the calls' URLs rely on it (no dot segment).
   */
  readonly targets?: (each: (target: unknown) => Promise<void>) => Promise<void>
  /** How many targets `targets` feeds. */
  readonly count?: number
  /** What earlier attempts finished (call-resume-from): skipped, with a line each. */
  readonly earlier?: EarlierResults
  /** A dry run: a planned line per target, and no call. */
  readonly dryRun?: boolean
  /** A cancellation: no new call; the calls in flight get `drainMs`, then are recorded unknown. */
  readonly signal?: AbortSignal
  /** A second signal: the record is flushed and closed at once. */
  readonly hardStop?: AbortSignal
  readonly drainMs?: number
  /** Told of the results file once it exists, before the first call. */
  readonly onRecord?: (path: string) => void
  readonly info: (message: string) => void
  readonly now?: () => number
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
  /** Lines the results file could not take (a full disk), and why. */
  readonly unrecorded: number
  readonly recordFailure?: Error
  /** The body of the one call without targets, when under 1 MiB. */
  readonly response?: string
  /** A dry run's first calls as a person reads them: "DELETE /v1/targets/t-001". */
  readonly planned: readonly string[]
  /** Why new calls stopped early: a 401, call-max-failures, an unwritable results file. */
  readonly stopped?: string
  readonly cancelled: boolean
}

export const DRAIN_MS = 5000
const RESPONSE_OUTPUT_BYTES = 1024 * 1024
const PROGRESS_MS = 10_000
const PLANNED_SHOWN = 20

interface InFlight {
  readonly target: unknown
  readonly key: string
  readonly index: number
  sent: boolean
  abandoned: boolean
}

/** Stops the feed of targets after a cancellation's time is up. */
class Abandoned extends Error {}

/** Calls the operation for every target, at most `concurrency` at once, with a line for every target. */
export async function runRoutine(http: Transport, options: RoutineOptions): Promise<RoutineResult> {
  const now = options.now ?? Date.now
  const started = now()
  const record = new ResultsRecord({ dir: options.resultsDir, info: options.info })
  options.onRecord?.(record.path)
  const tally = new Tally(options.info)
  const scheduler = new Scheduler<InFlight>(options.concurrency)
  const lineContext: LineContext = {
    fingerprint: options.fingerprint,
    runAttempt: options.runAttempt,
    shard: options.shard
  }
  const context = {
    http,
    spec: options.spec,
    baseUrl: options.baseUrl,
    runId: options.runId,
    fingerprint: options.fingerprint,
    idempotent: options.idempotent,
    accept: options.accept,
    bearer: options.bearer,
    gate: new Limiter(options.rate, now),
    cancelled: () => scheduler.cancelled,
    now
  }
  const shape = callPlan(context)
  const count = options.targets ? (options.count ?? 0) : 1
  let fed = 0
  let response: string | undefined
  let cancelledAt: number | undefined
  const write = (fields: LineFields): void => record.add(resultLine(lineContext, fields))

  const ended = (entry: InFlight, end: CallEnd): void => {
    const { target, key, index } = entry
    const label = targetLabel(target, index)
    tally.call(end.outcome, end.status, label, index, end.error ?? (end.text ? end.text : undefined))
    const body = resultBody(end.text, record.keepsBodies)
    write({ key, index, target, ...end, body })
    if (!options.targets && end.status !== null && Buffer.byteLength(end.text) < RESPONSE_OUTPUT_BYTES) {
      response = redact(end.text)
    }
    if (end.status === 401) {
      const { expiresAtMs } = options.bearer.latest
      const expiry = expiresAtMs === undefined ? '' : ` (it expires ${new Date(expiresAtMs).toISOString()})`
      scheduler.stop(`the service refused the token (HTTP 401) at call #${index + 1}${expiry}: no new call was started`)
    } else if (tally.badCalls >= options.maxFailures) {
      scheduler.stop(
        `${formatCount(tally.badCalls)} calls failed, call-max-failures (${options.maxFailures}): no new call was started`
      )
    }
    if (record.failure) scheduler.stop('the results file could not be written: no new call was started')
  }

  const planned: string[] = []
  const plan = (target: unknown, key: string, index: number): void => {
    tally.add('planned')
    const call = plannedCall(options.spec, target)
    if (planned.length < PLANNED_SHOWN) planned.push(`${call.method} ${call.path}`)
    write({ key, index, target, outcome: 'planned', status: null, body: call.fields })
  }

  const notMade = (target: unknown, key: string, index: number): void => {
    tally.add('not-made')
    write({ key, index, target, outcome: 'not-made', status: null })
  }

  const each = async (target: unknown): Promise<void> => {
    if (cancelledAt !== undefined && now() - cancelledAt > (options.drainMs ?? DRAIN_MS)) throw new Abandoned()
    const index = fed++
    const key = targetKey(target)
    const earlier = options.earlier?.finished(key)
    if (earlier !== undefined) {
      tally.add('skipped')
      write({ key, index, target, outcome: 'skipped', status: earlier })
      return
    }
    if (options.dryRun) return plan(target, key, index)
    const entry: InFlight = { target, key, index, sent: false, abandoned: false }
    const call = async (): Promise<void> => {
      const end = await makeCall(context, shape, target, key, index, entry)
      if (!entry.abandoned) ended(entry, end)
    }
    if (!(await scheduler.start(entry, call))) notMade(target, key, index)
  }

  const onCancel = (): void => {
    cancelledAt = now()
    scheduler.cancel()
  }
  const onHardStop = (): void => record.close()
  options.signal?.addEventListener('abort', onCancel, { once: true })
  options.hardStop?.addEventListener('abort', onHardStop, { once: true })
  if (options.signal?.aborted) onCancel()
  const progress = (): void => options.info(progressLine(facts()))
  const facts = () => ({
    count,
    done: tally.total,
    ended: tally.count('succeeded') + tally.count('failed') + tally.count('unknown'),
    failed: tally.badCalls,
    inFlight: scheduler.inFlight,
    elapsedMs: now() - started,
    stopped: !scheduler.accepting
  })
  const timer = setInterval(progress, PROGRESS_MS)
  timer.unref()
  try {
    try {
      if (options.targets) await options.targets(each)
      else await each({})
    } catch (err) {
      // The calls already made keep their record: the failure is the stop's reason.
      if (!(err instanceof Abandoned))
        scheduler.stop(`the targets could not be read on (${messageOf(err)}): no new call was started`)
    }
    const grace =
      cancelledAt === undefined ? Infinity : Math.max(0, cancelledAt + (options.drainMs ?? DRAIN_MS) - now())
    for (const entry of await scheduler.drain(grace)) {
      entry.abandoned = true
      const outcome = entry.sent ? 'unknown' : 'not-made'
      const error = entry.sent
        ? 'cancelled in flight: no answer before the step stopped'
        : 'cancelled before it was sent'
      tally.call(outcome, null, targetLabel(entry.target, entry.index), entry.index, error)
      write({ key: entry.key, index: entry.index, target: entry.target, outcome, status: null, error })
    }
    // Targets never fed after a cancellation's time was up: counted, without a line.
    if (count > fed) tally.add('not-made', count - fed)
  } finally {
    clearInterval(timer)
    options.signal?.removeEventListener('abort', onCancel)
    options.hardStop?.removeEventListener('abort', onHardStop)
    record.close()
  }
  progress()
  const outcomes = tally.outcomes
  return {
    count,
    calls: tally.count('succeeded') + tally.count('failed') + tally.count('unknown'),
    outcomes,
    byStatus: tally.byStatus,
    failedByStatus: tally.failedByStatus,
    failures: tally.failures,
    durationMs: now() - started,
    resultsFile: record.path,
    unrecorded: record.unrecorded,
    recordFailure: record.failure,
    response,
    planned,
    stopped: scheduler.stopped,
    cancelled: cancelledAt !== undefined
  }
}
