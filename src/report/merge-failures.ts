import { nestsDeeperThan, parseJsonObject } from '../json.js'
import { MAX_BODY_DEPTH } from '../routine/lines.js'
import { eachLine } from '../routine/result-files.js'
import { parseResultLine } from '../routine/result-line.js'
import { excerpt } from '../secrets.js'
import { ReportOutcome } from './merge-table.js'

/** A target that failed or whose outcome is unknown, as the summary lists it. */
export interface ReportFailure {
  readonly target: string
  /** "HTTP 500", "no response". */
  readonly status: string
  readonly outcome: ReportOutcome
  /** A short, redacted excerpt of the line's error, else of its body. */
  readonly said: string
}

/** A failure whose excerpt is still to be read, from the file that holds its winning line. */
export interface PendingFailure {
  readonly key: string
  readonly status: number | null
  readonly outcome: ReportOutcome
  readonly runAttempt: number
  readonly file: string
}

const SAID_CHARS = 200

/**
 * The failures with what the service said, read from the few files that hold their winning lines:
 * a key's last line of its winning attempt in that file is the winning line.
 */
export function readFailures(pending: readonly PendingFailure[], fingerprint: string): ReportFailure[] {
  const said = new Map<PendingFailure, string>()
  for (const file of new Set(pending.map(p => p.file))) {
    const wanted = new Map(pending.filter(p => p.file === file).map(p => [p.key, p]))
    try {
      eachLine(file, line => {
        const facts = parseResultLine(line)
        if (!facts || facts.call !== fingerprint || facts.outcome === 'planned') return
        const failure = wanted.get(facts.key)
        if (failure && facts.runAttempt === failure.runAttempt) said.set(failure, saidIn(line))
      })
    } catch {
      // Read whole a moment ago: a file changed since loses its excerpts, never the report.
    }
  }
  return pending.map(p => ({
    target: p.key,
    status: statusText(p.status),
    outcome: p.outcome,
    said: said.get(p) ?? ''
  }))
}

/** "HTTP 500", or "no response". */
export function statusText(status: number | null): string {
  return status === null ? 'no response' : `HTTP ${status}`
}

/** The line's error, else its body. A body nested past MAX_BODY_DEPTH is not written again: JSON.stringify recurses. */
function saidIn(line: string): string {
  const fields = parseJsonObject(line)
  if (!fields) return ''
  const { error, body } = fields
  if (typeof error === 'string') return excerpt(error, SAID_CHARS)
  if (typeof body === 'string') return excerpt(body, SAID_CHARS)
  if (body == null) return ''
  // The line is one level: its body, MAX_BODY_DEPTH more.
  if (nestsDeeperThan(line, MAX_BODY_DEPTH + 1)) return `(a body nested more than ${MAX_BODY_DEPTH} levels deep)`
  return excerpt(JSON.stringify(body), SAID_CHARS)
}
