/** A target's outcome in a report: a routine's outcome, or `missing` (no line in any results file). */
export type ReportOutcome = 'succeeded' | 'skipped' | 'failed' | 'unknown' | 'not-made' | 'missing'

/** In the order a report counts them (its counts output and summary). */
export const REPORT_OUTCOMES: readonly ReportOutcome[] = [
  'succeeded',
  'skipped',
  'failed',
  'unknown',
  'not-made',
  'missing'
]
