import { formatCount } from '../format.js'
import { named } from './merge-files.js'
import type { MergedReport, ReportOutcome } from './merge.js'
import { shardsToRerun } from './merge.js'

const NAMED_SHARDS = 32

/**
 * The report step's one error, or undefined when it passes. A gate does not pass on nothing: it
 * fails when no result line was read (unless the snapshot holds no target), when a results file
 * could not be read, and when a target's outcome is in `failOn`; the message says each that holds.
 */
export function reportError(report: MergedReport, failOn: ReadonlySet<ReportOutcome>): Error | undefined {
  // Without a shard count there is no shard to name: nothingRead() says what is missing.
  const outcomes = report.shardCount === undefined ? undefined : outcomesNotDone(report, failOn)
  const parts = [nothingRead(report), outcomes, unreadable(report)].filter(p => p !== undefined)
  return parts.length === 0 ? undefined : new Error(parts.join(' '))
}

/** Why no result line was read, when none was and some was expected; the summary shows it too. */
export function nothingRead(report: MergedReport): string | undefined {
  if (report.countedLines > 0 || (report.complete && report.targets === 0)) return undefined
  const why = whyNothing(report)
  if (!report.complete || report.shardCount !== undefined) return why
  return (
    `${why} All ${formatCount(report.targets)} targets of targets-from are missing, in no shard: ` +
    'without a result line nothing says how many shards the run had, so shards-to-rerun is empty.'
  )
}

function whyNothing(report: MergedReport): string {
  const { from } = report
  const check =
    "Check the download step before this one: its path should be that folder, and its pattern should match the shards' results artifacts (results-* in the README)."
  if (!report.found) return `Input report-from: ${from} does not exist, so no result line was read. ${check}`
  if (report.files === 0) {
    return `Input report-from: ${from} holds no results file (*.jsonl, in it or one level down), so no result line was read. ${check}`
  }
  const files = `${formatCount(report.files)} results file${report.files === 1 ? '' : 's'} in ${from} (report-from)`
  const what =
    report.files === report.unreadable.length
      ? 'none of them could be read'
      : report.otherCallLines > 0
        ? `their ${formatCount(report.otherCallLines)} lines are of another call: check the call, call-body and base-url inputs`
        : report.lines > 0
          ? 'they hold only the planned lines of a dry run'
          : 'they hold no line'
  return `No result line${report.fingerprint ? ` of call ${report.fingerprint}` : ''} was read from the ${files}: ${what}.`
}

/** The counts, and the shards to re-run, when a target's outcome is in `failOn`. */
function outcomesNotDone(report: MergedReport, failOn: ReadonlySet<ReportOutcome>): string | undefined {
  const n = (outcome: ReportOutcome): number => report.counts.get(outcome) ?? 0
  if (![...failOn].some(outcome => n(outcome) > 0)) return undefined
  const shards = shardsToRerun(report.shards, failOn)
  const more = shards.length - NAMED_SHARDS
  const list = shards.slice(0, NAMED_SHARDS).join(', ') + (more > 0 ? ` and ${more} more` : '')
  const targets = `${formatCount(report.targets)} target${report.targets === 1 ? '' : 's'}`
  const of = report.complete
    ? `${formatCount(n('missing'))} missing of ${targets}`
    : `of ${targets} seen (without targets-from, missing targets cannot be seen)`
  return (
    `The run did not reach every target: ${formatCount(n('failed'))} failed, ${formatCount(n('unknown'))} unknown, ` +
    `${formatCount(n('not-made'))} not made, ${of}; shards to re-run: ${list}. ` +
    'Re-run those shards with call-resume-from given their results files, so that only the targets not done are called; ' +
    'the shards-to-rerun output lists them, and the report-file output every target with its outcome.'
  )
}

/** The results files that could not be read: a gate cannot pass over a record it could not read. */
function unreadable(report: MergedReport): string | undefined {
  const { length } = report.unreadable
  if (length === 0) return undefined
  return (
    `${formatCount(length)} results file${length === 1 ? '' : 's'} could not be read, so none of ${length === 1 ? 'its' : 'their'} lines were counted: ` +
    `${named(report.unreadable)} (the warnings say why). If ${length === 1 ? 'it is' : 'they are'} not the shards' results files, narrow the download step's pattern; ` +
    'else delete the artifact that holds a damaged file, re-run its shard, then this report.'
  )
}
