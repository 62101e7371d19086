import { formatCount, formatElapsed } from '../format.js'
import { Outcome } from './lines.js'
import { counted, outcomeWords } from './outcome-words.js'

export interface ProgressFacts {
  /** Targets the routine has. */
  readonly count: number
  /** The lines so far by outcome: the same tally the step's error and the summary are made from. */
  readonly outcomes: ReadonlyMap<Outcome, number>
  /** Calls in flight, retries waiting their back-off among them. */
  readonly inFlight: number
  readonly elapsedMs: number
  /** Set once no new call starts: the rest will not be made. */
  readonly stopped: boolean
  readonly cancelled: boolean
  /** A dry run: every line is planned or skipped, and no call is made. */
  readonly dryRun: boolean
}

/**
 * The progress line: "Calls: 412 of 1,000 targets (41 %): 409 succeeded, 3 failed; 16 in flight,
 * 120/s, about 5 s left". The counts are outcomeWords(), as in the step's error and the summary;
 * after a stop or a cancellation it says how many calls were made and how many will not be.
 */
export function progressLine(facts: ProgressFacts): string {
  const { count, outcomes, inFlight, elapsedMs } = facts
  let done = 0
  for (const n of outcomes.values()) done += n
  const percent = count > 0 ? Math.floor((done / count) * 100) : 100
  const words = done > 0 ? `: ${outcomeWords(outcomes)}` : ''
  const head = `${formatCount(done)} of ${counted(count, 'target')} (${percent} %)${words}`
  if (facts.dryRun) return `Planned: ${head}; no call made`
  const ended = (outcomes.get('succeeded') ?? 0) + (outcomes.get('failed') ?? 0) + (outcomes.get('unknown') ?? 0)
  const seconds = elapsedMs / 1000
  const rate = seconds > 0 ? ended / seconds : 0
  const parts: string[] = []
  if (inFlight > 0) parts.push(`${formatCount(inFlight)} in flight`)
  if (rate > 0) parts.push(`${+rate.toFixed(rate < 10 ? 1 : 0)}/s`)
  const pending = count - done - inFlight
  let tail = ''
  if (facts.stopped || facts.cancelled) {
    const how = facts.cancelled ? 'cancelled' : 'stopped'
    tail =
      pending > 0
        ? `; ${how}: ${formatCount(pending)} more will not be made`
        : `; ${how} after ${counted(ended, 'call')}`
  } else if (rate > 0 && done < count) {
    parts.push(`about ${formatElapsed(((count - done) / rate) * 1000)} left`)
  }
  return `Calls: ${head}${parts.length > 0 ? `; ${parts.join(', ')}` : ''}${tail}`
}
