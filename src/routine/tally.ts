import { statusText } from '../http/client.js'
import { Outcome } from './lines.js'
import { serviceSaid } from './said.js'

export interface Failure {
  /** The target's key: how both summaries and the step's error name it. */
  readonly key: string
  /** What a person calls it (targetName), when it has such a field. */
  readonly name?: string
  /** "HTTP 500", "no response". */
  readonly status: string
  readonly outcome: 'failed' | 'unknown'
  readonly said: string
}

const LOGGED_FAILURES = 20
const KEPT_FAILURES = 50

/** The routine's counts, by outcome and by status, and the first failures: what outputs and the summary say. */
export class Tally {
  readonly outcomes = new Map<Outcome, number>()
  /** "HTTP 200", "HTTP 500", "no response", …: how many calls made ended so. */
  readonly byStatus = new Map<string, number>()
  /** The same, for the calls that failed. */
  readonly failedByStatus = new Map<string, number>()
  readonly failures: Failure[] = []
  private bad = 0

  constructor(private readonly info: (message: string) => void) {}

  /** Every line so far, of any outcome. */
  get total(): number {
    let n = 0
    for (const count of this.outcomes.values()) n += count
    return n
  }

  count(outcome: Outcome): number {
    return this.outcomes.get(outcome) ?? 0
  }

  /** Calls that failed or ended unknown: what call-max-failures counts. */
  get badCalls(): number {
    return this.bad
  }

  /** Calls that ended: succeeded, failed or unknown. */
  get answered(): number {
    return this.count('succeeded') + this.count('failed') + this.count('unknown')
  }

  /** Lines of any outcome, or targets without a line (never fed after a cancellation). */
  add(outcome: Outcome, n = 1): void {
    this.outcomes.set(outcome, this.count(outcome) + n)
  }

  /**
   * A call that was made, with how it ended; a failure is kept for the summary (50) and logged (20,
   * then one line saying the rest are only counted, in the results file).
   */
  call(
    outcome: Outcome,
    status: number | null,
    /** The target as log lines name it, and its key and name; a function, as only failures need it. */
    who: () => { readonly label: string; readonly key: string; readonly name?: string },
    index: number,
    said: string | undefined
  ): void {
    this.add(outcome)
    const text = status === null ? 'no response' : `HTTP ${status}`
    this.byStatus.set(text, (this.byStatus.get(text) ?? 0) + 1)
    if (outcome !== 'failed' && outcome !== 'unknown') return
    this.bad++
    if (outcome === 'failed') this.failedByStatus.set(text, (this.failedByStatus.get(text) ?? 0) + 1)
    // Past the 50 kept (and so the 20 logged) a failure is only counted: it is not even named.
    if (this.failures.length >= KEPT_FAILURES) return
    const { label, key, name } = who()
    const short = said === undefined ? '' : serviceSaid(said)
    this.failures.push({ key, ...(name === undefined ? {} : { name }), status: text, outcome, said: short })
    if (this.bad <= LOGGED_FAILURES) {
      const how = status === null ? 'no response' : `HTTP ${statusText(status)}`
      const verb = outcome === 'unknown' ? 'has no known outcome' : 'failed'
      this.info(`Call #${index + 1} for ${label} ${verb}: ${how}${short ? ` (${short})` : ''}`)
    } else if (this.bad === LOGGED_FAILURES + 1) {
      this.info('More calls failed: from here on they are counted, not listed (the results file lists every one)')
    }
  }
}
