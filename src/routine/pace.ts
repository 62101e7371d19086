import { formatCount } from '../format.js'
import { afterWave, FailureLimit } from './stop-rule.js'
import { WavePlan } from './waves.js'

/** What feeding in waves needs of a routine as it runs. */
export interface WaveFeed {
  readonly limit: FailureLimit
  readonly info: (message: string) => void
  /** The calls answered so far, and how many went bad. */
  counts(): { readonly answered: number; readonly bad: number }
  /** Whether new calls may start: not stopped, not cancelled. */
  accepting(): boolean
  stop(reason: string): void
  /** A wave begins: its number, and whether its calls may start. */
  begin(number: number, accepting: boolean): void
  /** Feeds the targets at the places `keep` keeps. */
  pass(keep: (place: number) => boolean): Promise<void>
  /** Waits for every call in flight (or a cancellation's grace). */
  drain(): Promise<void>
}

/**
 * Feeds wave after wave: every call of a wave is answered (or ends unknown) before the stop rule
 * is checked and the next starts. After a stop, the later waves' targets are still fed, and get
 * not-made lines.
 */
export async function feedWaves(plan: WavePlan, feed: WaveFeed): Promise<void> {
  const of = plan.counts.length
  for (let number = 1; number <= of; number++) {
    const before = feed.counts()
    const accepting = feed.accepting()
    feed.begin(number, accepting)
    if (accepting) feed.info(`Wave ${number} of ${of}: ${formatCount(plan.counts[number - 1])} targets`)
    await feed.pass(place => plan.waveOf[place] === number)
    await feed.drain()
    if (!feed.accepting()) continue
    const total = feed.counts()
    const wave = { number, of, answered: total.answered - before.answered, bad: total.bad - before.bad }
    const reason = afterWave(feed.limit, total, wave)
    if (reason) feed.stop(`stopped ${reason}: no new call was started`)
  }
}
