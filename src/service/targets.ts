import { Bearer } from '../auth/bearer.js'
import { Transport } from '../http/client.js'
import { Measured, parseMeasured } from '../json.js'
import { listText } from './list-text.js'
import { excerpt, holdsOnly, holdsSecret, secretPath } from '../secrets.js'
import { joinPath } from '../url.js'
import { OperationError, perform, ResponseError } from '../http/operation.js'

const MAX_PAGE_BYTES = 100 * 1024 * 1024
const ACTION = 'list targets'
const LIST_KEYS = ['targets', 'data', 'items', 'results'] as const

export interface ListOptions {
  readonly baseUrl: URL
  /** The bearer token of each page: renewed as it nears expiry, recovered once after a 401. */
  readonly bearer: Pick<Bearer, 'current' | 'recover'>
  readonly maxPages: number
  /** Receives each page's targets as it arrives (and their JSON: TargetsPage); never the whole list. */
  readonly onTargets: (targets: unknown[], json?: string) => void
  /** Called after each page with its number, the targets on it and the total so far. */
  readonly onPage?: (page: number, count: number, total: number, more: boolean) => void
}

/**
 * GET {base-url}/v1/targets, following same-origin next links (Link header or body `next`) to the
 * end; returns how many targets were listed.
 */
export async function listTargets(http: Transport, options: ListOptions): Promise<number> {
  let total = 0
  const first = joinPath(options.baseUrl, 'v1/targets')
  const seen = new Set<number>([linkKey(first.href)])
  const { origin } = options.baseUrl
  const fetchPage = (page: number, url: URL, token: string) =>
    perform(http, {
      action: ACTION,
      request: {
        method: 'GET',
        url,
        headers: { Accept: 'application/json', Authorization: `Bearer ${token}` },
        maxBytes: MAX_PAGE_BYTES,
        label: page === 1 ? 'targets request' : `targets request (page ${page})`
      },
      redirect: 'the bearer token is never sent to an address it was not configured for',
      urlInput: 'base-url',
      advice: status => adviceFor(status, options.baseUrl, url),
      parse: res => {
        const text = res.body.toString('utf8')
        // A secret of the step echoed into target data, in any form redaction finds (raw, escaped,
        // base64, hex, 12 characters of it), would be written to targets and targets-file: the
        // token of this page, and every other one registered (the client secret, the Basic pair, a
        // private key's lines, a client assertion, the GitHub ID token, a token before a renewal).
        if (holdsSecret(text, token)) throw echoed(text, token)
        const body = parseTargetsBody(text)
        const next = nextFromLinkHeader(headerText(res.headers.link)) ?? body.next
        return { targets: body.targets, json: body.json, next }
      }
    })
  const fetchAt = async (page: number, url: URL) => {
    const token = await options.bearer.current()
    return fetchPage(page, url, token).catch(async (err: unknown) => {
      const fresh =
        err instanceof OperationError && err.status === 401 ? await options.bearer.recover(token) : undefined
      if (fresh === undefined) throw err
      return fetchPage(page, url, fresh)
    })
  }
  let current: URL | undefined = first
  let pending = fetchAt(1, first)
  for (let page = 1; current; page++) {
    const { targets, json, next } = await pending
    total += targets.length
    let url: URL | undefined
    try {
      url = next === undefined ? undefined : followable(next, current, origin, seen)
    } catch (err) {
      options.onTargets(targets, json)
      throw err
    }
    if (url && page < options.maxPages) {
      // The next page is asked for before this one's targets are written, and the request is let
      // out first: the service answers it while the step encodes, hashes and writes them. One
      // request is in flight at a time, as before. One the step abandons when this page fails is
      // a GET, and the client sends no attempt once disposed.
      pending = fetchAt(page + 1, url)
      pending.catch(() => undefined)
      await new Promise(resolve => setImmediate(resolve))
    }
    options.onTargets(targets, json)
    options.onPage?.(page, targets.length, total, url !== undefined)
    if (url && page >= options.maxPages) {
      throw new OperationError(
        ACTION,
        `the list has more than max-pages (${options.maxPages}) pages; ${total} targets so far. Raise max-pages to list them all.`
      )
    }
    current = url
  }
  return total
}

/** The failure of a page that holds a secret: which secret it is and where, never its text. */
function echoed(text: string, token: string): ResponseError {
  const what = holdsOnly(text, token)
    ? 'the bearer token'
    : 'a secret of this step other than its bearer token (the client secret or private key, a client assertion, an ID token, an earlier token)'
  const path = secretPath(parseTargetsBody(text).targets, 'targets', token)
  return new ResponseError(
    `the service's response holds ${what}${path ? ` at ${path}` : ''}; it is never written to targets or ` +
      'targets-file. Ask the service operator why it echoes credentials.'
  )
}

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

function headerText(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(', ') : value
}

/** A longer next-page link is refused: every page's is parsed, hashed and sent whole. */
const MAX_LINK_CHARS = 8 * 1024

/** The next page's URL, noted in `seen`; refused when too long, invalid, off base-url's origin or seen before. */
function followable(next: string, current: URL, origin: string, seen: Set<number>): URL {
  if (next.length > MAX_LINK_CHARS) {
    throw new OperationError(
      ACTION,
      `the next-page link is ${next.length} characters long, more than ${MAX_LINK_CHARS}`
    )
  }
  let url: URL
  try {
    url = new URL(next, current)
  } catch {
    throw new OperationError(ACTION, `the next-page link "${excerpt(next, 200)}" is not a valid URL`)
  }
  if (url.origin !== origin) {
    throw new OperationError(
      ACTION,
      `the next-page link points to another origin (${url.origin}, not ${origin}); ` +
        'the token is only sent to base-url, so the list cannot be completed.'
    )
  }
  const key = linkKey(url.href)
  if (seen.has(key)) {
    throw new OperationError(
      ACTION,
      `the next-page link ${excerpt(url.href, 200)} was already listed (a pagination loop).`
    )
  }
  seen.add(key)
  return url
}

function adviceFor(status: number, baseUrl: URL, requested: URL): string {
  switch (status) {
    case 401:
      return 'The service refused the token: it may be expired, or issued for another audience or tenant. Check the audience and base-url inputs.'
    case 403:
      return "The token is valid but the organisation's bot user may not list targets: add the bot user to a group with that access."
    case 404:
      return /\/v1$/.test(baseUrl.pathname)
        ? `The request went to ${requested.origin}${requested.pathname}: base-url (${baseUrl.href}) already ends in /v1, which the action appends. Drop /v1 from base-url.`
        : `Check base-url (${baseUrl.href}): targets are listed at {base-url}/v1/targets (requested ${requested.origin}${requested.pathname}).`
    case 429:
      return 'The service is rate-limiting requests: re-run later.'
    default:
      return status >= 500 ? 'The service failed: re-run later.' : 'Check the base-url input.'
  }
}

export interface TargetsPage {
  readonly targets: unknown[]
  readonly next?: string
  /** JSON.stringify(targets), byte for byte, when the response holds it as it is (listText). */
  readonly json?: string
}

/** A targets body: a JSON array, or an object holding the array under targets, data, items or results. */
export function parseTargetsBody(text: string): TargetsPage {
  let parsed: Measured
  try {
    parsed = parseMeasured(text)
  } catch {
    throw new ResponseError(`the service's response is not valid JSON: "${excerpt(text, 120)}"`)
  }
  const json = parsed.value
  if (Array.isArray(json)) return { targets: json, json: listText(text, parsed.length) }
  if (json && typeof json === 'object') {
    const body = json as Record<string, unknown>
    const key = LIST_KEYS.find(k => Array.isArray(body[k]))
    if (key) {
      const next = body.next
      if (next !== undefined && next !== null && typeof next !== 'string') {
        throw new ResponseError("the service's response has a next field that is not a URL string")
      }
      const targets = body[key] as unknown[]
      return { targets, next: next || undefined, json: listText(text, parsed.length, body, key) }
    }
    const keys = Object.keys(body).slice(0, 10).join(', ')
    throw new ResponseError(
      `the service's response is a JSON object without a ${LIST_KEYS.join(', ')} array (its keys: ${excerpt(keys, 200) || 'none'})`
    )
  }
  throw new ResponseError(
    `the service's response is JSON ${json === null ? 'null' : typeof json}, not a list of targets`
  )
}

/** The rel="next" target of an RFC 8288 Link header, if any. */
export function nextFromLinkHeader(header: string | undefined): string | undefined {
  if (!header) return undefined
  let i = 0
  while (i < header.length) {
    const open = header.indexOf('<', i)
    const close = open < 0 ? -1 : header.indexOf('>', open)
    if (close < 0) return undefined
    // The link's parameters run to the next comma outside a quoted string.
    let end = close + 1
    for (let quoted = false; end < header.length && (quoted || header[end] !== ','); end++) {
      if (header[end] === '"') quoted = !quoted
    }
    for (const param of header.slice(close + 1, end).split(';')) {
      const eq = param.indexOf('=')
      if (eq < 0 || param.slice(0, eq).trim().toLowerCase() !== 'rel') continue
      const rels = param
        .slice(eq + 1)
        .trim()
        .replace(/^"|"$/g, '')
        .toLowerCase()
        .split(/\s+/)
      if (rels.includes('next')) return header.slice(open + 1, close).trim()
    }
    i = end + 1
  }
  return undefined
}
