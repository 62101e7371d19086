import { formatCount } from '../format.js'
import { keyHash } from '../targets/key-table.js'
import { targetKey } from '../targets/key.js'
import { MAX_SHARDS } from '../targets/shards.js'
import { Selection } from '../targets/select.js'
import { readSnapshot, SnapshotError } from '../targets/snapshot.js'
import { Expectation } from '../routine/evidence.js'
import { KeyHash } from '../targets/key-table.js'
import { readFailures, ReportFailure } from './merge-failures.js'
import { countLines, eachWinningLine, fileOf, MergeLog } from './merge-files.js'
import { surveyResults } from './merge-survey.js'
import { ReportOutcome, REPORT_OUTCOMES, Winner, WinnerTable } from './merge-table.js'
import { ReportTally, ShardRow } from './merge-tally.js'
import { ReportFile } from './report-file.js'

export type { ReportOutcome, ReportFailure, ShardRow }
export { REPORT_OUTCOMES }

export interface MergeOptions extends MergeLog {
  /** The report-from input: a results file, or a folder of them (and one level down). */
  readonly from: string
  /** The call's fingerprint when the step has a call; else the one most lines have. */
  readonly fingerprint?: string
  /** The targets file, to account for every target of it. */
  readonly snapshot?: string
  /** When given, the snapshot read here must have this digest ("sha256:…"), or the merge throws. */
  readonly snapshotDigest?: string
  /** The shards' targets-where: only the snapshot's targets it keeps are accounted for. */
  readonly select?: Selection
  /** N, to place the targets without a line; else the N most lines name; else 1. */
  readonly shardCount?: number
  /** The outcomes whose shards are to be re-run; DEFAULT_FAIL_ON when not given. */
  readonly failOn?: ReadonlySet<ReportOutcome>
  /** RUNNER_TEMP: where the report file goes. */
  readonly dir: string
  /** What a results file must be to count: this run, no later attempt, the snapshot, signed. */
  readonly expected?: Expectation
}

export interface MergedReport {
  /** Targets accounted for: the snapshot's distinct keys, or the distinct keys of the lines. */
  readonly targets: number
  readonly counts: ReadonlyMap<ReportOutcome, number>
  /** "HTTP 200", "no response": the final status of every target whose call was made. */
  readonly byStatus: ReadonlyMap<string, number>
  /**
   * N: the shards targets are placed in, as the shard input places them. Undefined when no result
   * line was read: nothing then says how many shards the run had (a snapshot does not).
   */
  readonly shardCount?: number
  /** The shards that hold a target, in order. */
  readonly shards: readonly ShardRow[]
  /** The first 50 failed or unknown targets. */
  readonly failures: readonly ReportFailure[]
  readonly missingShards: readonly string[]
  /** The shards holding a target whose outcome is in failOn. */
  readonly shardsToRerun: readonly string[]
  readonly reportFile: string
  /** True with a snapshot; without one, targets that have no line cannot be seen. */
  readonly complete: boolean
  readonly fingerprint?: string
  /** The report-from input, and whether it exists. */
  readonly from: string
  readonly found: boolean
  /** Results files found, the result lines in those that parse, and the lines of the call counted. */
  readonly files: number
  readonly lines: number
  readonly countedLines: number
  /** Files not counted, for a line that is not a result line. */
  readonly unreadable: readonly string[]
  /** Lines not counted: of another call, or of a target the snapshot does not list. */
  readonly otherCallLines: number
  readonly notInSnapshot: number
  /** Files, or lines, not counted as evidence; and whether one of them looks forged. */
  readonly refused?: string
  readonly forged: boolean
  /** Whether a file was signed, but no record-key was given to check it. */
  readonly signedUnchecked?: boolean
}

/** What fails a report step unless report-fail-on says otherwise. */
export const DEFAULT_FAIL_ON: ReadonlySet<ReportOutcome> = new Set(['failed', 'unknown', 'not-made', 'missing'])

/**
 * One answer for a run of many shards: every results file read (a file counted whole or not at
 * all), the newest line winning for each target key, and, with a snapshot, every target of it
 * accounted for. Memory holds a table of key hashes, not keys or lines. The files are read once
 * (twice when the call chosen is not the first one read) and the snapshot once.
 */
export async function mergeResults(options: MergeOptions): Promise<MergedReport> {
  const given = options.shardCount
  if (given !== undefined && !(Number.isInteger(given) && given >= 1 && given <= MAX_SHARDS)) {
    throw new Error(`A report's shard count must be 1 to ${MAX_SHARDS}, not ${given}`)
  }
  const { expected } = options
  const table = new WinnerTable()
  const survey = surveyResults(options.from, options.fingerprint, options, expected, table)
  const { readable, fingerprint } = survey
  if (!survey.counted) table.clear()
  const counted = survey.counted ?? countLines(readable, fingerprint, table, options, expected)
  // Lines that name no shard are of a routine without shards: one shard, 1/1.
  const shardCount = given ?? (counted.counted > 0 ? (survey.shardCount ?? 1) : undefined)
  const tally = new ReportTally(shardCount)
  const file = new ReportFile(options.dir)
  let notInSnapshot = 0
  try {
    if (options.snapshot) notInSnapshot = await reportSnapshot(options, table, tally, file)
    else {
      const add = (key: string, hash: KeyHash, winner: Winner): void => file.add(tally.add(key, hash, winner))
      eachWinningLine(readable, fingerprint, table, add, expected)
    }
    file.close()
  } catch (err) {
    file.discard()
    throw err
  }
  const failures =
    tally.failures.length > 0 && fingerprint !== undefined
      ? readFailures(
          tally.failures.map(f => ({ ...f, file: fileOf(readable, counted.starts, f.seq) })),
          fingerprint
        )
      : []
  const shards = tally.shards()
  return {
    targets: tally.targets,
    counts: tally.counts,
    byStatus: tally.byStatus,
    shardCount,
    shards,
    failures,
    missingShards: shardsToRerun(shards, new Set(['missing'])),
    shardsToRerun: shardsToRerun(shards, options.failOn ?? DEFAULT_FAIL_ON),
    reportFile: file.path,
    complete: Boolean(options.snapshot),
    fingerprint,
    from: options.from,
    found: survey.found,
    files: survey.files,
    lines: survey.lines,
    countedLines: counted.counted,
    unreadable: survey.unreadable,
    otherCallLines: counted.otherCall,
    notInSnapshot,
    refused: survey.refusals.message('report-from', 'their targets count as missing where no other line names them'),
    forged: survey.refusals.forged,
    signedUnchecked: survey.signedUnchecked
  }
}

/** Streams the snapshot: one report line per target. Returns how many keys with lines it lacks. */
async function reportSnapshot(
  options: MergeOptions,
  table: WinnerTable,
  tally: ReportTally,
  file: ReportFile
): Promise<number> {
  const path = options.snapshot as string
  const withLines = table.keys
  let listedWithLines = 0
  let duplicates = 0
  let index = 0
  const read = await readSnapshot(path, targets => {
    for (const target of targets) {
      if (options.select && !options.select.selects(target, index++)) continue
      const key = targetKey(target)
      const hash = keyHash(key)
      const winner = table.list(hash)
      if (!winner) {
        duplicates++
        continue
      }
      if (winner.seq !== 0) listedWithLines++
      file.add(tally.add(key, hash, winner))
    }
  })
  if (options.snapshotDigest !== undefined && read.digest !== options.snapshotDigest) {
    throw new SnapshotError(
      `${path} has digest ${read.digest}, not ${options.snapshotDigest} (targets-digest): it changed while it was read`
    )
  }
  if (duplicates > 0) {
    options.info(
      `${formatCount(duplicates)} target${duplicates === 1 ? '' : 's'} of ${path} repeat${duplicates === 1 ? 's' : ''} an earlier target's key: each key is reported once`
    )
  }
  const notListed = withLines - listedWithLines
  if (notListed > 0) {
    options.warning(
      `${formatCount(notListed)} target${notListed === 1 ? ' has' : 's have'} result lines but ${notListed === 1 ? 'is' : 'are'} not in ${path} (targets-from), and ${notListed === 1 ? 'is' : 'are'} not counted: were the shards run over another snapshot?`
    )
  }
  return notListed
}

/** The shards holding a target whose outcome is in `outcomes`, in order. */
export function shardsToRerun(shards: readonly ShardRow[], outcomes: ReadonlySet<ReportOutcome>): string[] {
  return shards.filter(row => [...outcomes].some(o => (row.counts.get(o) ?? 0) > 0)).map(row => row.shard)
}
