import * as http from 'node:http'
import { redact } from '../secrets.js'
import { Agents } from './agents.js'
import { attempt, AttemptLimits, RawResponse } from './attempt.js'
import { AttemptError, describeFailure, RequestError, ServerWaitError } from './errors.js'
import { decide, DEFAULT_POLICY, Outcome, RetryPolicy, sharedPause } from './policy.js'

export interface HttpRequest {
  readonly method: string
  readonly url: URL
  readonly headers: Readonly<Record<string, string>>
  /** A function gives a fresh body for every attempt (a client assertion may be used only once). */
  readonly body?: string | (() => string)
  /** A longer response body fails the attempt ('too-large'). */
  readonly maxBytes: number
  /**
   * Keep only the first keepBytes of the body: the rest is counted as it arrives and dropped, so
   * memory does not follow the server's body. The response then has bodyBytes, and truncated when cut.
   */
  readonly keepBytes?: number
  /** The request in retry lines: "token request", "targets request (page 2)". */
  readonly label: string
  /**
   * Whether sending it twice is harmless. When false (a POST or PATCH not declared idempotent) it is
   * repeated only where the server cannot have acted on it: see isTransient in policy.ts.
   */
  readonly idempotent?: boolean
}

export interface HttpResponse {
  readonly status: number
  readonly headers: http.IncomingHttpHeaders
  readonly body: Buffer
  readonly attempts: number
  /** With keepBytes: the whole body's size in bytes, as it arrived. */
  readonly bodyBytes?: number
  /** With keepBytes: set when `body` holds only the first keepBytes of it. */
  readonly truncated?: true
}

/**
 * Where a limiter shared by many requests plugs in: every attempt waits for `ready()`, and a wait
 * a server asks for is reported to `pause()`, so that one 429 can hold back every request.
 */
export interface Gate {
  /** Undefined when the attempt may start now: no promise, no await, for the common case. */
  ready(): Promise<void> | undefined
  pause(ms: number): void
}

export interface HttpOptions {
  /** The whole of one attempt, from connecting to the last byte of the response. */
  readonly timeoutMs: number
  /** The longest silence within an attempt: until the response starts, and between its chunks. */
  readonly idleTimeoutMs?: number
  readonly maxAttempts: number
  readonly userAgent: string
  readonly info: (message: string) => void
  /** Absent when the runner is not debugging: no debug line is built then. */
  readonly debug?: (message: string) => void
  readonly policy?: Partial<Omit<RetryPolicy, 'maxAttempts'>>
  readonly sleep?: (ms: number) => Promise<void>
  readonly random?: () => number
  readonly now?: () => number
}

/** What an operation needs of Http: a unit test can fake it without a socket. */
export interface Transport {
  send(request: HttpRequest, gate?: Gate): Promise<HttpResponse>
}

export const IDLE_TIMEOUT_MS = 10_000

/** One request path for every call the action makes: each attempt on the wire, and the retry policy. */
export class Http implements Transport {
  private readonly agents: Agents
  private readonly policy: RetryPolicy
  private readonly sleep: (ms: number) => Promise<void>
  private readonly random: () => number
  private readonly now: () => number
  private readonly limits: AttemptLimits
  private disposed = false
  private readonly waits = new Set<() => void>()

  constructor(private readonly options: HttpOptions) {
    this.agents = new Agents()
    this.policy = { ...DEFAULT_POLICY, ...options.policy, maxAttempts: options.maxAttempts }
    this.sleep = options.sleep ?? (ms => this.wait(ms))
    this.random = options.random ?? Math.random
    this.now = options.now ?? Date.now
    const { timeoutMs } = options
    this.limits = { timeoutMs, idleMs: Math.min(options.idleTimeoutMs ?? IDLE_TIMEOUT_MS, timeoutMs) }
  }

  /**
   * Sends the request until the policy stops: resolves with the response it stopped on (a
   * success, or a status the caller judges), rejects with a RequestError or ServerWaitError.
   */
  async send(request: HttpRequest, gate?: Gate): Promise<HttpResponse> {
    const { maxAttempts } = this.policy
    // Debug lines are built only when they are written: a routine sends thousands of requests.
    const debug = this.options.debug
    const first = this.now()
    for (let n = 1; ; n++) {
      const turn = gate?.ready()
      if (turn) await turn
      if (this.disposed) throw new Error(`The ${request.label} was not sent: the step is ending`)
      const started = this.now()
      let outcome: Outcome
      let response: HttpResponse | undefined
      try {
        const connection = this.agents.cached(request.url) ?? (await this.agents.connectionFor(request.url))
        const body = typeof request.body === 'function' ? request.body() : request.body
        const headers: Record<string, string | number> = { 'User-Agent': this.options.userAgent, ...request.headers }
        if (body !== undefined) headers['Content-Length'] = Buffer.byteLength(body)
        const raw = await attempt(
          {
            method: request.method,
            url: request.url,
            headers,
            body,
            maxBytes: request.maxBytes,
            keepBytes: request.keepBytes
          },
          connection,
          this.limits
        )
        response = withAttempts(raw, n)
        outcome = raw
        if (debug) {
          debug(
            `${request.method} ${where(request.url)} -> ${raw.status} in ${this.now() - started} ms (attempt ${n}/${maxAttempts})`
          )
        }
      } catch (err) {
        if (!(err instanceof AttemptError)) throw err
        // The sockets were closed under it as the step ends: no retry, and no line about one.
        if (this.disposed) throw new Error(`The ${request.label} was abandoned: the step is ending`, { cause: err })
        outcome = err
        debug?.(
          `${request.method} ${where(request.url)} failed after ${this.now() - started} ms: ${err.code} (attempt ${n}/${maxAttempts})`
        )
      }
      const now = this.now()
      const progress = { attempt: n, elapsedMs: now - first, nowMs: now, random: this.random() }
      const decision = decide(outcome, progress, this.policy, request.idempotent !== false)
      // Every request through the gate waits out a rate limit, not only the one that met it, and
      // also when this one is not tried again (its last attempt, or a wait longer than it takes).
      const pauseMs = gate && sharedPause(outcome, progress, this.policy)
      if (pauseMs) gate!.pause(pauseMs)
      if (!decision.retry) {
        if (decision.why === 'server-wait') {
          throw new ServerWaitError(
            response?.status ?? 0,
            decision.waitMs,
            this.policy.maxServerWaitMs,
            now + decision.waitMs
          )
        }
        if (response) return response
        const failure = (outcome as AttemptError).failure
        throw new RequestError(failure, n, decision.why === 'window' ? this.policy.windowMs : undefined)
      }
      const reason = response
        ? `HTTP ${statusText(response.status)}`
        : describeFailure((outcome as AttemptError).failure, request.url)
      this.options.info(
        `The ${request.label} failed on attempt ${n} of ${maxAttempts} (${reason}); retrying in ${(decision.waitMs / 1000).toFixed(1)} s`
      )
      await this.sleep(decision.waitMs)
    }
  }

  /** Closes every connection; a request in flight fails, and none is sent or retried after. */
  dispose(): void {
    this.disposed = true
    this.agents.dispose()
    for (const wake of this.waits) wake()
  }

  /** A wait before a retry, which dispose() ends at once: no timer holds an ending step. */
  private wait(ms: number): Promise<void> {
    return new Promise(resolve => {
      const wake = (): void => {
        clearTimeout(timer)
        this.waits.delete(wake)
        resolve()
      }
      const timer = setTimeout(wake, ms)
      this.waits.add(wake)
    })
  }
}

/** A raw response with its attempt count, written out: a spread would copy it through a slower path. */
function withAttempts(raw: RawResponse, attempts: number): HttpResponse {
  const { status, headers, body } = raw
  if (raw.bodyBytes === undefined) return { status, headers, body, attempts }
  if (raw.truncated) return { status, headers, body, attempts, bodyBytes: raw.bodyBytes, truncated: true }
  return { status, headers, body, attempts, bodyBytes: raw.bodyBytes }
}

/** Where a request went, for debug lines. */
function where(url: URL): string {
  return redact(`${url.origin}${url.pathname}`)
}

/** The standard reason phrase for a status, for messages: "503 Service Unavailable". */
export function statusText(status: number): string {
  const text = http.STATUS_CODES[status]
  return text ? `${status} ${text}` : String(status)
}
