import { statSync } from 'node:fs'
import { messageOf } from '../errors.js'
import { formatCount, logSafe, quoted } from '../format.js'
import { readResultFile, resultFiles, ResultFileError } from '../routine/result-files.js'
import { Expectation } from '../routine/evidence.js'
import { RecordHeader } from '../routine/record-format.js'
import { Refusals } from '../routine/refusals.js'
import { ResultFacts } from '../routine/result-line.js'
import { parseShard } from '../targets/shards.js'
import { CallLines, LinesCounted, MergeLog, named } from './merge-files.js'
import { WinnerTable } from './merge-table.js'

/** The results files, each read through once: a file is counted whole or not at all. */
export interface ResultsSurvey {
  /** Whether report-from exists. */
  readonly found: boolean
  /** Results files found. */
  readonly files: number
  readonly readable: readonly string[]
  /** Files with a line that is not a result line, or that cannot be read: none of their lines count. */
  readonly unreadable: readonly string[]
  /** Result lines in the readable files. */
  readonly lines: number
  /** The call given, else the one most lines are of; undefined without lines. */
  readonly fingerprint?: string
  /** The number of shards most lines name, undefined when none names one. */
  readonly shardCount?: number
  /** Files, or lines, not counted as evidence: of another run or snapshot, unsigned, altered… */
  readonly refusals: Refusals
  /** Whether a file was signed though no record-key was given to check it. */
  readonly signedUnchecked: boolean
  /**
   * The lines of the call counted into the table given, as they were read; undefined when they are
   * to be counted again (countLines): the call chosen is not the first one read, or a file found
   * unreadable had lines counted.
   */
  readonly counted?: LinesCounted
}

/** Distinct calls kept per file: past that, a file is not one routine's record anyway. */
const MAX_CALLS = 64

/**
 * Reads every file through once. With a table, the lines of the call given (else of the first
 * call read, which is most often the only one) are counted into it as they are read.
 */
export function surveyResults(
  from: string,
  fingerprint: string | undefined,
  log: MergeLog,
  expected?: Expectation,
  table?: WinnerTable
): ResultsSurvey {
  // None found is the step's error (report-verdict.ts), once the summary and outputs are written.
  const found = resultFiles(from, 'report-from')
  const files = found ?? []
  const readable: string[] = []
  const unreadable: string[] = []
  const torn: string[] = []
  const refusals = new Refusals()
  let signedUnchecked = false
  const calls = new Map<string, number>()
  const shardCounts = new Map<number, number>()
  let lines = 0
  let counting = table && new CallLines(table, fingerprint, true)
  const room = table && new RoomFor(table, files)
  for (const file of files) {
    const fileCalls = new Map<string, number>()
    const fileShards = new Map<number, number>()
    let fileLines = 0
    let lastShard: string | null = null
    let lastCount: number | undefined
    const each = (facts: ResultFacts, header: RecordHeader | undefined): void => {
      fileLines++
      if (header?.signer && !expected?.verifier) signedUnchecked = true
      if (facts.outcome === 'planned') return
      if (fileCalls.size < MAX_CALLS || fileCalls.has(facts.call)) add(fileCalls, facts.call, 1)
      if (facts.shard !== lastShard) {
        lastShard = facts.shard
        lastCount = facts.shard === null ? undefined : parseShard(facts.shard)?.count
      }
      if (lastCount !== undefined) add(fileShards, lastCount, 1)
      counting?.line(facts)
    }
    counting?.startFile()
    try {
      readResultFile(
        file,
        each,
        { torn: path => torn.push(path), refused: refusals.file, refusedLines: refusals.lines },
        expected
      )
    } catch (err) {
      const why =
        err instanceof ResultFileError ? err.message : `${quoted(file)} cannot be read (${logSafe(messageOf(err))})`
      log.warning(`${why}: none of its lines are counted in the report`)
      unreadable.push(file)
      if (counting?.counted()) counting = undefined
      continue
    }
    counting?.endFile(file)
    readable.push(file)
    lines += fileLines
    room?.read(file, lines)
    for (const [call, n] of fileCalls) add(calls, call, n)
    for (const [count, n] of fileShards) add(shardCounts, count, n)
  }
  if (torn.length > 0) {
    log.warning(
      `${formatCount(torn.length)} results file${torn.length === 1 ? ' ends' : 's end'} in a torn line (a writer stopped mid-line), which is ignored: ${named(torn)}`
    )
  }
  const call = fingerprint ?? chooseCall(calls, log)
  return {
    found: found !== undefined,
    files: files.length,
    readable,
    unreadable,
    lines,
    fingerprint: call,
    shardCount: mostCommon(shardCounts)?.[0],
    refusals,
    signedUnchecked,
    counted: counting && (counting.call ?? call) === call ? counting.result(log) : undefined
  }
}

/**
 * Makes room in the table, once the first file with lines is read, for as many keys as the files
 * hold lines at its rate of lines to bytes: at once, rather than part by part as they come.
 */
class RoomFor {
  private readonly sizes = new Map<string, number>()
  private readonly total: number
  private bytes = 0

  constructor(
    private table: WinnerTable | undefined,
    files: readonly string[]
  ) {
    for (const file of files) this.sizes.set(file, sizeOf(file))
    this.total = [...this.sizes.values()].reduce((a, b) => a + b, 0)
  }

  read(file: string, lines: number): void {
    this.bytes += this.sizes.get(file) ?? 0
    if (!this.table || lines === 0 || this.bytes === 0) return
    this.table.reserve(Math.ceil((lines * this.total) / this.bytes))
    this.table = undefined
  }
}

function sizeOf(file: string): number {
  try {
    return statSync(file).size
  } catch {
    return 0
  }
}

function chooseCall(calls: Map<string, number>, log: MergeLog): string | undefined {
  const most = mostCommon(calls)
  if (!most) return undefined
  let total = 0
  for (const n of calls.values()) total += n
  log.info(
    `The report is of call ${most[0]}, the call of ${formatCount(most[1])} of ${formatCount(total)} result lines (give the step's call input to choose it)`
  )
  return most[0]
}

function add<T>(map: Map<T, number>, key: T, n: number): void {
  map.set(key, (map.get(key) ?? 0) + n)
}

/** The key with the highest count (the first such, in insertion order), with its count. */
function mostCommon<T>(map: Map<T, number>): [T, number] | undefined {
  let best: [T, number] | undefined
  for (const entry of map) if (!best || entry[1] > best[1]) best = entry
  return best
}
