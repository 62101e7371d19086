import { formatCount, formatDuration } from '../format.js'
import { Outcome } from '../routine/lines.js'
import { RoutineResult } from '../routine/routine.js'
import { unrecordedText } from '../routine/verdict.js'
import { cell } from './cells.js'

const OUTCOME_WORDS: readonly [Outcome, string][] = [
  ['succeeded', 'succeeded'],
  ['failed', 'failed'],
  ['unknown', 'unknown'],
  ['not-made', 'not made'],
  ['skipped', 'skipped']
]

/**
 * A routine's part of the summary, first: one line of the outcome, the counts by status, the
 * failures (50 at most, each cell cut and escaped), and where the whole record is.
 */
export function routineLines(call: string, calls: RoutineResult): string[] {
  const n = (outcome: Outcome): number => calls.outcomes.get(outcome) ?? 0
  if (n('planned') > 0 || (calls.calls === 0 && calls.planned.length > 0)) return planLines(call, calls)
  const seconds = calls.durationMs / 1000
  const rate = seconds > 0 ? (calls.calls / seconds).toFixed(0) : String(calls.calls)
  const head = calls.cancelled
    ? `Cancelled after ${formatCount(calls.calls)} of ${formatCount(calls.count)} calls, ${formatCount(n('unknown'))} outcome${n('unknown') === 1 ? '' : 's'} unknown`
    : n('failed') + n('unknown') + n('not-made') > 0
      ? `${formatCount(n('failed') + n('unknown') + n('not-made'))} of ${formatCount(calls.count)} targets not done`
      : `All ${formatCount(calls.count)} targets done`
  const counts = OUTCOME_WORDS.map(([outcome, word]) => `${formatCount(n(outcome))} ${word}`).join(', ')
  const lines = [
    `## ${cell(call)}: ${head}`,
    '',
    `**${counts}**; ${formatCount(calls.calls)} calls in ${formatDuration(seconds)} (${rate}/s).`
  ]
  if (calls.waves) lines.push('', wavesLine(calls.waves))
  if (calls.stopped && !calls.cancelled) lines.push('', `Stopped early: ${cell(calls.stopped, 400)}.`)
  if (calls.recordFailure) {
    lines.push(
      '',
      `Writing the results file failed part way: ${unrecordedText(calls)}; the counts above are what it holds.`
    )
  }
  if (calls.byStatus.size > 0) {
    lines.push('', '| status | calls |', '| --- | ---: |')
    for (const [status, count] of [...calls.byStatus].sort((a, b) => b[1] - a[1])) {
      lines.push(`| ${cell(status)} | ${formatCount(count)} |`)
    }
  }
  if (calls.failures.length > 0) {
    const more = calls.failures.length < n('failed') + n('unknown') ? ` (the first ${calls.failures.length})` : ''
    lines.push(
      '',
      `Failed or unknown${more}:`,
      '',
      '| target | status | what the service said |',
      '| --- | --- | --- |'
    )
    for (const f of calls.failures) {
      lines.push(
        `| ${cell(f.target)} | ${cell(f.outcome === 'unknown' ? `unknown, ${f.status}` : f.status)} | ${cell(f.said)} |`
      )
    }
  }
  lines.push(
    '',
    'Every target has a line in the file of the `results-file` output; keep it as an artifact, and pass it to `call-resume-from` on a re-run.',
    ''
  )
  return lines
}

/** A dry run's part: how many calls the plan holds, and the first 20 as a person reads them. */
function planLines(call: string, calls: RoutineResult): string[] {
  const planned = calls.outcomes.get('planned') ?? 0
  const skipped = calls.outcomes.get('skipped') ?? 0
  const lines = [
    `## ${cell(call)}: a plan of ${formatCount(planned)} call${planned === 1 ? '' : 's'}, none made`,
    '',
    `**${formatCount(planned)} planned, ${formatCount(skipped)} skipped** (call-dry-run: no call was made).`,
    '',
    '| planned call |',
    '| --- |',
    ...calls.planned.map(c => `| ${cell(c, 200)} |`)
  ]
  if (planned > calls.planned.length) {
    lines.push(
      '',
      `…and ${formatCount(planned - calls.planned.length)} more: every planned call has a line in the results file.`
    )
  }
  lines.push(
    '',
    'Apply exactly this plan: pass the `plan-digest` output to the apply step (README, "Plan, approve, apply").',
    ''
  )
  return lines
}

/** "In 3 waves of 1, 100 and 899 targets; the calls stopped in wave 2.": how the calls were paced. */
function wavesLine({ counts, reached }: NonNullable<RoutineResult['waves']>): string {
  if (counts.length === 1)
    return `A canary of ${formatCount(counts[0])} target${counts[0] === 1 ? '' : 's'} (call-canary).`
  const sizes = counts.map(formatCount)
  const list = `${sizes.slice(0, -1).join(', ')} and ${sizes.at(-1)}`
  const shown = counts.length > 8 ? `${sizes.slice(0, 7).join(', ')}, … and ${sizes.at(-1)}` : list
  const where = reached < counts.length ? `; the calls stopped in wave ${reached}` : ''
  return `In ${counts.length} waves of ${shown} targets (call-waves)${where}.`
}
