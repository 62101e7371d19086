import type * as http from 'node:http'
import type * as https from 'node:https'
import { isIP } from 'node:net'
import { dropped } from './dropped.js'
import { AttemptError, TransportFailure } from './errors.js'

/**
 * Milliseconds on a monotonic clock. Not performance.now(): its global loads perf_hooks, 2.7 ms of
 * every step's start (docs/performance.md).
 */
function now(): number {
  return Number(process.hrtime.bigint()) / 1e6
}

export interface AttemptRequest {
  readonly method: string
  readonly url: URL
  readonly headers: Readonly<Record<string, string | number>>
  readonly body?: string
  readonly maxBytes: number
  /** Keep only the first keepBytes of the body in memory; the rest is counted as it arrives, and dropped. */
  readonly keepBytes?: number
}

export interface AttemptLimits {
  /** The whole attempt, from connecting to the last byte of the response. */
  readonly timeoutMs: number
  /** The longest silence: until the response starts, and between its chunks. */
  readonly idleMs: number
}

export interface Connection {
  readonly request: typeof http.request
  readonly agent: http.Agent
  /** The proxy the request goes through, for messages: "http://proxy.internal:3128". */
  readonly proxy?: string
}

export interface RawResponse {
  readonly status: number
  readonly headers: http.IncomingHttpHeaders
  readonly body: Buffer
  /** With keepBytes: the whole body's size as it arrived. */
  readonly bodyBytes?: number
  /** With keepBytes: set when `body` is only the first keepBytes of it. */
  readonly truncated?: true
}

const TLS_TRUST_CODES = new Set([
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_UNTRUSTED',
  'CERT_SIGNATURE_FAILURE'
])

const NOT_TLS = /wrong version number|packet length too long|unknown protocol|http request/i

/**
 * One request on the wire: deadlines for the whole attempt and for silence, a cap on the body,
 * and no redirect followed. Rejects with an AttemptError, whose failure says what happened.
 */
export function attempt(request: AttemptRequest, connection: Connection, limits: AttemptLimits): Promise<RawResponse> {
  const { url, maxBytes, body } = request
  const keepBytes = request.keepBytes ?? Infinity
  const { timeoutMs, idleMs } = limits
  return new Promise((resolve, reject) => {
    let settled = false
    const fail = (failure: TransportFailure): void => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      req.destroy()
      reject(new AttemptError(failure))
    }
    // One timer per attempt, whichever deadline is nearer: a routine makes thousands of attempts,
    // and activity only notes the time instead of re-arming a timer for every chunk.
    const startedAt = now()
    let activeAt = startedAt
    const watch = (): void => {
      const at = now()
      const left = startedAt + timeoutMs - at
      if (left <= 0) return fail({ kind: 'timeout', ms: timeoutMs })
      // The idle limit only matters when it is shorter than the whole attempt's.
      const idleLeft = idleMs < timeoutMs ? activeAt + idleMs - at : Infinity
      if (idleLeft <= 0) return fail({ kind: 'idle', ms: idleMs })
      timer = setTimeout(watch, Math.ceil(Math.min(left, idleLeft)))
    }
    const req = connection.request(requestOptions(request.method, url, request.headers, connection.agent), res => {
      activeAt = now()
      const status = res.statusCode ?? 0
      if (status >= 300 && status < 400 && res.headers.location) {
        res.resume()
        fail({ kind: 'redirect', status, location: resolved(res.headers.location, url) })
        return
      }
      if (Number(res.headers['content-length']) > maxBytes) {
        fail({ kind: 'too-large', maxBytes })
        return
      }
      const chunks: Buffer[] = []
      let size = 0
      let kept = 0
      res.on('data', (chunk: Buffer) => {
        activeAt = now()
        size += chunk.length
        if (size > maxBytes) return fail({ kind: 'too-large', maxBytes })
        if (kept >= keepBytes) return dropped.note(chunk.length)
        // The part kept of the chunk that crosses keepBytes is copied: a view would hold all of it.
        const part = kept + chunk.length > keepBytes ? Buffer.from(chunk.subarray(0, keepBytes - kept)) : chunk
        if (part !== chunk) dropped.note(chunk.length - part.length)
        chunks.push(part)
        kept += part.length
      })
      res.on('end', () => {
        if (settled) return
        settled = true
        clearTimeout(timer)
        const body = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, kept)
        if (request.keepBytes === undefined) resolve({ status, headers: res.headers, body })
        else if (size > kept) resolve({ status, headers: res.headers, body, bodyBytes: size, truncated: true })
        else resolve({ status, headers: res.headers, body, bodyBytes: size })
      })
      res.on('error', err => fail(socketFailure(err, url, connection.proxy)))
      res.on('aborted', () => fail({ kind: 'aborted' }))
    })
    let timer = setTimeout(watch, Math.min(idleMs, timeoutMs))
    req.on('error', err => fail(socketFailure(err, url, connection.proxy)))
    req.end(body)
  })
}

/**
 * http.request's options: where the request goes, as it would derive them from the URL itself. The
 * headers go as a list, Host first, as Node would write them: given as an object, each is set,
 * validated and stored in a table of its own before the table is written out, which cost more per
 * request than all the routine's own bookkeeping of a call (docs/performance.md).
 */
function requestOptions(
  method: string,
  url: URL,
  headers: AttemptRequest['headers'],
  agent: http.Agent
): https.RequestOptions {
  // An IPv6 literal without its brackets, as a socket wants it.
  const { hostname: name } = url
  const hostname = name.startsWith('[') ? name.slice(1, -1) : name
  const list = ['Host', url.host]
  for (const name in headers) list.push(name, String(headers[name]))
  return {
    protocol: url.protocol,
    hostname,
    // The name TLS asks for (SNI), none for an address: what the agent would work out from Host.
    servername: isIP(hostname) ? '' : hostname,
    port: url.port || undefined,
    path: `${url.pathname}${url.search}`,
    method,
    headers: list,
    agent
  }
}

/** A Location as an absolute URL when it is one relative to the request, else as given. */
function resolved(location: string, base: URL): string {
  try {
    return new URL(location, base).href
  } catch {
    return location
  }
}

function socketFailure(err: Error & { code?: string }, url: URL, proxy: string | undefined): TransportFailure {
  const code = err.code ?? 'ERROR'
  if (TLS_TRUST_CODES.has(code)) return { kind: 'tls-untrusted', code }
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID' || code === 'CERT_HAS_EXPIRED') {
    return { kind: 'tls-invalid', code, detail: err.message }
  }
  if (code === 'ENOTFOUND') return { kind: 'dns', hostname: url.hostname }
  // OpenSSL reading an answer that is not a TLS record: plain HTTP, or another protocol.
  const notTls = url.protocol === 'https:' && NOT_TLS.exec(err.message)
  if (notTls) return { kind: 'not-tls', reason: notTls[0] }
  return { kind: 'network', code, detail: err.message, proxy }
}
