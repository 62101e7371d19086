import { messageOf } from '../errors.js'
import { formatCount, logSafe, quoted } from '../format.js'
import { keyHash, KeyTable } from '../targets/key-table.js'
import { fmix32, Shard } from '../targets/shards.js'
import { Outcome } from './lines.js'
import { readResultFile, resultFiles, ResultFileError } from './result-files.js'

export interface ResumeOptions {
  /** The call-resume-from input: a results file, or a folder of them. */
  readonly from: string
  readonly fingerprint: string
  /** This step's shard: lines of other shards' targets are not kept. */
  readonly shard?: Shard
  readonly info: (message: string) => void
  readonly warning: (message: string) => void
}

/** What earlier attempts finished: the targets a re-run skips, with the status each ended with. */
export interface EarlierResults {
  /** The status a finished target ended with (null for none), or undefined when it is to be called. */
  finished(key: string): number | null | undefined
  readonly size: number
}

const DONE: ReadonlySet<Outcome> = new Set(['succeeded', 'skipped'])
/**
 * Ten bits of status (HTTP's are 100-599), 1023 for none; the run attempt above the done bit, in 21
 * bits: a line's is at most MAX_RUN_ATTEMPT (result-line.ts).
 */
const NO_STATUS = 0x3ff

/**
 * Reads the earlier attempts' results files: for each target the latest line of this call wins (a
 * later run attempt, else a later line). Only finished targets are kept, as hashes, so a million
 * lines cost a few tens of MiB. Throws, before any call, for a line that is not a result line.
 */
export function readEarlierResults(options: ResumeOptions): EarlierResults {
  const input = 'call-resume-from'
  const files = resultFiles(options.from, input)
  if (!files || files.length === 0) {
    options.info(`No earlier results in ${options.from} (call-resume-from): a first attempt, so every target is called`)
    return { finished: () => undefined, size: 0 }
  }
  // One word a key: the run attempt of its latest line, whether it finished, and its status.
  const table = new KeyTable(1)
  let lines = 0
  let other = 0
  const torn: string[] = []
  const { shard } = options
  for (const file of files) {
    try {
      readResultFile(
        file,
        facts => {
          lines++
          if (facts.call !== options.fingerprint) {
            other++
            return
          }
          if (facts.outcome === 'planned') return
          const hash = keyHash(facts.key)
          if (shard && (fmix32(hash.first) % shard.count) + 1 !== shard.index) return
          const { words, fresh } = table.slot(facts.key, hash)
          if (!fresh && facts.runAttempt < words[0] >>> 11) return
          words[0] =
            ((facts.runAttempt << 11) | ((DONE.has(facts.outcome) ? 1 : 0) << 10) | (facts.status ?? NO_STATUS)) >>> 0
        },
        { torn: path => torn.push(path) }
      )
    } catch (err) {
      const why =
        err instanceof ResultFileError ? err.message : `${quoted(file)} cannot be read (${logSafe(messageOf(err))})`
      throw new ResultFileError(`Input ${input}: ${why}; no call was made`)
    }
  }
  for (const path of torn) {
    options.warning(`${quoted(path)} ends in a torn line (its writer was stopped mid-line): that line is ignored`)
  }
  if (other > 0) {
    options.warning(
      `${formatCount(other)} of ${formatCount(lines)} earlier result lines are of another call (another method, path, body or base-url) and were ignored`
    )
  }
  const finished = (key: string): number | null | undefined => {
    const words = table.get(key)
    if (!words || ((words[0] >>> 10) & 1) !== 1) return undefined
    const status = words[0] & NO_STATUS
    return status === NO_STATUS ? null : status
  }
  options.info(
    `Read ${formatCount(lines)} earlier result lines from ${formatCount(files.length)} file${files.length === 1 ? '' : 's'} (call-resume-from)`
  )
  return { finished, size: table.size }
}
