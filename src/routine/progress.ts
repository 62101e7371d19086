import { formatCount, formatDuration } from '../format.js'

export interface ProgressFacts {
  /** Targets the routine has, and how many of them have a line so far (ended, skipped, not made). */
  readonly count: number
  readonly done: number
  /** Calls that ended (succeeded, failed or unknown): the rate counts only these. */
  readonly ended: number
  readonly failed: number
  /** Calls in flight, retries waiting their back-off among them. */
  readonly inFlight: number
  readonly elapsedMs: number
  /** Set once no new call starts: the rest will not be made. */
  readonly stopped: boolean
}

/**
 * The progress line: "Calls: 412 of 1,000 (41 %), 3 failed, 16 in flight, 120/s, about 5 s left".
 * The time left counts the calls in flight as not done; after a stop it says what will not be made.
 */
export function progressLine(facts: ProgressFacts): string {
  const { count, done, ended, failed, inFlight, elapsedMs } = facts
  const seconds = elapsedMs / 1000
  const rate = seconds > 0 ? ended / seconds : 0
  const percent = count > 0 ? Math.floor((done / count) * 100) : 100
  const flying = inFlight > 0 ? `, ${formatCount(inFlight)} in flight` : ''
  let left = ''
  if (facts.stopped) {
    const notMade = count - done - inFlight
    if (notMade > 0) left = `; stopped: ${formatCount(notMade)} will not be made`
  } else if (rate > 0 && done < count) {
    left = `, about ${formatDuration((count - done) / rate)} left`
  }
  return `Calls: ${formatCount(done)} of ${formatCount(count)} (${percent} %), ${formatCount(failed)} failed${flying}, ${rate.toFixed(0)}/s${left}`
}
