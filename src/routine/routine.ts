import { messageOf } from '../errors.js'
import { Transport } from '../http/client.js'
import { targetKey } from '../targets/key.js'
import { CallContext, CallEnd, CallPlan, callPlan, makeCall, prepareCall, routineContext } from './call.js'
import { Ledger } from './ledger.js'
import { Outcome } from './lines.js'
import { feedWaves, WaveFeed } from './pace.js'
import { progressLine } from './progress.js'
import { Scheduler } from './scheduler.js'
import { stopAfterCall } from './stop-rule.js'
import { RoutineOptions, RoutineResult } from './types.js'

export type { RoutineOptions, RoutineResult } from './types.js'

export const DRAIN_MS = 5000
const PROGRESS_MS = 10_000

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
  private readonly ledger: Ledger
  private readonly scheduler: Scheduler<InFlight>
  private readonly context: CallContext
  private readonly shape: CallPlan
  private readonly count: number
  private fed = 0
  /** Targets never fed, after a cancellation's time was up: not made, without a line. */
  private unfed = 0
  /** The last wave whose calls could start. */
  private reached = 0
  private cancelledAt: number | undefined

  constructor(
    http: Transport,
    private readonly options: RoutineOptions
  ) {
    this.now = options.now ?? Date.now
    this.started = this.now()
    this.ledger = new Ledger(options)
    options.onRecord?.(this.ledger.record.path)
    const scheduler = (this.scheduler = new Scheduler<InFlight>(options.concurrency))
    this.context = routineContext(http, options, () => scheduler.cancelled, this.now)
    this.shape = callPlan(this.context)
    // A canary's count is its wave: the targets in no wave get no line.
    const inWaves = options.waves?.counts.reduce((a, b) => a + b, 0)
    this.count = options.targets ? (inWaves ?? options.count ?? 0) : 1
  }

  async run(): Promise<RoutineResult> {
    const { options, scheduler, ledger } = this
    const onCancel = (): void => {
      this.cancelledAt = this.now()
      scheduler.cancel()
    }
    const onHardStop = (): void => ledger.record.close()
    options.signal?.addEventListener('abort', onCancel, { once: true })
    options.hardStop?.addEventListener('abort', onHardStop, { once: true })
    if (options.signal?.aborted) onCancel()
    const timer = setInterval(() => this.progress(), PROGRESS_MS)
    timer.unref()
    try {
      await this.feed()
      await this.drain()
      // Targets never fed after a cancellation's time was up: counted, without a line.
      this.unfed = Math.max(0, this.count - this.fed)
      if (this.unfed > 0) ledger.tally.add('not-made', this.unfed)
    } finally {
      clearInterval(timer)
      options.signal?.removeEventListener('abort', onCancel)
      options.hardStop?.removeEventListener('abort', onHardStop)
      ledger.record.close()
    }
    const result = this.result()
    // The last line is made from the result itself: the step's error and the summary say the same.
    this.progress(result.outcomes)
    return result
  }

  private get drainMs(): number {
    return this.options.drainMs ?? DRAIN_MS
  }

  /** Waits for the calls in flight; after a cancellation, for what is left of its grace only. */
  private async drain(): Promise<void> {
    // The grace runs from the cancellation, which may come while the calls are being drained.
    const grace = (): number =>
      this.cancelledAt === undefined ? Infinity : Math.max(0, this.cancelledAt + this.drainMs - this.now())
    for (const entry of await this.scheduler.drain(grace, this.options.setTimer)) this.abandon(entry)
  }

  private waveFeed(targets: NonNullable<RoutineOptions['targets']>): WaveFeed {
    const { scheduler, ledger } = this
    const { tally } = ledger
    return {
      limit: this.options.maxFailures,
      info: this.options.info,
      counts: () => ({ answered: tally.answered, bad: tally.badCalls }),
      accepting: () => scheduler.accepting,
      stop: reason => scheduler.stop(reason),
      begin: (number, accepting) => {
        ledger.wave = number
        if (accepting) this.reached = number
      },
      pass: keep => targets(this.offerAll, keep),
      drain: () => this.drain()
    }
  }

  private async feed(): Promise<void> {
    const { targets, waves } = this.options
    try {
      if (!targets) await this.offerAll([{}])
      else if (waves) await feedWaves(waves, this.waveFeed(targets))
      else await targets(this.offerAll)
    } catch (err) {
      // The calls already made keep their record: the failure is the stop's reason.
      if (!(err instanceof Abandoned)) {
        this.scheduler.stop(`the targets could not be read on (${messageOf(err)}): no new call was started`)
      }
    }
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
    const entry: InFlight = { target, key: targetKey(target), index, sent: false, abandoned: false }
    const finished = this.options.earlier?.finishedAt(index, entry.key)
    if (finished !== undefined) return this.ledger.skipped(entry, finished)
    if (this.options.dryRun) return this.ledger.plan(entry)
    if (!this.scheduler.startNow(entry, this.make)) this.ledger.notMade(entry)
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

  private ended(entry: InFlight, end: CallEnd): void {
    const { options, scheduler, ledger } = this
    ledger.ended(entry, end)
    const counts = { answered: ledger.tally.answered, bad: ledger.tally.badCalls }
    const stop = stopAfterCall(end.status, entry.index, options.maxFailures, counts, options.bearer.latest.expiresAtMs)
    if (stop) scheduler.stop(stop)
    if (ledger.record.failure) scheduler.stop('the results file could not be written: no new call was started')
  }

  /** A call still open when the drain ended: unknown if it may have been sent, else never made. */
  private abandon(entry: InFlight): void {
    entry.abandoned = true
    this.ledger.abandoned(entry, entry.sent)
  }

  private progress(outcomes: ReadonlyMap<Outcome, number> = this.ledger.tally.outcomes): void {
    const { scheduler } = this
    this.options.info(
      progressLine({
        count: this.count,
        outcomes,
        inFlight: scheduler.inFlight,
        elapsedMs: this.now() - this.started,
        stopped: !scheduler.accepting,
        cancelled: this.cancelledAt !== undefined,
        dryRun: this.options.dryRun === true
      })
    )
  }

  private result(): RoutineResult {
    return {
      count: this.count,
      ...this.ledger.result(this.unfed),
      durationMs: this.now() - this.started,
      stopped: this.scheduler.stopped,
      waves: this.options.waves && { counts: this.options.waves.counts, reached: this.reached },
      cancelled: this.cancelledAt !== undefined
    }
  }
}
