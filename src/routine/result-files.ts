import { isAscii } from 'node:buffer'
import { closeSync, openSync, readdirSync, readSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { messageOf } from '../errors.js'
import { formatBytes, logSafe, quoted } from '../format.js'
import { Expectation, FileEvidence, Refusal } from './evidence.js'
import { isOwnLine, RecordHeader } from './record-format.js'
import { parseResultLine, ResultFacts, ResultFileError } from './result-line.js'

export type { ResultFacts }

export { ResultFileError }

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
  /** A last line without its newline that does not parse, or a block without its seal: a writer stopped. */
  readonly torn: (file: string) => void
  /** The file, or its lines from a line on, are not counted as evidence (evidence.ts). */
  readonly refused?: (file: string, refusal: Refusal) => void
  /** Lines refused one by one: another call, attempt or shard than their header's, or a later attempt. */
  readonly refusedLines?: (file: string, count: number) => void
}

/**
 * The longest line a results file may hold (docs/routine.md). A longer one is not a result line,
 * and no more of it than this is ever kept: a file of one line of gigabytes costs one read of it.
 */
export const MAX_LINE_BYTES = 16 * 1024 * 1024
/**
 * 64 KiB: a chunk's lines are decoded as one string, and V8 keeps a string this size in its young
 * space; at 1 MiB each was a large object that only a full collection frees.
 */
const CHUNK_BYTES = 64 * 1024
const LF = 0x0a
const CR = 0x0d

/** A line's bytes, while the line is handed over: taken only by a reader that hashes them. */
export type LineBytes = () => Buffer

// The one chunk every read reads into (one file is read through before the next): a read of
// hundreds of files allocates it once, not a chunk a file for the collector to find.
let spare: Buffer | undefined

/**
 * Hands over each line of `file` (without its LF or CRLF) with its number, and whether it is a
 * last line without a newline. Read in 64 KiB chunks, a line across them joined once, so reading is
 * linear in the file's size whatever its lines; a leading UTF-8 byte-order mark is dropped. A line
 * longer than `maxLineBytes` throws, naming the file and the line. The lines of a chunk that is all
 * ASCII are decoded at once, not one by one.
 */
export function eachLine(
  file: string,
  each: (text: string, lineNumber: number, last: boolean, bytes: LineBytes) => void,
  maxLineBytes = MAX_LINE_BYTES
): void {
  const fd = openSync(file, 'r')
  const chunk = spare ?? Buffer.allocUnsafe(CHUNK_BYTES)
  // Taken: a read started while this one hands over a line reads into a chunk of its own.
  spare = undefined
  // The start of the current line, from earlier chunks: copies, as the chunk is read into again.
  let parts: Buffer[] = []
  let partBytes = 0
  let lineNumber = 1
  let held: Buffer = chunk
  let from = 0
  let to = 0
  const bytes = (): Buffer => held.subarray(from, to)
  const give = (text: string, data: Buffer, start: number, end: number, last = false): void => {
    held = data
    from = start
    to = end
    each(text, lineNumber++, last, bytes)
  }
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
      let nl = data.indexOf(LF, start)
      if (nl >= 0 && partBytes > 0) {
        if (partBytes + nl - start > maxLineBytes) throw tooLong()
        const joined = Buffer.concat([...parts, data.subarray(start, nl)])
        give(lineText(joined), joined, 0, joined.length)
        parts = []
        partBytes = 0
        start = nl + 1
        nl = data.indexOf(LF, start)
      }
      const end = nl < 0 ? -1 : data.lastIndexOf(LF)
      if (end >= 0 && isAscii(data.subarray(start, end))) {
        const text = data.toString('latin1', start, end)
        for (let at = 0; at <= text.length;) {
          const lf = text.indexOf('\n', at)
          const stop = lf < 0 ? text.length : lf
          if (stop - at > maxLineBytes) throw tooLong()
          const cr = stop > at && text.charCodeAt(stop - 1) === CR ? 1 : 0
          give(text.slice(at, stop - cr), data, start + at, start + stop)
          at = stop + 1
        }
        start = end + 1
      } else {
        for (; nl >= 0; nl = data.indexOf(LF, start)) {
          if (nl - start > maxLineBytes) throw tooLong()
          give(lineText(data.subarray(start, nl)), data, start, nl)
          start = nl + 1
        }
      }
      if (start < read) {
        partBytes += read - start
        if (partBytes > maxLineBytes) throw tooLong()
        parts.push(Buffer.from(data.subarray(start)))
      }
    }
    if (partBytes > 0) {
      const joined = Buffer.concat(parts)
      give(lineText(joined), joined, 0, joined.length, true)
    }
  } finally {
    closeSync(fd)
    spare = chunk
  }
}

function hasByteOrderMark(data: Buffer): boolean {
  return data.length >= 3 && data[0] === 0xef && data[1] === 0xbb && data[2] === 0xbf
}

function lineText(bytes: Buffer): string {
  return (bytes.length > 0 && bytes[bytes.length - 1] === CR ? bytes.subarray(0, -1) : bytes).toString('utf8')
}

/**
 * Reads every result line of `file` that counts as evidence (evidence.ts), handing over its facts
 * and its file's header (none for format 1). A line that is not a result line throws, naming the
 * file and line, as does a file of a newer format; a torn end is reported and skipped; a file, or
 * the rest of one, that is not evidence is reported as refused.
 */
export function readResultFile(
  file: string,
  each: (facts: ResultFacts, header: RecordHeader | undefined) => void,
  problems: ReadProblems,
  expected: Expectation = { sameAttempt: 'counted' }
): void {
  const evidence = new FileEvidence(file, expected, each)
  let tornLine = false
  eachLine(file, (text, lineNumber, last, bytes) => {
    if (evidence.closed) return
    if (isOwnLine(text)) {
      if (lineNumber === 1) return evidence.headerLine(text, bytes())
      return evidence.sealLine(text, bytes(), lineNumber)
    }
    if (text.trim() === '') return
    const facts = parseResultLine(text)
    if (facts) return evidence.line(facts, bytes, lineNumber)
    if (last) {
      tornLine = true
      return
    }
    throw new ResultFileError(
      `${quoted(file)} line ${lineNumber} is not a result line of this action: it should be one JSON object ` +
        'naming key, call, outcome, status, runAttempt and shard once each, in the shapes docs/routine.md gives'
    )
  })
  const unsealed = evidence.end()
  if (evidence.refusal) problems.refused?.(file, evidence.refusal)
  else if (tornLine || unsealed) problems.torn(file)
  if (evidence.refusedLines > 0) problems.refusedLines?.(file, evidence.refusedLines)
}
