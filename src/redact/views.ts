import { decode, mayBeEncoded, sourceSpan } from './decode.js'
import { Fragments } from './fragments.js'

/**
 * A text seen through normalising views, each searched for the secrets' fragments: the text as it
 * is, and up to three layers of percent-encoding, HTML references and JSON/JS escapes undone (JSON
 * in a JSON string, &amp;#39;). Base64 and hex need no view: the secrets' base64 and hex forms are
 * searched for in each (fragments.ts). A match in any view is mapped back to the span of the text it came from.
 */

const MAX_LAYERS = 3

type ToText = (from: number, to: number) => [number, number]

/**
 * The spans of `text` (start, end pairs, unordered, overlapping) that hold a secret in any view;
 * with `longOnly`, a secret of MIN_RUN characters or more only.
 */
export function secretSpans(text: string, fragments: Fragments, first = false, longOnly = false): number[] {
  const spans: number[] = []
  fragments.find(text, spans, first, longOnly)
  // Most texts hold no %, & or \: they are their only view.
  if ((first && spans.length > 0) || !mayBeEncoded(text)) return spans
  let view = text
  let toText: ToText = (from, to) => [from, to]
  for (let layer = 1; layer <= MAX_LAYERS && mayBeEncoded(view); layer++) {
    const decoded = decode(view)
    if (decoded === view) break
    const [encoded, outer] = [view, toText]
    toText = (from, to) => outer(...sourceSpan(encoded, from, to))
    view = decoded
    const found: number[] = []
    fragments.find(view, found, first, longOnly)
    for (let k = 0; k < found.length; k += 2) spans.push(...toText(found[k], found[k + 1]))
    if (first && spans.length > 0) break
  }
  return spans
}

/** The text with every span replaced by `***`, overlapping ones merged. */
export function withoutSpans(text: string, spans: number[]): string {
  const pairs: [number, number][] = []
  for (let k = 0; k < spans.length; k += 2) pairs.push([spans[k], spans[k + 1]])
  pairs.sort((a, b) => a[0] - b[0])
  let out = ''
  let at = -1 // the end of the last span written
  for (const [start, end] of pairs) {
    if (start > at) {
      out += `${text.slice(Math.max(at, 0), start)}***`
      at = end
    } else at = Math.max(at, end)
  }
  return out + text.slice(Math.max(at, 0))
}
