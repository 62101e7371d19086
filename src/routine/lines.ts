import { parseExact } from '../json.js'
import { nestsDeeperThan } from '../json-text.js'
import { REDACT_MARGIN_CHARS, redactThenCut } from '../secrets.js'
import { hasId } from '../targets/key.js'

/**
 * What became of a target in a routine: a call that succeeded or failed; one whose answer is not
 * known (sent, or maybe sent, and then cancelled, timed out or cut off); one never made (a stop or a
 * cancellation); one skipped because an earlier attempt did it; one only planned (a dry run).
 */
export type Outcome = 'succeeded' | 'failed' | 'unknown' | 'not-made' | 'skipped' | 'planned'

export const OUTCOMES: readonly Outcome[] = ['succeeded', 'failed', 'unknown', 'not-made', 'skipped', 'planned']

/** The fields every line of one routine shares: the operation, the run attempt, the shard. */
export interface LineContext {
  readonly fingerprint: string
  readonly runAttempt: number
  /** "K/N", or undefined without shards. */
  readonly shard?: string
}

export interface LineFields {
  readonly key: string
  readonly outcome: Outcome
  readonly status: number | null
  readonly index: number
  /** The wave the target was called in, with call-waves or call-canary. */
  readonly wave?: number
  readonly target: unknown
  /** What a person calls the target (targetName): on the lines of failures, for the report. */
  readonly name?: string
  readonly error?: string
  readonly attempts?: number | null
  readonly ms?: number
  /** The line's last fields, as resultBody() writes them; absent for no body. */
  readonly body?: string
}

const RESULT_BODY_CHARS = 64 * 1024
/**
 * How deep a JSON body may nest arrays and objects to be kept as JSON (docs/routine.md); a deeper
 * one is kept as text. Whatever reads a line back may then walk its body, or write it again with
 * JSON.stringify, without overflowing the stack: 12 KB of [ nest 6,000 deep.
 */
export const MAX_BODY_DEPTH = 64
const LINE_BREAKS = /[\r\n]/g
/** A name on a line is cut here: the report shows 80 characters of it. */
const NAME_CHARS = 200

/**
 * One result line, written by hand in the order docs/routine.md gives: JSON.stringify of an object per
 * call costs more than the rest of a call's bookkeeping. The key, call and outcome come first, so
 * that a resume or a report reads them without parsing the body.
 */
export function resultLine(context: LineContext, fields: LineFields): string {
  const id = hasId(fields.target) ? `,"id":${JSON.stringify((fields.target as { id: unknown }).id)}` : ''
  const name = fields.name === undefined ? '' : `,"name":${JSON.stringify(fields.name.slice(0, NAME_CHARS))}`
  const error = fields.error === undefined ? '' : `,"error":${JSON.stringify(fields.error)}`
  const attempts = fields.attempts === undefined ? '' : `,"attempts":${fields.attempts}`
  const ms = fields.ms === undefined ? '' : `,"ms":${fields.ms}`
  const body = fields.body === undefined ? '' : `,${fields.body}`
  const wave = fields.wave === undefined ? '' : `,"wave":${fields.wave}`
  return (
    `{"key":${JSON.stringify(fields.key)},"call":"${context.fingerprint}","outcome":"${fields.outcome}",` +
    `"status":${fields.status},"runAttempt":${context.runAttempt},"shard":${context.shard === undefined ? null : JSON.stringify(context.shard)},` +
    `"index":${fields.index}${wave}${id}${name}${error}${attempts}${ms}${body}}`
  )
}

/**
 * A response body's fields: "body" parsed when JSON, else as text (also JSON nested deeper than
 * MAX_BODY_DEPTH), cut at 64 KiB with a marker.
 * JSON without a backslash is kept as the server wrote it (numbers exactly, its line breaks made
 * spaces, which JSON allows between tokens); with escapes it is parsed and written again, so that
 * redaction sees a secret the server escaped as the secret itself.
 */
export function resultBody(text: string, keep = true, truncated = false): string {
  if (text === '') return '"body":null'
  if (!keep) return '"body":null,"bodyDropped":true'
  if (truncated || text.length > RESULT_BODY_CHARS) {
    // Redacted before it is cut: a secret across the cut is withheld whole, not kept up to it.
    const cut = redactThenCut(text.slice(0, RESULT_BODY_CHARS + REDACT_MARGIN_CHARS), RESULT_BODY_CHARS)
    return `"body":${JSON.stringify(cut.text)},"truncated":true`
  }
  if (nestsDeeperThan(text, MAX_BODY_DEPTH)) return `"body":${JSON.stringify(text)}`
  try {
    if (!text.includes('\\')) {
      JSON.parse(text)
      return `"body":${text.replace(LINE_BREAKS, ' ')}`
    }
    return `"body":${JSON.stringify(parseExact(text))}`
  } catch {
    return `"body":${JSON.stringify(text)}`
  }
}
