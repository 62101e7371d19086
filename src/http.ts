import * as http from 'node:http'
import { getProxyUrl, ProxyAgents } from './proxy.js'
import { formatBytes } from './format.js'
import { parseJsonObject } from './json.js'
import { excerpt, redact } from './secrets.js'

export interface HttpRequest {
  readonly method: 'GET' | 'POST'
  readonly url: URL
  readonly headers: Readonly<Record<string, string>>
  /** A function gives a fresh body for every attempt (a client assertion may be used only once). */
  readonly body?: string | (() => string)
  /** Why a redirect of this request is refused, for the error: "the bearer token is …". */
  readonly noRedirect: string
  /** The request in retry lines: "token request", "targets request (page 2)". */
  readonly what: string
  /** What fails when it fails, after "Failed to": "exchange client credentials for a token". */
  readonly action: string
  readonly maxBytes: number
}

export interface HttpResponse {
  readonly status: number
  readonly headers: http.IncomingHttpHeaders
  readonly body: Buffer
  readonly attempts: number
}

export interface HttpOptions {
  /** The whole of one attempt, from connecting to the last byte of the response. */
  readonly timeoutMs: number
  /** The longest silence within an attempt: until the response starts, and between its chunks. */
  readonly idleTimeoutMs?: number
  readonly maxAttempts: number
  readonly userAgent: string
  readonly info: (message: string) => void
  readonly debug: (message: string) => void
  readonly sleep?: (ms: number) => Promise<void>
  readonly random?: () => number
  readonly now?: () => number
}

const RETRIED_STATUSES = new Set([408, 429, 500, 502, 503, 504])
const RETRIED_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EAI_AGAIN',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'ATTEMPT_TIMEOUT',
  'IDLE_TIMEOUT'
])
const TLS_TRUST_CODES = new Set([
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_UNTRUSTED',
  'CERT_SIGNATURE_FAILURE'
])
export const MAX_SERVER_WAIT_MS = 60_000
/**
 * The failure policy, chosen so that with the default inputs a server that never answers fails a
 * request within about 50 s, a 15 s outage is ridden out and one that lasts fails within about 45 s
 * (README, "What happens when…"; bench/faults.js measures it).
 */
export const IDLE_TIMEOUT_MS = 10_000
/** Backoff before attempt n+1: BASE * 2^(n-1), capped, then scaled by a random factor in [1/2, 1]. */
export const BACKOFF_BASE_MS = 1_500
export const BACKOFF_CAP_MS = 20_000
/** No retry starts later than this after a request's first attempt began (the second attempt always may). */
export const RETRY_WINDOW_MS = 45_000

/** One request path for every call the action makes: timeout, size cap, redirects, retries. */
export class Http {
  private readonly direct = new Map<string, http.Agent>()
  private readonly proxied: ProxyAgents
  private readonly sleep: (ms: number) => Promise<void>
  private readonly random: () => number
  private readonly now: () => number

  constructor(private readonly options: HttpOptions) {
    this.sleep = options.sleep ?? (ms => new Promise(resolve => setTimeout(resolve, ms)))
    this.random = options.random ?? Math.random
    this.now = options.now ?? Date.now
    this.proxied = new ProxyAgents(options.userAgent)
  }

  async send(request: HttpRequest): Promise<HttpResponse> {
    const { maxAttempts } = this.options
    const first = this.now()
    for (let attempt = 1; ; attempt++) {
      const started = this.now()
      let reason: string
      let serverWaitMs: number | undefined
      let last: HttpResponse | undefined
      try {
        const res = await this.attempt(request)
        this.options.debug(
          `${request.method} ${redact(originAndPath(request.url))} -> ${res.status} in ${this.now() - started} ms (attempt ${attempt}/${maxAttempts})`
        )
        last = { ...res, attempts: attempt }
        if (!RETRIED_STATUSES.has(res.status) || attempt >= maxAttempts) return last
        reason = `HTTP ${statusText(res.status)}`
        serverWaitMs = serverRequestedWait(res.headers, this.now())
        if (serverWaitMs !== undefined && serverWaitMs > MAX_SERVER_WAIT_MS) {
          const at = new Date(this.now() + serverWaitMs).toISOString()
          throw new Error(
            `Failed to ${request.action}: ${request.url.host} answered HTTP ${statusText(res.status)} and asks to retry ` +
              `in ${Math.ceil(serverWaitMs / 1000)} s, longer than this step waits (${MAX_SERVER_WAIT_MS / 1000} s). Re-run after ${at}.`
          )
        }
      } catch (err) {
        if (!(err instanceof AttemptError)) throw err
        this.options.debug(
          `${request.method} ${redact(originAndPath(request.url))} failed after ${this.now() - started} ms: ${err.code} (attempt ${attempt}/${maxAttempts})`
        )
        if (!err.retryable || attempt >= maxAttempts) throw attemptFailure(request, err, attempt)
        reason = err.message
      }
      const waitMs = serverWaitMs ?? this.backoff(attempt)
      // A wait the server asked for is honoured as it is (up to MAX_SERVER_WAIT_MS); our own backoff
      // stops at the retry window, so that a service that stays down fails the step in bounded time.
      const outOfWindow = serverWaitMs === undefined && attempt > 1 && this.now() + waitMs - first > RETRY_WINDOW_MS
      if (outOfWindow) {
        const why = `retries stop ${RETRY_WINDOW_MS / 1000} s after the first attempt`
        if (last) return last
        throw attemptFailure(request, new AttemptError('GAVE_UP', `${reason}; ${why}`, false), attempt)
      }
      this.options.info(
        `The ${request.what} failed on attempt ${attempt} of ${maxAttempts} (${reason}); retrying in ${(waitMs / 1000).toFixed(1)} s`
      )
      await this.sleep(waitMs)
    }
  }

  /** Exponential backoff with "equal jitter": never less than half the step, so retries spread over time. */
  private backoff(attempt: number): number {
    const step = Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** (attempt - 1))
    return Math.round(step / 2 + (this.random() * step) / 2)
  }

  dispose(): void {
    for (const agent of this.direct.values()) agent.destroy()
    this.direct.clear()
    this.proxied.dispose()
  }

  /** https (and so tls) is loaded only when a URL needs it: about 7 ms of every cold start otherwise. */
  private async transport(url: URL): Promise<{ request: typeof http.request; agent: http.Agent }> {
    const secure = url.protocol === 'https:'
    const module = secure ? await import('node:https') : http
    if (getProxyUrl(url)) return { request: module.request, agent: this.proxied.agentFor(url) }
    let agent = this.direct.get(url.protocol)
    if (!agent) {
      agent = new module.Agent({ keepAlive: true })
      this.direct.set(url.protocol, agent)
    }
    return { request: module.request, agent }
  }

  private async attempt(request: HttpRequest): Promise<Omit<HttpResponse, 'attempts'>> {
    const { url, maxBytes } = request
    const { request: send, agent } = await this.transport(url)
    const headers: Record<string, string | number> = {
      'User-Agent': this.options.userAgent,
      ...request.headers
    }
    const body = typeof request.body === 'function' ? request.body() : request.body
    if (body !== undefined) headers['Content-Length'] = Buffer.byteLength(body)

    const { timeoutMs } = this.options
    const idleMs = Math.min(this.options.idleTimeoutMs ?? IDLE_TIMEOUT_MS, timeoutMs)
    return new Promise((resolve, reject) => {
      let settled = false
      const fail = (err: AttemptError): void => {
        if (settled) return
        settled = true
        clearTimeout(timer)
        clearTimeout(idle)
        req.destroy()
        reject(err)
      }
      const req = send(url, { method: request.method, headers, agent }, res => {
        idle?.refresh()
        const status = res.statusCode ?? 0
        if (status >= 300 && status < 400 && res.headers.location) {
          res.resume()
          fail(redirectError(request, status, res.headers.location))
          return
        }
        const declared = Number(res.headers['content-length'])
        if (declared > maxBytes) {
          fail(tooLarge(maxBytes))
          return
        }
        const chunks: Buffer[] = []
        let size = 0
        res.on('data', (chunk: Buffer) => {
          idle?.refresh()
          size += chunk.length
          if (size > maxBytes) fail(tooLarge(maxBytes))
          else chunks.push(chunk)
        })
        res.on('end', () => {
          if (settled) return
          settled = true
          clearTimeout(timer)
          clearTimeout(idle)
          resolve({ status, headers: res.headers, body: Buffer.concat(chunks, size) })
        })
        res.on('error', err => fail(networkError(err, url)))
        res.on('aborted', () =>
          fail(new AttemptError('ECONNRESET', 'the connection closed before the response ended', true))
        )
      })
      const timer = setTimeout(
        () =>
          fail(
            new AttemptError(
              'ATTEMPT_TIMEOUT',
              `no complete response within ${timeoutMs / 1000} s (timeout-seconds)`,
              true
            )
          ),
        timeoutMs
      )
      // The idle limit only matters when it is shorter than the whole attempt's.
      const idle =
        idleMs < timeoutMs
          ? setTimeout(
              () => fail(new AttemptError('IDLE_TIMEOUT', `the server sent nothing for ${idleMs / 1000} s`, true)),
              idleMs
            )
          : undefined
      req.on('error', err => fail(networkError(err, url)))
      req.end(body)
    })
  }
}

class AttemptError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly retryable: boolean
  ) {
    super(message)
  }
}

function attemptFailure(request: HttpRequest, err: AttemptError, attempts: number): Error {
  const tries = attempts > 1 ? ` (after ${attempts} attempts)` : ''
  return new Error(
    `Failed to ${request.action}: ${request.method} ${origin(request.url)} failed${tries}: ${err.message}`,
    {
      cause: err
    }
  )
}

/** A URL as messages show it: no query, which may hold a key (…/token?subscription-key=…). */
export function originAndPath(url: URL): string {
  return `${url.origin}${url.pathname}`
}

function origin(url: URL): string {
  return `${url.protocol}//${url.host}`
}

function redirectError(request: HttpRequest, status: number, location: string): AttemptError {
  let target = location
  try {
    target = new URL(location, request.url).href
  } catch {
    // quote it as given
  }
  return new AttemptError(
    'REDIRECT',
    `the server redirected it (HTTP ${status}) to ${excerpt(target, 200)}; ${request.noRedirect}. Set the input to the address the redirect points at, if you trust it.`,
    false
  )
}

function tooLarge(maxBytes: number): AttemptError {
  return new AttemptError('TOO_LARGE', `the response is larger than ${formatBytes(maxBytes)}; refused`, false)
}

function networkError(err: Error & { code?: string }, url: URL): AttemptError {
  const code = err.code ?? 'ERROR'
  if (TLS_TRUST_CODES.has(code)) {
    return new AttemptError(
      code,
      `the TLS certificate of ${url.host} is not trusted by this machine (${code}). ` +
        'If it is issued by an internal CA, set NODE_EXTRA_CA_CERTS to the path of that CA certificate (PEM) in the job env.',
      false
    )
  }
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID' || code === 'CERT_HAS_EXPIRED') {
    return new AttemptError(code, `the TLS certificate of ${url.host} is not valid (${code}): ${err.message}`, false)
  }
  if (code === 'ENOTFOUND') {
    return new AttemptError(
      code,
      `the host ${url.hostname} could not be resolved (ENOTFOUND); check the URL input`,
      false
    )
  }
  const proxy = getProxyUrl(url)
  const via = proxy ? ` through the proxy ${proxy.protocol}//${proxy.host}` : ''
  return new AttemptError(code, `${err.message || code}${via}`, RETRIED_CODES.has(code))
}

/** The wait a 429/503 asks for: Retry-After (seconds or HTTP date) or Auth0's x-ratelimit-reset (UNIX time). */
export function serverRequestedWait(headers: http.IncomingHttpHeaders, now: number): number | undefined {
  const retryAfter = single(headers['retry-after'])
  if (retryAfter !== undefined) {
    const wait = parseRetryAfter(retryAfter, now)
    if (wait !== undefined) return wait
  }
  const reset = single(headers['x-ratelimit-reset'])
  if (reset !== undefined && /^\s*\d{1,12}\s*$/.test(reset)) return Math.max(0, Number(reset) * 1000 - now)
  return undefined
}

export function parseRetryAfter(value: string, now: number): number | undefined {
  const text = value.trim()
  if (/^\d{1,10}$/.test(text)) return Number(text) * 1000
  if (!/^[A-Za-z]{3}, \d{2} [A-Za-z]{3} \d{4} \d{2}:\d{2}:\d{2} GMT$/.test(text)) return undefined
  const at = Date.parse(text)
  return Number.isNaN(at) ? undefined : Math.max(0, at - now)
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value
}

/** The standard reason phrase for a status, for messages. */
function statusText(status: number): string {
  const text = http.STATUS_CODES[status]
  return text ? `${status} ${text}` : String(status)
}

/**
 * The error for a response the caller cannot use: what failed, the status, what the server
 * said (its error fields, else a short redacted excerpt), and what to do about it.
 */
export function statusError(request: HttpRequest, res: HttpResponse, advice: string): Error {
  const said = serverSaid(res.body)
  const tries = res.attempts > 1 ? ` after ${res.attempts} attempts` : ''
  return new Error(
    `Failed to ${request.action}: ${request.url.host} answered HTTP ${statusText(res.status)}${tries}${said ? ` (${said})` : ''}. ${advice}`
  )
}

function serverSaid(body: Buffer): string {
  const text = body.toString('utf8')
  const fields = parseJsonObject(text)
  if (fields) {
    const code = [fields.error, fields.code].find(v => typeof v === 'string') as string | undefined
    const detail = [fields.error_description, fields.message, fields.detail, fields.title].find(
      v => typeof v === 'string'
    ) as string | undefined
    if (code || detail) return excerpt([code, detail].filter(Boolean).join(': '))
  }
  // Not a JSON object with error fields: quote the text itself.
  return excerpt(text)
}
