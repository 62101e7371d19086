// Results files for the report's merge tests (merge-files, merge-survey): lines as the routine
// writes them, written into a folder, and a log that keeps what it is told.
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { MergeLog } from '../../src/report/merge-files.js'
import { LineFields, resultLine } from '../../src/routine/lines.js'

/** The call's fingerprint, and another call's. */
export const FP = '0123456789abcdef'
export const OTHER = 'fedcba9876543210'

/** A result line of `key`: succeeded with 200 unless told, of call FP, attempt 1. */
export const line = (
  key: string,
  outcome: LineFields['outcome'] = 'succeeded',
  { call = FP, shard, attempt = 1 }: { call?: string; shard?: string; attempt?: number } = {}
) =>
  resultLine(
    { fingerprint: call, runAttempt: attempt, shard },
    { key, outcome, status: outcome === 'unknown' || outcome === 'planned' ? null : 200, index: 0, target: { id: key } }
  )

/** Writes `lines` as the file `name` in `folder`, each ended by a newline but the last, which ends in `end`. */
export const writeResults = (folder: string, name: string, lines: string[], end = '\n') => {
  const path = join(folder, name)
  writeFileSync(path, lines.join('\n') + end)
  return path
}

/** A MergeLog that keeps its infos and warnings. */
export const recorder = () => {
  const infos: string[] = []
  const warnings: string[] = []
  const log: MergeLog = { info: m => infos.push(m), warning: m => warnings.push(m) }
  return { infos, warnings, log }
}
