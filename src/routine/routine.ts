import { messageOf } from '../errors.js'
import { formatCount } from '../format.js'
import { Transport } from '../http/client.js'
import { Limiter } from '../http/limiter.js'
import { redact, REDACT_MARGIN_CHARS } from '../secrets.js'
import { targetKey } from '../targets/key.js'
import { CallContext, CallEnd, CallPlan, callPlan, makeCall, plannedCall, prepareCall } from './call.js'
import { targetLabel } from '../targets/label.js'
import { LineContext, LineFields, resultBody, resultLine } from './lines.js'
import { progressLine } from './progress.js'
import { ResultsRecord } from './record.js'
import { Scheduler } from './scheduler.js'
import { afterWave, overLimit } from './stop-rule.js'
import { Tally } from './tally.js'
import { WavePlan } from './waves.js'
import { RoutineOptions, RoutineResult } from './types.js'

export type { RoutineOptions, RoutineResult } from './types.js'

export const DRAIN_MS = 5000
const RESPONSE_OUTPUT_BYTES = 1024 * 1024
const PROGRESS_MS = 10_000
/** What a line keeps of a body (64 KiB) and the room redaction needs past the cut. */
const RESULT_BODY_BYTES = 64 * 1024 + 4 * REDACT_MARGIN_CHARS
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
  return new RoutineRun(http, options).run()
}

/** One routine while it runs: what it has fed, recorded and counted. */
class RoutineRun {
  private readonly now: () => number
  private readonly started: number
  private readonly record: ResultsRecord
  private readonly tally: Tally
  private readonly scheduler: Scheduler<InFlight>
  private readonly lineContext: LineContext
  private readonly context: CallContext
  private readonly shape: CallPlan
  private readonly count: number
  private readonly planned: string[] = []
  private fed = 0
  /** The wave being fed, 0 without waves, and the last one whose calls could start. */
  private wave = 0
  private reached = 0
  private response: string | undefined
  private cancelledAt: number | undefined

  constructor(
    http: Transport,
    private readonly options: RoutineOptions
  ) {
    this.now = options.now ?? Date.now
    this.started = this.now()
    this.record = new ResultsRecord({ dir: options.resultsDir, info: options.info })
    options.onRecord?.(this.record.path)
    this.tally = new Tally(options.info)
    const scheduler = (this.scheduler = new Scheduler<InFlight>(options.concurrency))
    this.lineContext = { fingerprint: options.fingerprint, runAttempt: options.runAttempt, shard: options.shard }
    this.context = {
      http,
      spec: options.spec,
      baseUrl: options.baseUrl,
      runId: options.runId,
      fingerprint: options.fingerprint,
      idempotent: options.idempotent,
      accept: options.accept,
      bearer: options.bearer,
      gate: new Limiter(options.rate, this.now),
      // A routine over targets keeps what its lines record; the one call without, its response output.
      keepBytes: options.targets ? RESULT_BODY_BYTES : RESPONSE_OUTPUT_BYTES + 1,
      cancelled: () => scheduler.cancelled,
      now: this.now
    }
    this.shape = callPlan(this.context)
    // A canary's count is its wave: the targets in no wave get no line.
    const inWaves = options.waves?.counts.reduce((a, b) => a + b, 0)
    this.count = options.targets ? (inWaves ?? options.count ?? 0) : 1
  }

  async run(): Promise<RoutineResult> {
    const { options, scheduler, tally } = this
    const onCancel = (): void => {
      this.cancelledAt = this.now()
      scheduler.cancel()
    }
    const onHardStop = (): void => this.record.close()
    options.signal?.addEventListener('abort', onCancel, { once: true })
    options.hardStop?.addEventListener('abort', onHardStop, { once: true })
    if (options.signal?.aborted) onCancel()
    const timer = setInterval(() => this.progress(), PROGRESS_MS)
    timer.unref()
    try {
      await this.feed()
      await this.drain()
      // Targets never fed after a cancellation's time was up: counted, without a line.
      if (this.count > this.fed) tally.add('not-made', this.count - this.fed)
    } finally {
      clearInterval(timer)
      options.signal?.removeEventListener('abort', onCancel)
      options.hardStop?.removeEventListener('abort', onHardStop)
      this.record.close()
    }
    this.progress()
    return this.result()
  }

  private get drainMs(): number {
    return this.options.drainMs ?? DRAIN_MS
  }

  /** Waits for the calls in flight; after a cancellation, for what is left of its grace only. */
  private async drain(): Promise<void> {
    // The grace runs from the cancellation, which may come while the calls are being drained.
    const grace = (): number =>
      this.cancelledAt === undefined ? Infinity : Math.max(0, this.cancelledAt + this.drainMs - this.now())
    for (const entry of await this.scheduler.drain(grace)) this.abandon(entry)
  }

  private async feed(): Promise<void> {
    const { targets, waves } = this.options
    try {
      if (!targets) await this.offerAll([{}])
      else if (waves) await this.feedWaves(targets, waves)
      else await targets(this.offerAll)
    } catch (err) {
      // The calls already made keep their record: the failure is the stop's reason.
      if (!(err instanceof Abandoned)) {
        this.scheduler.stop(`the targets could not be read on (${messageOf(err)}): no new call was started`)
      }
    }
  }

  /**
   * Feeds wave after wave: every call of a wave is answered (or ends unknown) before the stop rule
   * is checked and the next starts. After a stop, the later waves' targets get not-made lines.
   */
  private async feedWaves(targets: NonNullable<RoutineOptions['targets']>, plan: WavePlan): Promise<void> {
    const { scheduler, tally } = this
    const of = plan.counts.length
    for (let number = 1; number <= of; number++) {
      this.wave = number
      const before = { answered: this.answered, bad: tally.badCalls }
      if (scheduler.accepting) {
        this.reached = number
        this.options.info(`Wave ${number} of ${of}: ${formatCount(plan.counts[number - 1])} targets`)
      }
      await targets(this.offerAll, place => plan.waveOf[place] === number)
      await this.drain()
      if (!scheduler.accepting) continue
      const total = { answered: this.answered, bad: tally.badCalls }
      const wave = { number, of, answered: total.answered - before.answered, bad: total.bad - before.bad }
      const reason = afterWave(this.options.maxFailures, total, wave)
      if (reason) scheduler.stop(`stopped ${reason}: no new call was started`)
    }
  }

  /** Calls that ended: succeeded, failed or unknown. */
  private get answered(): number {
    const { tally } = this
    return tally.count('succeeded') + tally.count('failed') + tally.count('unknown')
  }

  /** Offers a batch of targets in order, each as a slot frees; `places`: theirs in the list. */
  private readonly offerAll = async (targets: readonly unknown[], places?: readonly number[]): Promise<void> => {
    for (let i = 0; i < targets.length; i++) {
      for (let wait = this.scheduler.slot(); wait !== undefined; wait = this.scheduler.slot()) await wait
      this.offer(targets[i], places ? places[i] : this.fed)
    }
  }

  private offer(target: unknown, index: number): void {
    if (this.cancelledAt !== undefined && this.now() - this.cancelledAt > this.drainMs) throw new Abandoned()
    this.fed++
    const key = targetKey(target)
    const finished = this.options.earlier?.finished(key)
    if (finished !== undefined) {
      this.tally.add('skipped')
      return this.write({ key, index, target, outcome: 'skipped', status: finished })
    }
    if (this.options.dryRun) return this.plan(target, key, index)
    const entry: InFlight = { target, key, index, sent: false, abandoned: false }
    if (!this.scheduler.startNow(entry, this.make)) {
      this.tally.add('not-made')
      this.write({ key, index, target, outcome: 'not-made', status: null })
    }
  }

  /**
   * Makes an entry's call, its request worked out here as it starts. Worked out ahead, a batch of
   * the snapshot at once, it measured faster but raised peak memory at 100,000 calls from 146 to
   * 217 MiB (docs/performance.md).
   */
  private readonly make = async (entry: InFlight): Promise<boolean> => {
    const call = prepareCall(this.context, this.shape, entry.target, entry.key)
    const end = await makeCall(this.context, this.shape, call, entry.index, entry)
    if (!entry.abandoned) this.ended(entry, end)
    // An answer cut at what its line keeps: reading such answers, not the calls, is the cost, and
    // its slot is answered at once (Scheduler.startNow).
    return end.truncated === true
  }

  private write(fields: LineFields): void {
    this.record.add(resultLine(this.lineContext, this.wave > 0 ? { ...fields, wave: this.wave } : fields))
  }

  private ended(entry: InFlight, end: CallEnd): void {
    const { options, scheduler, tally } = this
    const { target, key, index } = entry
    const detail = end.error ?? (end.text ? end.text : undefined)
    tally.call(end.outcome, end.status, () => targetLabel(target, index), index, detail)
    const { outcome, status, error, attempts, ms, truncated } = end
    const body = resultBody(end.text, this.record.keepsBodies, truncated)
    this.write({ key, index, target, outcome, status, error, attempts, ms, body })
    if (!options.targets && end.status !== null && !truncated && Buffer.byteLength(end.text) < RESPONSE_OUTPUT_BYTES) {
      this.response = redact(end.text)
    }
    if (end.status === 401) {
      const { expiresAtMs } = options.bearer.latest
      const expiry = expiresAtMs === undefined ? '' : ` (it expires ${new Date(expiresAtMs).toISOString()})`
      scheduler.stop(`the service refused the token (HTTP 401) at call #${index + 1}${expiry}: no new call was started`)
    } else {
      const over = overLimit(options.maxFailures, { answered: this.answered, bad: tally.badCalls })
      if (over) scheduler.stop(`${over}: no new call was started`)
    }
    if (this.record.failure) scheduler.stop('the results file could not be written: no new call was started')
  }

  private plan(target: unknown, key: string, index: number): void {
    this.tally.add('planned')
    const call = plannedCall(this.options.spec, target)
    if (this.planned.length < PLANNED_SHOWN) this.planned.push(`${call.method} ${call.path}`)
    this.write({ key, index, target, outcome: 'planned', status: null, body: call.fields })
  }

  /** A call still open when the drain ended: unknown if it may have been sent, else never made. */
  private abandon(entry: InFlight): void {
    entry.abandoned = true
    const { target, key, index } = entry
    const outcome = entry.sent ? 'unknown' : 'not-made'
    const error = entry.sent ? 'cancelled in flight: no answer before the step stopped' : 'cancelled before it was sent'
    this.tally.call(outcome, null, targetLabel(target, index), index, error)
    this.write({ key, index, target, outcome, status: null, error })
  }

  private progress(): void {
    const { tally, scheduler } = this
    this.options.info(
      progressLine({
        count: this.count,
        done: tally.total,
        ended: tally.count('succeeded') + tally.count('failed') + tally.count('unknown'),
        failed: tally.badCalls,
        inFlight: scheduler.inFlight,
        elapsedMs: this.now() - this.started,
        stopped: !scheduler.accepting
      })
    )
  }

  private result(): RoutineResult {
    const { tally, record } = this
    return {
      count: this.count,
      calls: this.answered,
      outcomes: tally.outcomes,
      byStatus: tally.byStatus,
      failedByStatus: tally.failedByStatus,
      failures: tally.failures,
      durationMs: this.now() - this.started,
      resultsFile: record.path,
      unrecorded: record.unrecorded,
      recordFailure: record.failure,
      response: this.response,
      planned: this.planned,
      stopped: this.scheduler.stopped,
      waves: this.options.waves && { counts: this.options.waves.counts, reached: this.reached },
      cancelled: this.cancelledAt !== undefined
    }
  }
}
