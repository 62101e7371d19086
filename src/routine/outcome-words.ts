import { formatCount } from '../format.js'

/** What the progress line, the step's error and both summaries call each outcome, in their order. */
const WORDS: readonly (readonly [string, string])[] = [
  ['succeeded', 'succeeded'],
  ['failed', 'failed'],
  ['unknown', 'unknown'],
  ['not-made', 'not made'],
  ['missing', 'missing'],
  ['skipped', 'skipped (done in an earlier attempt)'],
  ['planned', 'planned']
]

/** The outcomes of targets that were not done: what a re-run makes again. */
export const NOT_DONE: readonly string[] = ['failed', 'unknown', 'not-made', 'missing']

/**
 * "488 succeeded, 3 failed, 9 not made": the counts by outcome, zeros left out. The one tally every
 * message is made from, so that the progress line, the verdict and the summaries never disagree;
 * `failedByStatus` adds "(HTTP 500: 3)" after the failed count. "no target" when all are zero.
 */
export function outcomeWords(
  counts: ReadonlyMap<string, number>,
  failedByStatus?: ReadonlyMap<string, number>
): string {
  const parts: string[] = []
  for (const [outcome, word] of WORDS) {
    const n = counts.get(outcome) ?? 0
    if (n === 0) continue
    const statuses = outcome === 'failed' && failedByStatus ? statusesText(failedByStatus) : ''
    parts.push(`${formatCount(n)} ${word}${statuses}`)
  }
  return parts.length > 0 ? parts.join(', ') : 'no target'
}

/** How many targets the counts hold that were not done. */
export function notDoneCount(counts: ReadonlyMap<string, number>): number {
  return NOT_DONE.reduce((sum, outcome) => sum + (counts.get(outcome) ?? 0), 0)
}

/** " (HTTP 500: 3, HTTP 503: 1)", most first; empty for no status. */
function statusesText(byStatus: ReadonlyMap<string, number>): string {
  const sorted = [...byStatus].filter(([, n]) => n > 0).sort((a, b) => b[1] - a[1])
  return sorted.length === 0 ? '' : ` (${sorted.map(([s, n]) => `${s}: ${formatCount(n)}`).join(', ')})`
}

/** "1 call", "3 calls": a count with its noun. */
export function counted(n: number, noun: string): string {
  return `${formatCount(n)} ${noun}${n === 1 ? '' : 's'}`
}
