import { closeSync, openSync, readdirSync, readSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { messageOf } from '../errors.js'
import { formatBytes, logSafe, quoted } from '../format.js'
import { isOwnLine } from './record-format.js'
import { parseResultLine, ResultFacts } from './result-line.js'

export type { ResultFacts }

/** A results file that cannot be read, or a line of it that is not a result line. */
export class ResultFileError extends Error {}

/**
 * The results files of `from`: the file itself, or the *.jsonl files in a folder and one level
 * down (actions/download-artifact puts each artifact in a folder of its name). Sorted, so that two
 * reads see them in one order. Undefined when `from` does not exist.
 */
export function resultFiles(from: string, input: string): string[] | undefined {
  let stat
  try {
    stat = statSync(from)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw new ResultFileError(`Input ${input}: ${from} cannot be read (${messageOf(err)})`)
  }
  if (stat.isFile()) return [from]
  if (!stat.isDirectory()) throw new ResultFileError(`Input ${input}: ${from} is neither a file nor a folder`)
  const files: string[] = []
  const list = (dir: string, depth: number): void => {
    let entries
    try {
      entries = readdirSync(dir, { withFileTypes: true })
    } catch (err) {
      throw new ResultFileError(`Input ${input}: ${quoted(dir)} cannot be read (${logSafe(messageOf(err))})`)
    }
    for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const path = join(dir, entry.name)
      if (entry.isFile() && entry.name.endsWith('.jsonl')) files.push(path)
      else if (entry.isDirectory() && depth === 0) list(path, 1)
    }
  }
  list(from, 0)
  return files
}

export interface ReadProblems {
  /** A last line without its newline that does not parse: a writer killed mid-line. */
  readonly torn: (file: string) => void
}

/**
 * The longest line a results file may hold (docs/routine.md). A longer one is not a result line,
 * and no more of it than this is ever kept: a file of one line of gigabytes costs one read of it.
 */
export const MAX_LINE_BYTES = 16 * 1024 * 1024
const CHUNK_BYTES = 1024 * 1024
const LF = 0x0a
const CR = 0x0d

/**
 * Hands over each line of `file` (without its LF or CRLF) with its number, and whether it is a
 * last line without a newline. Read in 1 MiB chunks, a line across them joined once, so reading is
 * linear in the file's size whatever its lines; a leading UTF-8 byte-order mark is dropped. A line
 * longer than `maxLineBytes` throws, naming the file and the line.
 */
export function eachLine(
  file: string,
  each: (text: string, lineNumber: number, last: boolean) => void,
  maxLineBytes = MAX_LINE_BYTES
): void {
  const fd = openSync(file, 'r')
  const chunk = Buffer.allocUnsafe(CHUNK_BYTES)
  // The start of the current line, from earlier chunks: copies, as the chunk is read into again.
  let parts: Buffer[] = []
  let partBytes = 0
  let lineNumber = 1
  const tooLong = (): ResultFileError =>
    new ResultFileError(
      `${quoted(file)} line ${lineNumber} is longer than ${formatBytes(maxLineBytes)}, so it is not a result line of this action`
    )
  try {
    for (let first = true; ; first = false) {
      const read = readSync(fd, chunk, 0, CHUNK_BYTES, null)
      if (read === 0) break
      const data = chunk.subarray(0, read)
      let start = first && hasByteOrderMark(data) ? 3 : 0
      for (let nl = data.indexOf(LF, start); nl >= 0; nl = data.indexOf(LF, start)) {
        if (partBytes + nl - start > maxLineBytes) throw tooLong()
        const bytes = partBytes > 0 ? Buffer.concat([...parts, data.subarray(start, nl)]) : data.subarray(start, nl)
        each(lineText(bytes), lineNumber++, false)
        parts = []
        partBytes = 0
        start = nl + 1
      }
      if (start < read) {
        partBytes += read - start
        if (partBytes > maxLineBytes) throw tooLong()
        parts.push(Buffer.from(data.subarray(start)))
      }
    }
    if (partBytes > 0) each(lineText(Buffer.concat(parts)), lineNumber, true)
  } finally {
    closeSync(fd)
  }
}

function hasByteOrderMark(data: Buffer): boolean {
  return data.length >= 3 && data[0] === 0xef && data[1] === 0xbb && data[2] === 0xbf
}

function lineText(bytes: Buffer): string {
  return (bytes.length > 0 && bytes[bytes.length - 1] === CR ? bytes.subarray(0, -1) : bytes).toString('utf8')
}

/**
 * Reads every line of `file`, handing each line's facts to `each`. A line that is not a result line
 * throws, naming the file and line; a torn last line is reported and skipped.
 */
export function readResultFile(file: string, each: (facts: ResultFacts) => void, problems: ReadProblems): void {
  eachLine(file, (text, lineNumber, last) => {
    if (text.trim() === '' || isOwnLine(text)) return
    const facts = parseResultLine(text)
    if (facts) return each(facts)
    if (last) return problems.torn(file)
    throw new ResultFileError(
      `${quoted(file)} line ${lineNumber} is not a result line of this action: it should be one JSON object ` +
        'naming key, call, outcome, status, runAttempt and shard once each, in the shapes docs/routine.md gives'
    )
  })
}
