import { Token } from '../auth/token.js'
import { formatCount, formatDuration, isoSeconds } from '../format.js'
import { isRawNumber } from '../json.js'
import { redact } from '../secrets.js'
import { RoutineResult } from '../service/routine.js'
import { Listing } from '../targets/file.js'

const MAX_COLUMNS = 5
const MAX_CELL = 80
const PREFERRED_COLUMNS = [
  'id',
  'name',
  'display_name',
  'title',
  'type',
  'kind',
  'status',
  'state',
  'url',
  'host',
  'address'
]

/** The job summary as Markdown: what was listed, the token's expiry and subject, the first targets. */
export function renderSummary(
  token: Token,
  from: string,
  listing: Listing | undefined,
  now: number,
  calls?: RoutineResult
): string {
  const lines = ['## Service targets', '']
  const { subject } = token
  const source = { exchange: 'exchanged client credentials', sealed: 'reused a sealed token', input: 'token input' }[
    token.source
  ]
  const expiry =
    token.expiresAtMs === undefined
      ? 'expiry not stated'
      : `expires ${isoSeconds(token.expiresAtMs)} (in ${formatDuration((token.expiresAtMs - now) / 1000)})`
  lines.push(`- **Token**: ${source}; ${expiry}${subject ? `; subject ${cell(subject)}` : ''}`)
  if (calls) lines.push(...callLines(calls))
  if (!listing) {
    lines.push('- **Targets**: not listed (list-targets: false)')
    return redact(lines.join('\n')) + '\n'
  }
  const { shard } = listing
  const counted = shard
    ? `Shard ${shard.index} of ${shard.count}: ${formatCount(listing.count)} of ${formatCount(listing.listed)} targets,`
    : formatCount(listing.count)
  lines.push(`- **Targets**: ${counted} from ${cell(from)}`, '')
  const shown = listing.preview
  const columns = chooseColumns(shown)
  if (shown.length > 0) {
    const header = columns ?? ['target']
    lines.push(`| ${header.map(cell).join(' | ')} |`, `|${header.map(() => ' --- |').join('')}`)
    for (const target of shown) {
      // A target that is not an object shows its value in the first column, the others empty.
      const isObject = !!target && typeof target === 'object' && !Array.isArray(target) && !isRawNumber(target)
      const values = !columns
        ? [target]
        : isObject
          ? columns.map(c => (target as Record<string, unknown>)[c])
          : columns.map((_, i) => (i === 0 ? target : undefined))
      lines.push(`| ${values.map(v => cell(v)).join(' | ')} |`)
    }
    if (listing.count > shown.length) {
      lines.push(
        '',
        `…and ${formatCount(listing.count - shown.length)} more: all ${formatCount(listing.count)} are in the \`targets-file\` output.`
      )
    }
  }
  return redact(lines.join('\n')) + '\n'
}

/** The routine's counts by status, its rate and duration, and up to 50 failures. */
function callLines(calls: RoutineResult): string[] {
  const seconds = calls.durationMs / 1000
  const statuses = [...calls.byStatus].map(([status, n]) => `${cell(status)}: ${formatCount(n)}`).join(', ')
  const lines = [
    `- **Calls**: ${formatCount(calls.calls)} in ${formatDuration(seconds)} (${seconds > 0 ? (calls.calls / seconds).toFixed(0) : calls.calls}/s); ` +
      `${formatCount(calls.succeeded)} succeeded, ${formatCount(calls.failed)} failed${statuses ? ` (${statuses})` : ''}`
  ]
  if (calls.failures.length > 0) {
    lines.push('', '| failed target | status | what the service said |', '| --- | --- | --- |')
    for (const f of calls.failures) lines.push(`| ${cell(f.target)} | ${cell(f.status)} | ${cell(f.said)} |`)
    lines.push('')
  }
  return lines
}

/** Columns from common fields when the targets are objects; undefined for a one-column table. */
export function chooseColumns(targets: readonly unknown[]): string[] | undefined {
  const objects = targets.filter((t): t is Record<string, unknown> => !!t && typeof t === 'object' && !Array.isArray(t))
  if (objects.length === 0) return undefined
  const present = new Set(objects.flatMap(o => Object.keys(o)))
  const preferred = PREFERRED_COLUMNS.filter(c => present.has(c))
  const others = [...present].filter(c => !preferred.includes(c) && objects.some(o => isScalar(o[c])))
  const columns = [...preferred, ...others].slice(0, MAX_COLUMNS)
  // Objects with nothing but nested fields get the one-column table, not a table with no columns.
  return columns.length > 0 ? columns : undefined
}

function isScalar(value: unknown): boolean {
  return value === null || ['string', 'number', 'boolean'].includes(typeof value) || isRawNumber(value)
}

/**
 * A value as inert Markdown text, safe in a table cell: service data (names, ids) must not become a
 * link, an image, emphasis, math or HTML. The characters that start those are backslash-escaped,
 * which CommonMark renders as the character itself; escaping ":" and "@" and the dot of "www."
 * also breaks GitHub's bare-URL and e-mail autolinks. Line breaks become spaces; long values are cut.
 */
export function cell(value: unknown): string {
  // Redacted before escaping, which would hide a secret's text from redact().
  const text = redact(value === undefined ? '' : typeof value === 'string' ? value : JSON.stringify(value))
  // Bidirectional overrides and isolates could make a name read as another: they are dropped.
  const flat = text
    // eslint-disable-next-line no-control-regex
    .replace(/[\s\u0000-\u001f\u007f-\u009f]+/g, ' ')
    .replace(/[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]/g, '')
    .trim()
  const short = flat.length > MAX_CELL ? `${flat.slice(0, MAX_CELL - 1)}…` : flat
  return short.replace(MARKDOWN_SPECIAL, c => `\\${c}`).replace(/(www)\./gi, '$1\\.')
}

/** Inline Markdown's active characters, GitHub's autolink triggers, and the backslash itself. */
export const MARKDOWN_SPECIAL = /[\\`*_[\]()!<>&|~:@$#]/g
