import { Token } from '../auth/token.js'
import { formatCount, formatDuration, isoSeconds } from '../format.js'
import { isRawNumber } from '../json.js'
import { redact } from '../secrets.js'
import { cell } from './cells.js'
import { Listing } from '../targets/file.js'
import { isTargetObject } from '../targets/key.js'

const MAX_COLUMNS = 5
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

/**
 * A routine's part of the summary, given the line that says which targets were chosen: routineHead
 * in report/routine-summary.ts, which a step loads with its routine only.
 */
export type RoutineHead = (targets: string | undefined) => string[]

/** The job summary as Markdown: what was listed, the token's expiry and subject, the first targets. */
export function renderSummary(
  token: Token,
  from: string,
  listing: Listing | undefined,
  now: number,
  routine?: RoutineHead
): string {
  // A routine's outcome leads; the targets come after it, folded.
  const targets = listing && (listing.where !== undefined || listing.shard) ? chosenText(listing) : undefined
  const lines = routine ? routine(targets) : ['## Service targets', '']
  const { subject } = token
  const source = { exchange: 'exchanged client credentials', sealed: 'reused a sealed token', input: 'token input' }[
    token.source
  ]
  const expiry =
    token.expiresAtMs === undefined
      ? 'expiry not stated'
      : `expires ${isoSeconds(token.expiresAtMs)} (in ${formatDuration((token.expiresAtMs - now) / 1000)})`
  lines.push(`- **Token**: ${source}; ${expiry}${subject ? `; subject ${cell(subject)}` : ''}`)
  if (!listing) {
    lines.push('- **Targets**: not listed (list-targets: false)')
    return redact(lines.join('\n')) + '\n'
  }
  const { shard } = listing
  const selected =
    listing.where === undefined
      ? undefined
      : `${formatCount(listing.selected)} of ${formatCount(listing.listed)} selected by ${cell(listing.where, 200)}`
  const counted = shard
    ? `Shard ${shard.index} of ${shard.count}: ${formatCount(listing.count)} of ${formatCount(listing.selected)} targets${selected ? ` (${selected})` : ''},`
    : (selected ?? formatCount(listing.count))
  lines.push(`- **Targets**: ${counted}${selected && !shard ? ',' : ''} from ${cell(from)}`, '')
  const shown = listing.preview
  const columns = chooseColumns(shown)
  if (shown.length > 0) {
    // Beside a routine, a target's own "status" field must not read as a call's status.
    const header = (columns ?? ['target']).map(c => (routine && columns ? `target ${c}` : c))
    if (routine) lines.push('<details><summary>The targets</summary>', '')
    lines.push(`| ${header.map(c => cell(c)).join(' | ')} |`, `|${header.map(() => ' --- |').join('')}`)
    for (const target of shown) {
      // A target that is not an object shows its value in the first column, the others empty.
      const values = !columns
        ? [target]
        : isTargetObject(target)
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
    if (routine) lines.push('', '</details>')
  }
  return redact(lines.join('\n')) + '\n'
}

/** Columns from common fields when the targets are objects; undefined for a one-column table. */
export function chooseColumns(targets: readonly unknown[]): string[] | undefined {
  const objects = targets.filter(isTargetObject)
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

/** "40 of 500 selected by `status == "retired"`; shard 1 of 3 (13)": how a plan's targets were chosen. */
function chosenText(listing: Listing): string {
  const parts: string[] = []
  if (listing.where !== undefined) {
    parts.push(
      `${formatCount(listing.selected)} of ${formatCount(listing.listed)} selected by ${cell(listing.where, 200)}`
    )
  }
  if (listing.shard)
    parts.push(`shard ${listing.shard.index} of ${listing.shard.count} (${formatCount(listing.count)})`)
  return parts.join('; ')
}
