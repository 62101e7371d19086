import { formatCount, quoted } from '../format.js'
import { readResultFile } from '../routine/result-files.js'
import { Expectation } from '../routine/evidence.js'
import { ResultFacts } from '../routine/result-line.js'
import { keyHash, KeyHash } from '../targets/key-table.js'
import { Winner, WinnerTable } from './merge-table.js'

export interface MergeLog {
  readonly info: (message: string) => void
  readonly warning: (message: string) => void
}

const MAX_NAMED = 5

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
 * The lines of one call counted into a table, numbered 1, 2, … in file order, file by file; lines
 * of another call are counted apart. A file's lines of another call count once it is read whole.
 */
export class CallLines {
  private seq = 0
  private other = 0
  private readonly starts: number[] = []
  private readonly otherFiles: string[] = []
  private fileStart = 1
  private fileOther = 0

  /** `call`: the call counted; with `adopt`, the first call of a line offered, when not given. */
  constructor(
    private readonly table: WinnerTable,
    public call: string | undefined,
    private readonly adopt = false
  ) {}

  startFile(): void {
    this.fileStart = this.seq + 1
    this.fileOther = 0
  }

  /** A result line that is not a planned one. */
  line(facts: ResultFacts): void {
    if (this.call === undefined && this.adopt) this.call = facts.call
    if (facts.call === this.call) this.table.offer(facts, ++this.seq)
    else this.fileOther++
  }

  endFile(file: string): void {
    this.starts.push(this.fileStart)
    this.other += this.fileOther
    if (this.fileOther > 0) this.otherFiles.push(file)
  }

  /** Whether a file found unreadable had lines counted: then the count is no longer one of whole files. */
  counted(): boolean {
    return this.seq >= this.fileStart
  }

  /** What was counted, with one warning for the lines of another call. */
  result(log: MergeLog): LinesCounted {
    const { other, otherFiles } = this
    if (other > 0) {
      log.warning(
        `${formatCount(other)} result line${other === 1 ? ' is' : 's are'} of another call (another method, path, body or base-url) and ${other === 1 ? 'is' : 'are'} not counted, in ${formatCount(otherFiles.length)} file${otherFiles.length === 1 ? '' : 's'}: ${named(otherFiles)}`
      )
    }
    return { starts: this.starts, otherCall: other, counted: this.seq }
  }
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
  const lines = new CallLines(table, fingerprint)
  for (const file of readable) {
    lines.startFile()
    readResultFile(
      file,
      facts => {
        if (facts.outcome !== 'planned') lines.line(facts)
      },
      { torn: () => undefined },
      expected
    )
    lines.endFile(file)
  }
  return lines.result(log)
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
