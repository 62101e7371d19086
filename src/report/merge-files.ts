import { messageOf } from '../errors.js'
import { formatCount, logSafe, quoted } from '../format.js'
import { readResultFile, resultFiles, ResultFileError } from '../routine/result-files.js'
import { Expectation } from '../routine/evidence.js'
import { RecordHeader } from '../routine/record-format.js'
import { Refusals } from '../routine/refusals.js'
import { ResultFacts } from '../routine/result-line.js'
import { keyHash, KeyHash } from '../targets/key-table.js'
import { parseShard } from '../targets/shards.js'
import { Winner, WinnerTable } from './merge-table.js'

export interface MergeLog {
  readonly info: (message: string) => void
  readonly warning: (message: string) => void
}

/** The results files, read once through to find those that parse, before any line is counted. */
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
}

/** Distinct calls kept per file: past that, a file is not one routine's record anyway. */
const MAX_CALLS = 64
const MAX_NAMED = 5

/** Reads every file through, counting nothing yet: a file is counted whole or not at all. */
export function surveyResults(
  from: string,
  fingerprint: string | undefined,
  log: MergeLog,
  expected?: Expectation
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
    }
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
      continue
    }
    readable.push(file)
    lines += fileLines
    for (const [call, n] of fileCalls) add(calls, call, n)
    for (const [count, n] of fileShards) add(shardCounts, count, n)
  }
  if (torn.length > 0) {
    log.warning(
      `${formatCount(torn.length)} results file${torn.length === 1 ? ' ends' : 's end'} in a torn line (a writer stopped mid-line), which is ignored: ${named(torn)}`
    )
  }
  return {
    found: found !== undefined,
    files: files.length,
    readable,
    unreadable,
    lines,
    fingerprint: fingerprint ?? chooseCall(calls, log),
    shardCount: mostCommon(shardCounts)?.[0],
    refusals,
    signedUnchecked
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

/** What counting the lines found beside the winners. */
export interface LinesCounted {
  /** Where each readable file's counted lines start: the `seq` of its first one. */
  readonly starts: readonly number[]
  /** Lines of another call, not counted. */
  readonly otherCall: number
  /** Lines of the call counted (not planned ones). */
  readonly counted: number
}

/**
 * Counts the lines of `fingerprint` (not planned ones) into `table`, numbering them 1, 2, … in
 * file order; lines of another call are counted apart and named in one warning.
 */
export function countLines(
  readable: readonly string[],
  fingerprint: string | undefined,
  table: WinnerTable,
  log: MergeLog,
  expected?: Expectation
): LinesCounted {
  const starts: number[] = []
  const otherFiles: string[] = []
  let seq = 0
  let other = 0
  for (const file of readable) {
    starts.push(seq + 1)
    const otherBefore = other
    readResultFile(
      file,
      facts => {
        if (facts.outcome === 'planned') return
        if (facts.call === fingerprint) table.offer(facts, ++seq)
        else other++
      },
      { torn: () => undefined },
      expected
    )
    if (other > otherBefore) otherFiles.push(file)
  }
  if (other > 0) {
    log.warning(
      `${formatCount(other)} result line${other === 1 ? ' is' : 's are'} of another call (another method, path, body or base-url) and ${other === 1 ? 'is' : 'are'} not counted, in ${formatCount(otherFiles.length)} file${otherFiles.length === 1 ? '' : 's'}: ${named(otherFiles)}`
    )
  }
  return { starts, otherCall: other, counted: seq }
}

/** Hands over each key's winning line, in file order: the lines counted again, numbered the same. */
export function eachWinningLine(
  readable: readonly string[],
  fingerprint: string | undefined,
  table: WinnerTable,
  each: (key: string, hash: KeyHash, winner: Winner) => void,
  expected?: Expectation
): void {
  let seq = 0
  for (const file of readable) {
    readResultFile(
      file,
      facts => {
        if (facts.call !== fingerprint || facts.outcome === 'planned') return
        seq++
        const hash = keyHash(facts.key)
        const winner = table.winner(facts.key, hash)
        if (winner?.seq === seq) each(facts.key, hash, winner)
      },
      { torn: () => undefined },
      expected
    )
  }
}

/** The file whose counted lines hold line `seq`. */
export function fileOf(readable: readonly string[], starts: readonly number[], seq: number): string {
  let i = starts.length - 1
  while (i > 0 && starts[i] > seq) i--
  return readable[i]
}

/** Up to five file names, quoted, and how many more. */
export function named(files: readonly string[]): string {
  const more = files.length - MAX_NAMED
  return files.slice(0, MAX_NAMED).map(quoted).join(', ') + (more > 0 ? ` and ${formatCount(more)} more` : '')
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
