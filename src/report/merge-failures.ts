import { parseJsonObject } from '../json.js'
import { nestsDeeperThan } from '../json-text.js'
import { MAX_BODY_DEPTH } from '../routine/lines.js'
import { eachLine } from '../routine/result-files.js'
import { parseResultLine } from '../routine/result-line.js'
import { serviceSaid } from '../routine/said.js'
import { ReportOutcome } from './merge-table.js'

/** A target that failed or whose outcome is unknown, as the summary lists it. */
export interface ReportFailure {
  /** The target's key, as the routine's summary names it too. */
  readonly key: string
  /** What a person calls it: the `name` its line carries, when the routine found one. */
  readonly name?: string
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

/**
 * The failures with what the service said, read from the few files that hold their winning lines:
 * a key's last line of its winning attempt in that file is the winning line.
 */
export function readFailures(pending: readonly PendingFailure[], fingerprint: string): ReportFailure[] {
  const said = new Map<PendingFailure, Said>()
  for (const file of new Set(pending.map(p => p.file))) {
    const wanted = new Map(pending.filter(p => p.file === file).map(p => [p.key, p]))
    try {
      eachLine(file, line => {
        if (!mayName(line, wanted)) return
        const facts = parseResultLine(line)
        if (!facts || facts.call !== fingerprint || facts.outcome === 'planned') return
        const failure = wanted.get(facts.key)
        if (failure && facts.runAttempt === failure.runAttempt) said.set(failure, saidIn(line))
      })
    } catch {
      // Read whole a moment ago: a file changed since loses its excerpts, never the report.
    }
  }
  return pending.map(p => {
    const { text = '', name } = said.get(p) ?? {}
    return {
      key: p.key,
      ...(name === undefined ? {} : { name }),
      status: statusText(p.status),
      outcome: p.outcome,
      said: text
    }
  })
}

/**
 * Whether the line may be one of these keys': it holds one as it is, or an escape that could spell
 * one (a line without a backslash writes its key as it is). Most lines of a file are not: they are
 * not parsed.
 */
function mayName(line: string, keys: ReadonlyMap<string, unknown>): boolean {
  if (line.includes('\\')) return true
  for (const key of keys.keys()) if (line.includes(key)) return true
  return false
}

/** "HTTP 500", or "no response". */
export function statusText(status: number | null): string {
  return status === null ? 'no response' : `HTTP ${status}`
}

interface Said {
  readonly text: string
  readonly name?: string
}

/**
 * The line's error, else what its body says (serviceSaid), and the target's name. A body nested past
 * MAX_BODY_DEPTH is not read: walking or writing it again recurses.
 */
function saidIn(line: string): Said {
  const fields = parseJsonObject(line)
  if (!fields) return { text: '' }
  const { error, body } = fields
  const name = typeof fields.name === 'string' && fields.name !== '' ? { name: fields.name } : {}
  if (typeof error === 'string') return { text: serviceSaid(error), ...name }
  if (body == null) return { text: '', ...name }
  // The line is one level: its body, MAX_BODY_DEPTH more.
  if (typeof body !== 'string' && nestsDeeperThan(line, MAX_BODY_DEPTH + 1))
    return { text: `(a body nested more than ${MAX_BODY_DEPTH} levels deep)`, ...name }
  return { text: serviceSaid(body), ...name }
}
