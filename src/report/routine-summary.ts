import { formatCount, formatElapsed } from '../format.js'
import { Outcome } from '../routine/lines.js'
import { counted, notDoneCount, outcomeWords } from '../routine/outcome-words.js'
import { SAID_CHARS } from '../routine/said.js'
import { RoutineResult } from '../routine/routine.js'
import { unrecordedText } from '../routine/verdict.js'
import { cell } from './cells.js'
import type { RoutineHead } from './summary.js'

/** The routine's part of renderSummary (summary.ts), its plan's digest beside a dry run's. */
export function routineHead(call: string, calls: RoutineResult, digest?: string): RoutineHead {
  return targets => routineLines(call, calls, { digest, targets })
}

/**
 * A routine's part of the summary, first: one line of the outcome (outcomeWords(), as the progress
 * line and the step's error give it), the counts by status when there are several, the failures
 * (50 at most, each cell cut and escaped), and where the whole record is.
 */
export function routineLines(call: string, calls: RoutineResult, plan?: PlanContext): string[] {
  const n = (outcome: Outcome): number => calls.outcomes.get(outcome) ?? 0
  if (n('planned') > 0 || (calls.calls === 0 && calls.planned.length > 0)) return planLines(call, calls, plan)
  const notDone = notDoneCount(calls.outcomes)
  const head = `${calls.cancelled ? 'cancelled, ' : ''}${doneHeadline(calls.count, notDone)}`
  const lines = [`## ${cell(call)}: ${head}`, '', `**${outcomeWords(calls.outcomes)}**; ${callsText(calls)}.`]
  if (calls.waves) lines.push('', wavesLine(calls.waves))
  if (calls.stopped && !calls.cancelled) lines.push('', `Stopped early: ${cell(calls.stopped, 400)}.`)
  if (calls.recordFailure) {
    lines.push(
      '',
      `Writing the results file failed part way: ${unrecordedText(calls)}; the counts above are what it holds.`
    )
  }
  // One status says nothing the counts do not.
  if (calls.byStatus.size > 1) {
    lines.push('', '| status | calls |', '| --- | ---: |')
    for (const [status, count] of [...calls.byStatus].sort((a, b) => b[1] - a[1])) {
      lines.push(`| ${cell(status)} | ${formatCount(count)} |`)
    }
  }
  if (calls.failures.length > 0) {
    const more = calls.failures.length < n('failed') + n('unknown') ? ` (the first ${calls.failures.length})` : ''
    lines.push('', `Failed or unknown${more}:`, '', ...failureTable(calls.failures))
  }
  lines.push(
    '',
    notDone > 0
      ? 'Every target has a line in the file of the `results-file` output; keep it as an artifact, and pass it to `call-resume-from` on a re-run: it makes only the calls not done.'
      : 'Every target has a line in the file of the `results-file` output.',
    ''
  )
  return lines
}

/** "all 500 targets done", "12 of 500 targets not done": the headline of both summaries. */
export function doneHeadline(count: number, notDone: number, seen = ''): string {
  if (notDone === 0) return count === 1 ? `the 1 target${seen} done` : `all ${formatCount(count)} targets${seen} done`
  return `${formatCount(notDone)} of ${formatCount(count)} target${count === 1 ? '' : 's'}${seen} not done`
}

/** "491 calls in 4.2 s (117/s)", "no call made". */
function callsText(calls: RoutineResult): string {
  if (calls.calls === 0) return 'no call made'
  const rate =
    calls.durationMs >= 1000 ? ` (${formatCount(Math.round((calls.calls / calls.durationMs) * 1000))}/s)` : ''
  return `${counted(calls.calls, 'call')} in ${formatElapsed(calls.durationMs)}${rate}`
}

/** What a failure table needs of a failure: the routine's and the report's have it. */
export interface FailureRow {
  readonly key: string
  readonly name?: string
  readonly status: string
  readonly outcome: string
  readonly said: string
}

/** The failures by key, with a name column when one has a name: the same table in both summaries. */
export function failureTable(failures: readonly FailureRow[]): string[] {
  const named = failures.some(f => f.name !== undefined)
  const header = ['target', ...(named ? ['name'] : []), 'status', 'what the service said']
  const lines = [`| ${header.join(' | ')} |`, `|${header.map(() => ' --- |').join('')}`]
  for (const f of failures) {
    const status = f.outcome === 'unknown' ? `unknown, ${f.status}` : f.status
    const cells = [cell(f.key), ...(named ? [cell(f.name ?? '')] : []), cell(status), cell(f.said, SAID_CHARS + 1)]
    lines.push(`| ${cells.join(' | ')} |`)
  }
  return lines
}

/** What a plan's summary says beside its calls: its digest, and how its targets were chosen. */
export interface PlanContext {
  readonly digest?: string
  /** "40 of 500 targets selected by `status == "retired"`; shard 1 of 2". */
  readonly targets?: string
}

/**
 * A dry run's part, for the person who approves it: how many calls, how the targets were chosen,
 * the digest the apply step is held to, and the first 20 calls with the target each is for.
 */
function planLines(call: string, calls: RoutineResult, plan: PlanContext = {}): string[] {
  const planned = calls.outcomes.get('planned') ?? 0
  const skipped = calls.outcomes.get('skipped') ?? 0
  const skips = skipped > 0 ? `, ${formatCount(skipped)} skipped (done in an earlier attempt, call-resume-from)` : ''
  const lines = [
    `## ${cell(call)}: a plan of ${formatCount(planned)} call${planned === 1 ? '' : 's'}, none made`,
    '',
    `**${formatCount(planned)} planned**${skips}.${plan.targets ? ` Targets: ${plan.targets}.` : ''}`
  ]
  if (plan.digest) {
    lines.push(
      '',
      `**Plan digest** \`${plan.digest}\`: the apply step makes no call unless its own calls are exactly these (README, "Plan, approve, apply").`
    )
  }
  const named = calls.planned.some(row => row.name !== undefined)
  lines.push(
    '',
    named ? '| # | target | name | planned call |' : '| # | target | planned call |',
    named ? '| ---: | --- | --- | --- |' : '| ---: | --- | --- |',
    ...calls.planned.map(row => {
      const cells = [
        formatCount(row.index + 1),
        cell(row.key),
        ...(named ? [cell(row.name ?? '')] : []),
        cell(row.call, 200)
      ]
      return `| ${cells.join(' | ')} |`
    })
  )
  if (planned > calls.planned.length) {
    lines.push(
      '',
      `…and ${formatCount(planned - calls.planned.length)} more: the results file holds every planned call, and the plan job uploads it for reviewers to download.`
    )
  }
  lines.push('')
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
