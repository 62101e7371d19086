import { formatCount } from '../format.js'
import { excerpt } from '../secrets.js'
import { RoutineResult } from './routine.js'

/**
 * The step's one error when a routine did not do all it should: counts of what failed, what is not
 * known and what was never made, why it stopped, and where the record is. Undefined when all is well.
 */
export function routineError(call: string, result: RoutineResult): Error | undefined {
  const n = (outcome: 'failed' | 'unknown' | 'not-made') => result.outcomes.get(outcome) ?? 0
  const failed = n('failed')
  const unknown = n('unknown')
  const notMade = n('not-made')
  if (failed + unknown + notMade === 0 && !result.stopped && !result.recordFailure && !result.cancelled)
    return undefined
  const parts = [`${formatCount(failed)} of ${formatCount(result.calls)} calls failed`]
  const counts = [...result.failedByStatus].map(([s, count]) => `${s}: ${formatCount(count)}`)
  if (counts.length > 0) parts[0] += ` (${counts.join(', ')})`
  if (unknown > 0) parts.push(`${formatCount(unknown)} outcome${unknown === 1 ? '' : 's'} unknown`)
  parts.push(`${formatCount(notMade)} never made`)
  const first = result.failures
    .slice(0, 3)
    .map(f => `${f.target} (${f.status})`)
    .join(', ')
  const head = result.cancelled
    ? `The step was cancelled after ${formatCount(result.calls)} of ${formatCount(result.count)} calls to ${excerpt(call, 100)}`
    : `Failed to call ${excerpt(call, 100)}`
  const record = result.recordFailure
    ? ` ${result.recordFailure.message} ${unrecordedText(result)}: the outputs count only what it holds.`
    : ''
  return new Error(
    `${head}: ${parts.join(', ')}${first ? `; first: ${first}` : ''}${result.stopped && !result.cancelled ? `; ${result.stopped}` : ''}.` +
      `${record} The job summary and the results-file output list every call; a re-run with call-resume-from makes only what is left.`
  )
}

/** "18 outcomes are not in the results file (12 succeeded, 6 failed)": what a failed file lacks. */
export function unrecordedText(result: Pick<RoutineResult, 'unrecorded' | 'unrecordedOutcomes'>): string {
  const n = result.unrecorded
  const parts = [...result.unrecordedOutcomes]
    .filter(([, count]) => count > 0)
    .map(([outcome, count]) => `${formatCount(count)} ${outcome}`)
  const which = parts.length > 0 ? ` (${parts.join(', ')})` : ''
  return `${formatCount(n)} outcome${n === 1 ? ' is' : 's are'} not in the results file${which}`
}
