import { formatCount } from '../format.js'
import { redact } from '../secrets.js'
import { counted, NOT_DONE, notDoneCount, outcomeWords } from '../routine/outcome-words.js'
import { cell } from './cells.js'
import type { MergedReport, ReportOutcome, ShardRow } from './merge.js'
import { nothingRead } from './report-verdict.js'
import { doneHeadline, failureTable } from './routine-summary.js'

const WORDS: readonly [ReportOutcome, string][] = [
  ['succeeded', 'succeeded'],
  ['skipped', 'skipped (done in an earlier attempt)'],
  ['failed', 'failed'],
  ['unknown', 'unknown'],
  ['not-made', 'not made'],
  ['missing', 'missing']
]
/** Columns shown only when some target has that outcome. */
const OPTIONAL: ReadonlySet<ReportOutcome> = new Set(['skipped', 'not-made'])
const NAMED_FILES = 10

/**
 * The job summary of a report over every shard: a headline, the counts by outcome and by status,
 * the shards (those with targets not done first, the others folded), the first failures and what
 * was not counted. Every value from a file passes through cell(); bounded by 256 shards, 50
 * failures and 10 file names, it stays far under the runner's 1 MiB.
 */
export function renderReportSummary(report: MergedReport): string {
  const n = (outcome: ReportOutcome): number => report.counts.get(outcome) ?? 0
  const notDone = notDoneCount(report.counts)
  const lines = [`## ${title(report)}: ${headline(report, notDone)}`, '']
  // The same words as the routine's summary, zeros left out.
  const files = `${counted(report.files, 'results file')} (${counted(report.lines, 'line')})`
  if (report.targets > 0) lines.push(`**${outcomeWords(report.counts)}**, from ${files}.`)
  else lines.push(`From ${files}.`)
  const nothing = nothingRead(report)
  if (nothing) lines.push('', `**No result line was read.** ${cell(nothing, 1000)}`)
  if (!report.complete) {
    lines.push(
      '',
      'Missing targets cannot be seen: this report counts only the targets that have a line in the results files. ' +
        'Pass `targets-from` and `targets-digest` (the snapshot the shards read) to account for every target.'
    )
  }
  if (report.shardsToRerun.length > 0) {
    lines.push('', `**Shards to re-run**: ${report.shardsToRerun.map(s => cell(s)).join(', ')}.`)
  }
  // One status says nothing the counts do not.
  if (report.byStatus.size > 1) {
    lines.push('', '| status | targets |', '| --- | ---: |')
    for (const [status, count] of [...report.byStatus].sort((a, b) => b[1] - a[1])) {
      lines.push(`| ${cell(status)} | ${formatCount(count)} |`)
    }
  }
  lines.push(...shardLines(report))
  lines.push(...failureLines(report, n('failed') + n('unknown')))
  if (report.missingShards.length > 0) {
    lines.push(
      '',
      `Missing targets (no line in any results file: a shard that died, was cancelled before writing, or whose artifact is absent) are in shard${report.missingShards.length === 1 ? '' : 's'} ${report.missingShards.map(s => cell(s)).join(', ')}.`
    )
  }
  lines.push(...notCounted(report))
  lines.push(
    '',
    'Every target has a line in the file of the `report-file` output: its key, outcome, status, attempt and shard.',
    ''
  )
  return redact(lines.join('\n'))
}

function title(report: MergedReport): string {
  const shards = report.shardCount ?? 1
  return shards > 1 ? `Report over ${formatCount(shards)} shards` : 'Report'
}

function headline(report: MergedReport, notDone: number): string {
  const seen = report.complete ? '' : ' seen'
  if (report.targets === 0) return report.complete ? 'the snapshot holds no target' : 'no result line was read'
  return doneHeadline(report.targets, notDone, seen)
}

/** The per-shard table: shards with a target not done in full, the others folded below. */
function shardLines(report: MergedReport): string[] {
  if (report.shards.length <= 1) return []
  const shown = WORDS.filter(
    ([o]) => (o !== 'missing' || report.complete) && (!OPTIONAL.has(o) || (report.counts.get(o) ?? 0) > 0)
  )
  const row = (r: ShardRow, columns: readonly [ReportOutcome, string][]): string => {
    let total = 0
    for (const count of r.counts.values()) total += count
    const cells = columns.map(([o]) => formatCount(r.counts.get(o) ?? 0))
    return `| ${cell(r.shard)} | ${formatCount(total)} | ${cells.join(' | ')} |`
  }
  const table = (rows: readonly ShardRow[], columns: readonly [ReportOutcome, string][]): string[] => [
    `| shard | targets | ${columns.map(([, word]) => word).join(' | ')} |`,
    `| --- | ---: |${columns.map(() => ' ---: |').join('')}`,
    ...rows.map(r => row(r, columns))
  ]
  const isBad = (r: ShardRow): boolean => notDoneCount(r.counts) > 0
  const bad = report.shards.filter(isBad)
  const good = report.shards.filter(r => !isBad(r))
  const lines = ['', '### Shards']
  if (bad.length > 0) lines.push('', ...table(bad, shown))
  if (good.length > 0) {
    const done = shown.filter(([o]) => !NOT_DONE.includes(o))
    const which = good.length === report.shards.length ? 'All' : 'The other'
    const shards = good.length === 1 ? 'shard has' : 'shards have'
    lines.push(
      '',
      `<details><summary>${which} ${formatCount(good.length)} ${shards} every target done</summary>`,
      '',
      ...table(good, done),
      '',
      '</details>'
    )
  }
  return lines
}

function failureLines(report: MergedReport, failures: number): string[] {
  if (report.failures.length === 0) return []
  const first = report.failures.length < failures ? ` (the first ${report.failures.length})` : ''
  return ['', `### Failed or unknown${first}`, '', ...failureTable(report.failures)]
}

function notCounted(report: MergedReport): string[] {
  const parts: string[] = []
  const { unreadable } = report
  if (unreadable.length > 0) {
    const more = unreadable.length > NAMED_FILES ? ` and ${formatCount(unreadable.length - NAMED_FILES)} more` : ''
    parts.push(
      `${formatCount(unreadable.length)} results file${unreadable.length === 1 ? '' : 's'} with a line that is not a result line (${unreadable
        .slice(0, NAMED_FILES)
        .map(f => cell(f))
        .join(', ')}${more})`
    )
  }
  if (report.otherCallLines > 0) parts.push(`${formatCount(report.otherCallLines)} lines of another call`)
  if (report.notInSnapshot > 0)
    parts.push(`the lines of ${formatCount(report.notInSnapshot)} targets not in the snapshot`)
  return parts.length === 0 ? [] : ['', `**Not counted** (see the warnings): ${parts.join('; ')}.`]
}
