import type { IncomingHttpHeaders } from 'node:http'
import { TransportFailure } from './errors.js'

/**
 * When a request is tried again, as a pure function of what happened, the attempt and the time
 * spent: no sockets, no clock, no randomness of its own (undici's retry handler and ky decide the
 * same way). Chosen so that with the default inputs a server that never answers fails a request
 * within about 50 s, a 15 s outage is ridden out and one that lasts fails within about 45 s
 * (README, "docs/failure-policy.md"; bench/faults.js measures it).
 */
export interface RetryPolicy {
  readonly maxAttempts: number
  /** No retry of our own starts later than this after the first attempt began (the second always may). */
  readonly windowMs: number
  /** Backoff before attempt n+1: base * 2^(n-1), capped, then scaled by a random factor in [1/2, 1]. */
  readonly backoffBaseMs: number
  readonly backoffCapMs: number
  /** The longest wait a server may ask for (Retry-After, x-ratelimit-reset) that the step sits out. */
  readonly maxServerWaitMs: number
  /**
   * No retry of a refused connection starts later than this after the first attempt: nothing
   * listens on that port, which a restart explains for seconds and a wrong URL for ever.
   */
  readonly refusedWindowMs: number
}

export const DEFAULT_POLICY: Omit<RetryPolicy, 'maxAttempts'> = {
  windowMs: 45_000,
  backoffBaseMs: 1_500,
  backoffCapMs: 20_000,
  maxServerWaitMs: 60_000,
  refusedWindowMs: 5_000
}

/** What one attempt gave: a response (its status and headers), or a failure without one. */
export type Outcome =
  { readonly status: number; readonly headers: IncomingHttpHeaders } | { readonly failure: TransportFailure }

export interface Progress {
  /** 1-based: the attempt that just ended. */
  readonly attempt: number
  /** From the first attempt's start to now. */
  readonly elapsedMs: number
  /** Wall-clock time, for Retry-After dates and reset times. */
  readonly nowMs: number
  /** In [0, 1): the jitter of this backoff. */
  readonly random: number
}

export type Decision =
  /** Use the outcome as it is: a success, a final status or failure, or the last attempt. */
  | { readonly retry: false; readonly why: 'final' | 'attempts' | 'window' | 'refused' }
  /** The server asks for a longer wait than the step sits out. */
  | { readonly retry: false; readonly why: 'server-wait'; readonly waitMs: number }
  | { readonly retry: true; readonly waitMs: number; readonly serverAsked: boolean }

const RETRIED_STATUSES = new Set([408, 429, 500, 502, 503, 504])
const RETRIED_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EAI_AGAIN',
  'ENETUNREACH',
  'EHOSTUNREACH'
])

/** Connection failures that happen before a byte of the request is sent. */
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'EAI_AGAIN', 'ENETUNREACH', 'EHOSTUNREACH'])

/**
 * Whether an outcome is worth another attempt at all, whatever the attempt and the time. A request
 * that is not idempotent (a POST or PATCH) is repeated only where the server cannot have acted on
 * it: the connection failed before it was sent, a 429, or a 503 that says when to come back.
 */
export function isTransient(outcome: Outcome, idempotent = true): boolean {
  if (!idempotent) {
    if ('status' in outcome) {
      return (
        outcome.status === 429 ||
        (outcome.status === 503 &&
          (outcome.headers['retry-after'] !== undefined || outcome.headers['x-ratelimit-reset'] !== undefined))
      )
    }
    return outcome.failure.kind === 'network' && NOT_SENT_CODES.has(outcome.failure.code)
  }
  if ('status' in outcome) return RETRIED_STATUSES.has(outcome.status)
  const { failure } = outcome
  switch (failure.kind) {
    case 'timeout':
    case 'idle':
    case 'aborted':
      return true
    case 'network':
      return RETRIED_CODES.has(failure.code)
    default:
      return false
  }
}

const FINAL: Decision = { retry: false, why: 'final' }

export function decide(outcome: Outcome, progress: Progress, policy: RetryPolicy, idempotent = true): Decision {
  const { attempt, elapsedMs } = progress
  if (!isTransient(outcome, idempotent)) return FINAL
  if (attempt >= policy.maxAttempts) return { retry: false, why: 'attempts' }
  const serverWaitMs = 'status' in outcome ? serverRequestedWait(outcome.headers, progress.nowMs) : undefined
  if (serverWaitMs !== undefined) {
    // A wait the server asked for is honoured as it is, even past the window.
    if (serverWaitMs > policy.maxServerWaitMs) return { retry: false, why: 'server-wait', waitMs: serverWaitMs }
    return { retry: true, waitMs: serverWaitMs, serverAsked: true }
  }
  const waitMs = backoff(attempt, progress.random, policy)
  // Our own backoff stops at the window, so that a service that stays down fails in bounded time.
  if (attempt > 1 && elapsedMs + waitMs > policy.windowMs) return { retry: false, why: 'window' }
  const refused = 'failure' in outcome && outcome.failure.kind === 'network' && outcome.failure.code === 'ECONNREFUSED'
  if (refused && attempt > 1 && elapsedMs + waitMs > policy.refusedWindowMs) return { retry: false, why: 'refused' }
  return { retry: true, waitMs, serverAsked: false }
}

/**
 * How long every request that shares a gate holds back after this outcome, whether or not this
 * request is tried again: after a 429 (the wait the server asked for, else this attempt's backoff),
 * and after any other retried status that says when to come back (a 503 with Retry-After). At
 * most maxServerWaitMs: a longer wait fails the request that met it, not every other one.
 */
export function sharedPause(outcome: Outcome, progress: Progress, policy: RetryPolicy): number | undefined {
  // Most outcomes are successes: they are told apart before any header is read.
  if (!('status' in outcome) || !RETRIED_STATUSES.has(outcome.status)) return undefined
  const asked = serverRequestedWait(outcome.headers, progress.nowMs)
  if (outcome.status !== 429 && asked === undefined) return undefined
  return Math.min(asked ?? backoff(progress.attempt, progress.random, policy), policy.maxServerWaitMs)
}

/** Exponential backoff with "equal jitter": never less than half the step, so retries spread over time. */
export function backoff(attempt: number, random: number, policy: RetryPolicy): number {
  const step = Math.min(policy.backoffCapMs, policy.backoffBaseMs * 2 ** (attempt - 1))
  return Math.round(step / 2 + (random * step) / 2)
}

/** The wait a 429/503 asks for: Retry-After (seconds or HTTP date) or Auth0's x-ratelimit-reset (UNIX time). */
export function serverRequestedWait(headers: IncomingHttpHeaders, nowMs: number): number | undefined {
  const retryAfter = single(headers['retry-after'])
  if (retryAfter !== undefined) {
    const wait = parseRetryAfter(retryAfter, nowMs)
    if (wait !== undefined) return wait
  }
  const reset = single(headers['x-ratelimit-reset'])
  // A reset already past says nothing of when to come back: the caller's own backoff applies.
  if (reset !== undefined && /^\s*\d{1,12}\s*$/.test(reset) && Number(reset) * 1000 > nowMs) {
    return Number(reset) * 1000 - nowMs
  }
  return undefined
}

export function parseRetryAfter(value: string, nowMs: number): number | undefined {
  const text = value.trim()
  if (/^\d{1,10}$/.test(text)) return Number(text) * 1000
  if (!/^[A-Za-z]{3}, \d{2} [A-Za-z]{3} \d{4} \d{2}:\d{2}:\d{2} GMT$/.test(text)) return undefined
  const at = Date.parse(text)
  // A date already past says nothing of when to come back, as a past reset does: the backoff applies.
  return Number.isNaN(at) || at <= nowMs ? undefined : at - nowMs
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value
}
