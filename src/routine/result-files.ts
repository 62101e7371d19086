import { closeSync, openSync, readdirSync, readSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { messageOf } from '../errors.js'
import { Outcome, OUTCOMES } from './lines.js'
import { isOwnLine } from './record-format.js'

/** What a resume and a report need of one result line. */
export interface ResultFacts {
  readonly key: string
  readonly call: string
  readonly outcome: Outcome
  readonly status: number | null
  readonly runAttempt: number
  readonly shard: string | null
}

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
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const path = join(dir, entry.name)
      if (entry.isFile() && entry.name.endsWith('.jsonl')) files.push(path)
      else if (entry.isDirectory() && depth === 0) list(path, 1)
    }
  }
  list(from, 0)
  return files
}

// The line as the action writes it: key, call, outcome, status, run attempt and shard first.
const LINE_START =
  /^\{"key":("(?:[^"\\]|\\.)*"),"call":"([^"\\]*)","outcome":"([a-z-]+)","status":([1-9]\d\d|null),"runAttempt":(\d{1,9}),"shard":(null|"[^"\\]*"),/

/** One line's facts, or undefined when it is not a result line. */
export function parseResultLine(line: string): ResultFacts | undefined {
  const match = LINE_START.exec(line)
  if (match && line.endsWith('}')) {
    const quoted = match[1]
    const outcome = match[3] as Outcome
    if (!OUTCOMES.includes(outcome)) return undefined
    return {
      key: quoted.includes('\\') ? (JSON.parse(quoted) as string) : quoted.slice(1, -1),
      call: match[2],
      outcome,
      status: match[4] === 'null' ? null : Number(match[4]),
      runAttempt: Number(match[5]),
      shard: match[6] === 'null' ? null : match[6].slice(1, -1)
    }
  }
  // Written by another tool, or rewritten: read as JSON, the same fields in any order.
  let value: Record<string, unknown>
  try {
    value = JSON.parse(line) as Record<string, unknown>
  } catch {
    return undefined
  }
  if (!value || typeof value !== 'object') return undefined
  const { key, call, outcome, status, runAttempt = 0, shard = null } = value
  if (typeof key !== 'string' || typeof call !== 'string' || !OUTCOMES.includes(outcome as Outcome)) return undefined
  if (status !== null && !(typeof status === 'number' && Number.isInteger(status) && status >= 100 && status <= 999)) {
    return undefined
  }
  if (typeof runAttempt !== 'number' || !Number.isInteger(runAttempt) || runAttempt < 0) return undefined
  if (shard !== null && typeof shard !== 'string') {
    return undefined
  }
  return { key, call, outcome: outcome as Outcome, status, runAttempt, shard }
}

export interface ReadProblems {
  /** A last line without its newline that does not parse: a writer killed mid-line. */
  readonly torn: (file: string) => void
}

/**
 * Reads every line of `file` in 1 MiB chunks, handing each line's facts to `each`. A line that is
 * not a result line throws, naming the file and line; a torn last line is reported and skipped.
 */
export function readResultFile(file: string, each: (facts: ResultFacts) => void, problems: ReadProblems): void {
  const fd = openSync(file, 'r')
  const chunk = Buffer.allocUnsafe(1024 * 1024)
  let rest = Buffer.alloc(0)
  let lineNumber = 0
  const take = (bytes: Buffer, last: boolean): void => {
    lineNumber++
    const text = bytes.toString('utf8').replace(/\r$/, '')
    if (text.trim() === '' || isOwnLine(text)) return
    const facts = parseResultLine(text)
    if (facts) return each(facts)
    if (last) return problems.torn(file)
    throw new ResultFileError(
      `${file} line ${lineNumber} is not a result line of this action (it should be one JSON object with key, call and outcome)`
    )
  }
  try {
    for (;;) {
      const read = readSync(fd, chunk, 0, chunk.length, null)
      if (read === 0) break
      const data = rest.length > 0 ? Buffer.concat([rest, chunk.subarray(0, read)]) : chunk.subarray(0, read)
      let start = 0
      for (let nl = data.indexOf(10, start); nl >= 0; nl = data.indexOf(10, start)) {
        take(data.subarray(start, nl), false)
        start = nl + 1
      }
      rest = Buffer.from(data.subarray(start))
    }
    if (rest.length > 0) take(rest, true)
  } finally {
    closeSync(fd)
  }
}
