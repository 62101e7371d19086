import { redactJson } from '../secrets.js'
import { targetLabel, targetName } from '../targets/label.js'
import { CallEnd, plannedCall, RESPONSE_OUTPUT_BYTES } from './call.js'
import { LineContext, LineFields, Outcome, resultBody, resultLine } from './lines.js'
import { ResultsRecord } from './record.js'
import { Tally } from './tally.js'
import { PlannedRow, RoutineOptions, RoutineResult } from './types.js'

const PLANNED_SHOWN = 20

/** A target the routine fed: its place in the list and its key. */
export interface Fed {
  readonly target: unknown
  readonly key: string
  readonly index: number
}

/**
 * What a routine keeps of its targets: a line each in the results file, and the counts and first
 * failures its outputs and summary give. Knows nothing of scheduling: the routine tells it what
 * became of each target.
 */
export class Ledger {
  readonly record: ResultsRecord
  readonly tally: Tally
  /** The wave being fed, on each line; 0 without waves. */
  wave = 0
  private readonly lineContext: LineContext
  private readonly planned: PlannedRow[] = []
  private response: string | undefined

  constructor(private readonly options: RoutineOptions) {
    this.record = new ResultsRecord({
      dir: options.resultsDir,
      info: options.info,
      header: options.header,
      signer: options.signer
    })
    this.tally = new Tally(options.info)
    this.lineContext = { fingerprint: options.header.call, runAttempt: options.runAttempt, shard: options.shard }
  }

  /** A target an earlier attempt finished, with the status it ended with. */
  skipped({ target, key, index }: Fed, status: number | null): void {
    this.tally.add('skipped')
    this.write({ key, index, target, outcome: 'skipped', status })
  }

  /** A target whose call will not be made: the routine stopped or was cancelled. */
  notMade({ target, key, index }: Fed): void {
    this.tally.add('not-made')
    this.write({ key, index, target, outcome: 'not-made', status: null })
  }

  /** A dry run's target: the call it would make. */
  plan({ target, key, index }: Fed): void {
    this.tally.add('planned')
    const call = plannedCall(this.options.spec, target)
    if (this.planned.length < PLANNED_SHOWN) {
      const name = targetName(target, this.options.nameField)
      this.planned.push({ index, key, name, call: `${call.method} ${call.path}` })
    }
    this.write({ key, index, target, outcome: 'planned', status: null, body: call.fields })
  }

  /** A call that ended: counted, logged when it failed, and its line with the service's body. */
  ended({ target, key, index }: Fed, end: CallEnd): void {
    const detail = end.error ?? (end.text ? end.text : undefined)
    this.tally.call(end.outcome, end.status, () => this.who(target, key, index), index, detail)
    const { outcome, status, error, attempts, ms, truncated } = end
    const body = resultBody(end.text, this.record.keepsBodies, truncated)
    const name = outcome === 'succeeded' ? undefined : targetName(target, this.options.nameField)
    this.write({ key, index, target, outcome, status, name, error, attempts, ms, body })
    const whole = end.status !== null && !truncated && Buffer.byteLength(end.text) < RESPONSE_OUTPUT_BYTES
    // A JSON answer stays JSON once redacted: `fromJSON` of the response output must not fail.
    if (!this.options.targets && whole) this.response = redactJson(end.text)
  }

  /** A call still open when the drain ended: unknown if it may have been sent, else never made. */
  abandoned({ target, key, index }: Fed, sent: boolean): void {
    const outcome = sent ? 'unknown' : 'not-made'
    const error = sent ? 'cancelled in flight: no answer before the step stopped' : 'cancelled before it was sent'
    this.tally.call(outcome, null, () => this.who(target, key, index), index, error)
    const name = sent ? targetName(target, this.options.nameField) : undefined
    this.write({ key, index, target, outcome, status: null, name, error })
  }

  /** The record's part of the routine's result; `unfed` targets were never fed, and have no line. */
  result(
    unfed: number
  ): Pick<
    RoutineResult,
    | 'calls'
    | 'outcomes'
    | 'byStatus'
    | 'failedByStatus'
    | 'failures'
    | 'resultsFile'
    | 'unrecorded'
    | 'unrecordedOutcomes'
    | 'recordFailure'
    | 'response'
    | 'planned'
  > {
    const { tally, record } = this
    return {
      calls: tally.answered,
      outcomes: record.failure ? withUnfed(record.written, unfed) : tally.outcomes,
      byStatus: tally.byStatus,
      failedByStatus: tally.failedByStatus,
      failures: tally.failures,
      resultsFile: record.path,
      unrecorded: record.unrecorded,
      unrecordedOutcomes: record.lost,
      recordFailure: record.failure,
      response: this.response,
      planned: this.planned
    }
  }

  /** How a failure is named: in the log by its label, in the summary by its key and name. */
  private who(target: unknown, key: string, index: number): { label: string; key: string; name?: string } {
    const name = targetName(target, this.options.nameField)
    return { label: targetLabel(target, index), key, ...(name === undefined ? {} : { name }) }
  }

  private write(fields: LineFields): void {
    this.record.add(
      resultLine(this.lineContext, this.wave > 0 ? { ...fields, wave: this.wave } : fields),
      fields.outcome
    )
  }
}

/** The outcomes a failed results file holds, and the targets never fed: the outputs say no more. */
function withUnfed(written: ReadonlyMap<Outcome, number>, unfed: number): Map<Outcome, number> {
  const outcomes = new Map(written)
  if (unfed > 0) outcomes.set('not-made', (outcomes.get('not-made') ?? 0) + unfed)
  return outcomes
}
