import { excerpt } from '../secrets.js'
import { OperationError } from '../http/operation.js'

/** The listing's action, as its errors name it: "Failed to list targets: …". */
export const LIST_ACTION = 'list targets'

/**
 * What is kept of a page's link to catch loops, whatever its length: a number of 53 bits from two
 * 32-bit hashes of its text (FNV-1a, and a multiply-and-shift). A link listed again always gives its
 * number again; two links give the same one about once in 10^16 pairs, which would stop the listing
 * as a loop. A SHA-1 cost about 5 µs a page in a long listing; this, under 1 µs.
 */
export function linkKey(href: string): number {
  let a = 0x811c9dc5
  let b = 0x9747b28c
  for (let i = 0; i < href.length; i++) {
    const c = href.charCodeAt(i)
    a = Math.imul(a ^ c, 0x01000193)
    b = Math.imul(b ^ c, 0x5bd1e995)
    b ^= b >>> 15
  }
  return (a >>> 0) * 0x200000 + (b >>> 11)
}

/** A longer next-page link is refused: every page's is parsed, hashed and sent whole. */
const MAX_LINK_CHARS = 8 * 1024

/** The next page's URL, noted in `seen`; refused when too long, invalid, off base-url's origin or seen before. */
export function followable(next: string, current: URL, origin: string, seen: Set<number>): URL {
  if (next.length > MAX_LINK_CHARS) {
    throw new OperationError(
      LIST_ACTION,
      `the next-page link is ${next.length} characters long, more than ${MAX_LINK_CHARS}`
    )
  }
  let url: URL
  try {
    url = new URL(next, current)
  } catch {
    throw new OperationError(LIST_ACTION, `the next-page link "${excerpt(next, 200)}" is not a valid URL`)
  }
  if (url.origin !== origin) {
    throw new OperationError(
      LIST_ACTION,
      `the next-page link points to another origin (${url.origin}, not ${origin}); ` +
        'the token is only sent to base-url, so the list cannot be completed.'
    )
  }
  const key = linkKey(url.href)
  if (seen.has(key)) {
    throw new OperationError(
      LIST_ACTION,
      `the next-page link ${excerpt(url.href, 200)} was already listed (a pagination loop).`
    )
  }
  seen.add(key)
  return url
}
