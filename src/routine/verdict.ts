import { formatCount } from '../format.js'
import { excerpt } from '../secrets.js'
import { counted, notDoneCount, outcomeWords } from './outcome-words.js'
import { RoutineResult } from './routine.js'

/**
 * The step's one error when a routine did not do all it should: counts of what failed, what is not
 * known and what was never made, why it stopped, and where the record is. Undefined when all is well.
 */
export function routineError(call: string, result: RoutineResult): Error | undefined {
  if (notDoneCount(result.outcomes) === 0 && !result.stopped && !result.recordFailure && !result.cancelled)
    return undefined
  // The counts are outcomeWords(), as the last progress line and the summary give them.
  const words = outcomeWords(result.outcomes, result.failedByStatus)
  const first = result.failures
    .slice(0, 3)
    .map(f => `${f.key} (${f.status})`)
    .join(', ')
  const targets = result.count === 1 ? '1 target' : `${formatCount(result.count)} targets`
  const head = result.cancelled
    ? `The step was cancelled after ${counted(result.calls, 'call')} to ${excerpt(call, 100)}, of ${targets}`
    : `Failed to call ${excerpt(call, 100)} for ${targets}`
  const record = result.recordFailure
    ? ` ${result.recordFailure.message} ${unrecordedText(result)}: the outputs count only what it holds.`
    : ''
  return new Error(
    `${head}: ${words}${first ? `; first: ${first}` : ''}${result.stopped && !result.cancelled ? `; ${result.stopped}` : ''}.` +
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
