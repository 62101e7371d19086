import { closeSync, openSync, readSync, statSync } from 'node:fs'
import { messageOf } from '../errors.js'
import { formatCount, logSafe, quoted } from '../format.js'
import { KeyHash, keyHash, KeyTable } from '../targets/key-table.js'
import { fmix32, Shard } from '../targets/shards.js'
import { Outcome } from './lines.js'
import { Expectation } from './evidence.js'
import { Refusals } from './refusals.js'
import { readResultFile, resultFiles, ResultFileError } from './result-files.js'

export interface ResumeOptions {
  /** The call-resume-from input: a results file, or a folder of them. */
  readonly from: string
  readonly fingerprint: string
  /** What an earlier file must be to count: this run, an earlier attempt, the same snapshot, signed. */
  readonly expected?: Expectation
  /** The plan this step applies: targets a file of it finished are in the plan, though not called again. */
  readonly plan?: string
  /** This step's shard: lines of other shards' targets are not kept. */
  readonly shard?: Shard
  readonly info: (message: string) => void
  readonly warning: (message: string) => void
}

/** What earlier attempts finished: the targets a re-run skips, with the status each ended with. */
export interface EarlierResults {
  /** The status a finished target ended with (null for none), or undefined when it is to be called. */
  finished(key: string): number | null | undefined
  /**
   * As `finished`, for the target at `place` (0-based) of the step's targets file. The step asks
   * for each target twice, in that order as it reads the list and again as the routine offers it;
   * the second answer comes from the first (kept by place, with the key's two hashes), not from
   * another random read of the table. A place asked with another key is looked up.
   */
  finishedAt(place: number, key: string): number | null | undefined
  /** Whether the line that finished the target is of a file applying this step's plan. */
  finishedByPlan(key: string): boolean
  readonly size: number
}

const DONE: ReadonlySet<Outcome> = new Set(['succeeded', 'skipped'])
/**
 * Ten bits of status (HTTP's are 100-599), 1023 for none; the done bit; the plan bit; the run attempt
 * above them, in 20 bits: a line's is at most MAX_RUN_ATTEMPT (result-line.ts).
 */
const NO_STATUS = 0x3ff
const DONE_BIT = 1 << 10
const PLAN_BIT = 1 << 11
const ATTEMPT_SHIFT = 12

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
    return { finished: () => undefined, finishedAt: () => undefined, finishedByPlan: () => false, size: 0 }
  }
  // One word a key: the run attempt of its latest line, whether it finished, and its status.
  const table = new KeyTable(1)
  let lines = 0
  let other = 0
  const torn: string[] = []
  const refused = new Refusals()
  const { shard, plan } = options
  // A shard job's keys may fill only some of the table's parts (one at 256 shards): room made in
  // every part would be spent for nothing. Room is a speed-up: without it the table grows.
  if (!shard) makeRoom(table, expectedLines(files))
  for (const file of files) {
    try {
      readResultFile(
        file,
        (facts, header) => {
          lines++
          if (facts.call !== options.fingerprint) {
            other++
            return
          }
          if (facts.outcome === 'planned') return
          const hash = keyHash(facts.key)
          if (shard && (fmix32(hash.shard) % shard.count) + 1 !== shard.index) return
          const at = table.add(hash)
          if (!table.fresh && facts.runAttempt < table.words[at] >>> ATTEMPT_SHIFT) return
          const done = DONE.has(facts.outcome) ? DONE_BIT : 0
          const byPlan = plan !== undefined && header?.plan === plan ? PLAN_BIT : 0
          table.words[at] = ((facts.runAttempt << ATTEMPT_SHIFT) | byPlan | done | (facts.status ?? NO_STATUS)) >>> 0
        },
        { torn: path => torn.push(path), refused: refused.file, refusedLines: refused.lines },
        options.expected
      )
    } catch (err) {
      const why =
        err instanceof ResultFileError ? err.message : `${quoted(file)} cannot be read (${logSafe(messageOf(err))})`
      throw new ResultFileError(`Input ${input}: ${why}; no call was made`)
    }
  }
  for (const path of torn) {
    options.warning(`${quoted(path)} ends in a torn line or block (its writer was stopped mid-line): it is ignored`)
  }
  // Not counted, so their targets are called again: safe, but someone should know why.
  const refusals = refused.message('call-resume-from', 'their targets are called again')
  if (refusals) options.warning(refusals)
  if (other > 0) {
    options.warning(
      `${formatCount(other)} of ${formatCount(lines)} earlier result lines are of another call (another method, path, body or base-url) and were ignored`
    )
  }
  // The word of a finished key, else 0.
  const wordOf = (hash: KeyHash): number => {
    const at = table.find(hash)
    return at >= 0 && (table.words[at] & DONE_BIT) !== 0 ? table.words[at] : 0
  }
  const doneWord = (key: string): number => wordOf(keyHash(key))
  const finished = (key: string): number | null | undefined => statusOf(doneWord(key))
  const kept = new PlaceMemo(table.size)
  const finishedAt = (place: number, key: string): number | null | undefined => {
    if (table.size === 0) return undefined
    const hash = keyHash(key)
    const word = kept.word(place, hash) ?? kept.note(place, hash, wordOf(hash))
    return statusOf(word)
  }
  const finishedByPlan = (key: string): boolean => (doneWord(key) & PLAN_BIT) !== 0
  options.info(
    `Read ${formatCount(lines)} earlier result lines from ${formatCount(files.length)} file${files.length === 1 ? '' : 's'} (call-resume-from)`
  )
  return { finished, finishedAt, finishedByPlan, size: table.size }
}

/** Bytes at the start of the first file read for its rate of lines to bytes. */
const SAMPLE_BYTES = 64 * 1024
/** The shortest result line: `{"key":"","call":"…16…","outcome":"failed","status":null,"runAttempt":1,"shard":null}`. */
const MIN_LINE_BYTES = 97
/** The most keys room is made for at once (about 63 MiB of table): past them the table grows. */
export const MAX_ROOM_KEYS = 4_000_000

/**
 * About how many lines the files hold: their size at the rate of lines to bytes of the first
 * file's first 64 KiB, or 0 when that holds fewer than two lines or cannot be read (the read then
 * says why). Only lines long enough to be result lines count, so blank lines cannot make it more
 * than a line every 97 bytes; and it is at most MAX_ROOM_KEYS. Room for them made at once spares the
 * table's parts growing one by one: about 250 ms of CPU less for a million keys
 * (docs/performance.md). Lines of other calls or of several attempts of the same targets make it
 * more than the keys: room that is not used, never a fault.
 */
export function expectedLines(files: readonly string[]): number {
  try {
    let total = 0
    for (const file of files) total += statSync(file).size
    const sample = Buffer.allocUnsafe(Math.min(SAMPLE_BYTES, total))
    const fd = openSync(files[0], 'r')
    let read: number
    try {
      read = readSync(fd, sample, 0, sample.length, 0)
    } finally {
      closeSync(fd)
    }
    let lines = 0
    for (let start = 0, end = sample.indexOf(0x0a); end >= 0 && end < read; end = sample.indexOf(0x0a, start)) {
      if (end - start >= MIN_LINE_BYTES) lines++
      start = end + 1
    }
    return lines < 2 ? 0 : Math.min(MAX_ROOM_KEYS, Math.ceil((total * lines) / read))
  } catch {
    return 0
  }
}

function makeRoom(table: KeyTable, keys: number): void {
  try {
    table.reserve(keys)
  } catch {
    // No memory for the room at once (RangeError): the table grows as the keys come.
  }
}

/** A finished key's status (null for none), from its word; undefined for 0, a key not finished. */
function statusOf(word: number): number | null | undefined {
  if (word === 0) return undefined
  const status = word & NO_STATUS
  return status === NO_STATUS ? null : status
}

/** Three words a place, in the order asked: the key's two hashes and its word. */
const PLACE_WORDS = 3

/**
 * The words looked up so far, by place: noted only in order (place 0, 1, …), read back only for
 * the same key's hashes. Read in order, so a million targets cost 12 MiB and no random reads.
 */
export class PlaceMemo {
  private words: Uint32Array
  private noted = 0

  /** `expected`: the places likely asked (the keys finished): room for them at once. */
  constructor(expected: number) {
    this.words = new Uint32Array(Math.max(expected, 64) * PLACE_WORDS)
  }

  /** The word noted for the place, when it was noted for the same hashes. */
  word(place: number, hash: KeyHash): number | undefined {
    if (place >= this.noted) return undefined
    const at = place * PLACE_WORDS
    const { words } = this
    return words[at] === hash.first && words[at + 1] === hash.second ? words[at + 2] : undefined
  }

  /** Notes the word when the place is the next in order; gives it back. */
  note(place: number, hash: KeyHash, word: number): number {
    if (place !== this.noted) return word
    const at = place * PLACE_WORDS
    if (at + PLACE_WORDS > this.words.length) {
      const grown = new Uint32Array(this.words.length * 2)
      grown.set(this.words)
      this.words = grown
    }
    this.words[at] = hash.first
    this.words[at + 1] = hash.second
    this.words[at + 2] = word
    this.noted++
    return word
  }
}
