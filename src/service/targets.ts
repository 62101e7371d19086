import { Bearer } from '../auth/bearer.js'
import { Transport } from '../http/client.js'
import { MAX_TARGET_DEPTH, Measured, parseMeasured } from '../json.js'
import { listText } from './list-text.js'
import { excerpt, holdsOnly, holdsSecret, secretPath } from '../secrets.js'
import { joinPath } from '../url.js'
import { followable, LIST_ACTION as ACTION, linkKey } from './next-link.js'
import { OperationError, perform, ResponseError } from '../http/operation.js'

const MAX_PAGE_BYTES = 100 * 1024 * 1024
const LIST_KEYS = ['targets', 'data', 'items', 'results'] as const
const ARRAY_START = /^\s*\[/

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
        if (holdsSecret(text, token)) throw echoed(text, token, page)
        const body = parseTargetsBody(text, page)
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
function echoed(text: string, token: string, page: number): ResponseError {
  const what = holdsOnly(text, token)
    ? 'the bearer token'
    : 'a secret of this step other than its bearer token (the client secret or private key, a client assertion, an ID token, an earlier token)'
  const path = secretPath(parseTargetsBody(text, page).targets, 'targets', token)
  return new ResponseError(
    `the service's response holds ${what}${path ? ` at ${path}` : ''}; it is never written to targets or ` +
      'targets-file. Ask the service operator why it echoes credentials.'
  )
}

function headerText(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(', ') : value
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

/**
 * A targets body: a JSON array, or an object holding the array under targets, data, items or
 * results; refused when it nests deeper than a targets file may (`page` names it in the error).
 */
export function parseTargetsBody(text: string, page = 1): TargetsPage {
  let parsed: Measured
  // A target in an array stands at level 2 of the page; in an object's array, at level 3.
  const maxDepth = MAX_TARGET_DEPTH + (ARRAY_START.test(text) ? 1 : 2)
  try {
    parsed = parseMeasured(text, maxDepth)
  } catch {
    throw new ResponseError(`the service's response is not valid JSON: "${excerpt(text, 120)}"`)
  }
  if (parsed.deeper) {
    throw new ResponseError(
      `page ${page} of the list nests JSON more than ${MAX_TARGET_DEPTH} levels deep, the most a targets file ` +
        'may (deeper would overflow the stack of later steps). Ask the service operator to nest its answers less deeply.'
    )
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
