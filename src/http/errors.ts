import { formatBytes } from '../format.js'
import { excerpt } from '../secrets.js'

/**
 * What can go wrong with a request, as data: the transport says what happened, never what to do
 * about it. The operation that made the request turns these into advice (src/service/failure.ts).
 */
export type TransportFailure =
  /** No complete response within the attempt's limit. */
  | { readonly kind: 'timeout'; readonly ms: number }
  /** The server sent nothing for the idle limit: before the response started, or between chunks. */
  | { readonly kind: 'idle'; readonly ms: number }
  /** The connection closed before the response ended. */
  | { readonly kind: 'aborted' }
  /** A 3xx with a Location: never followed. `location` is resolved against the request's URL when it can be. */
  | { readonly kind: 'redirect'; readonly status: number; readonly location: string }
  | { readonly kind: 'too-large'; readonly maxBytes: number }
  /** The certificate's issuer is not trusted here. */
  | { readonly kind: 'tls-untrusted'; readonly code: string }
  /** The certificate is trusted but not valid for this host or time. */
  | { readonly kind: 'tls-invalid'; readonly code: string; readonly detail: string }
  | { readonly kind: 'dns'; readonly hostname: string }
  /** An https:// URL at a server that did not answer in TLS (most often plain HTTP on that port). */
  | { readonly kind: 'not-tls'; readonly reason: string }
  /** Any other socket error, with Node's code and message, and the proxy it went through. */
  | { readonly kind: 'network'; readonly code: string; readonly detail: string; readonly proxy?: string }

/** One attempt failed without a response the caller could use. */
export class AttemptError extends Error {
  constructor(readonly failure: TransportFailure) {
    super(`request attempt failed: ${failure.kind}`)
  }

  /** A short code for debug lines: the socket's own, or the kind. */
  get code(): string {
    const { failure } = this
    return 'code' in failure ? failure.code : failure.kind.toUpperCase()
  }
}

/** The request failed for good: the last attempt's failure, or the retry window closed after it. */
export class RequestError extends Error {
  constructor(
    readonly failure: TransportFailure,
    readonly attempts: number,
    /** Set when retries stopped because the window closed, not because the failure is final. */
    readonly windowMs?: number
  ) {
    super(`request failed: ${failure.kind}`)
  }
}

/** The server asked to be retried later than the step waits. */
export class ServerWaitError extends Error {
  constructor(
    readonly status: number,
    readonly waitMs: number,
    readonly maxWaitMs: number,
    readonly retryAtMs: number
  ) {
    super(`server asked to wait ${waitMs} ms`)
  }
}

/**
 * What happened, as a fact for a message or a retry line: no advice (the operation adds that).
 * `urlInput`, the input the URL came from, is named where a wrong URL is the likely cause.
 */
export function describeFailure(failure: TransportFailure, url: URL, urlInput?: string): string {
  const check = urlInput ? `; check the ${urlInput} input` : ''
  switch (failure.kind) {
    case 'timeout':
      return `no complete response within ${failure.ms / 1000} s (timeout-seconds)`
    case 'idle':
      return `the server sent nothing for ${failure.ms / 1000} s`
    case 'aborted':
      return 'the connection closed before the response ended'
    case 'redirect':
      return `the server redirected it (HTTP ${failure.status}) to ${excerpt(withoutQuery(failure.location), 200)}`
    case 'too-large':
      return `the response is larger than ${formatBytes(failure.maxBytes)}; refused`
    case 'tls-untrusted':
      return `the TLS certificate of ${url.host} is not trusted by this machine (${failure.code})`
    case 'tls-invalid':
      return `the TLS certificate of ${url.host} is not valid (${failure.code}): ${firstLine(failure.detail)}`
    case 'dns':
      return `the host ${failure.hostname} could not be resolved (ENOTFOUND)${check}`
    case 'not-tls':
      return (
        `the server at ${url.host} did not answer in TLS (${failure.reason}): it may be a plain-HTTP server` +
        `${check}${check ? ' (https:// or http://)' : ''}`
      )
    case 'network':
      if (failure.code === 'ECONNREFUSED' && !failure.proxy) {
        return `${url.host} refused the connection (ECONNREFUSED): no server listens on that port${check}`
      }
      return `${firstLine(failure.detail) || failure.code}${failure.proxy ? ` through the proxy ${failure.proxy}` : ''}`
  }
}

/** A socket's message on one line: OpenSSL's end in a line break, which a log shows as %0A. */
function firstLine(text: string): string {
  return text.trim().split(/\r?\n/)[0].trim()
}

/** A URL as messages show it: origin and path, never the query, which may hold a key. */
function withoutQuery(location: string): string {
  const cut = location.search(/[?#]/)
  return cut < 0 ? location : `${location.slice(0, cut)}?…`
}
