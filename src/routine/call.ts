import { Bearer } from '../auth/bearer.js'
import { Gate, HttpRequest, Transport } from '../http/client.js'
import { describeFailure, RequestError, ServerWaitError, TransportFailure } from '../http/errors.js'
import { succeeded } from '../http/operation.js'
import { Limiter } from '../http/limiter.js'
import { redact, REDACT_MARGIN_CHARS } from '../secrets.js'
import { CallSpec, renderBody, renderPath } from '../service/call.js'
import { idempotencyKey } from './fingerprint.js'
import { Outcome } from './lines.js'
import { RoutineOptions } from './types.js'

export interface CallContext {
  readonly http: Transport
  readonly spec: CallSpec
  readonly baseUrl: URL
  /** The Idempotency-Key's run: GITHUB_RUN_ID, or a nonce. */
  readonly runId: string
  readonly fingerprint: string
  /** call-idempotent: a POST or PATCH may be repeated after any transient failure. */
  readonly idempotent: boolean
  readonly accept: ReadonlySet<number>
  readonly bearer: Pick<Bearer, 'current' | 'recover'>
  /** The routine's shared gate: rate and pauses. */
  readonly gate: Gate
  /** How much of a response body is kept: the rest is counted and dropped as it arrives. */
  readonly keepBytes: number
  /** Whether the routine was cancelled: no further attempt starts. */
  readonly cancelled: () => boolean
  readonly now: () => number
}

/** How one call ended. */
export interface CallEnd {
  readonly outcome: Exclude<Outcome, 'skipped' | 'planned'>
  readonly status: number | null
  readonly error?: string
  readonly attempts: number | null
  readonly ms: number
  /** The response body (its first keepBytes), as text; '' for none. */
  readonly text: string
  /** Set when the body was longer than what was kept. */
  readonly truncated?: boolean
}

// A body past keepBytes costs no memory, only time (bounded by timeout-seconds): no cap below 1 GiB.
const MAX_RESPONSE_BYTES = 1024 * 1024 * 1024

/** The attempt a cancellation refused to start. */
class Cancelled extends Error {}

/** Failures after which the service may have acted: the request was, or may have been, sent. */
function mayHaveActed(failure: TransportFailure): boolean {
  if (failure.kind === 'timeout' || failure.kind === 'idle' || failure.kind === 'aborted') return true
  return failure.kind === 'network' && !/^(ECONNREFUSED|EHOSTUNREACH|ENETUNREACH|EAI_AGAIN)$/.test(failure.code)
}

/** How a call that got no usable response ended: unknown where the service may have acted. */
function failedEnd(err: unknown, url: URL, sent: boolean): Partial<CallEnd> & Pick<CallEnd, 'outcome'> {
  if (err instanceof Cancelled) {
    return sent
      ? { outcome: 'unknown', error: 'cancelled before its retry; the service may have acted on an earlier attempt' }
      : { outcome: 'not-made', error: 'cancelled before it was sent' }
  }
  if (err instanceof RequestError) {
    const error = describeFailure(err.failure, url, 'base-url')
    return { outcome: mayHaveActed(err.failure) ? 'unknown' : 'failed', error, attempts: err.attempts }
  }
  if (err instanceof ServerWaitError) {
    const waits = `${Math.ceil(err.waitMs / 1000)} s, later than the step waits (${Math.ceil(err.maxWaitMs / 1000)} s)`
    return { outcome: 'failed', status: err.status, error: `the service asked to retry in ${waits}` }
  }
  return { outcome: 'failed', error: redact(String((err as Error)?.message ?? err)) }
}

/** The one call without targets sets the response output up to this size. */
export const RESPONSE_OUTPUT_BYTES = 1024 * 1024
/** What a line keeps of a body (64 KiB) and the room redaction needs past the cut. */
const RESULT_BODY_BYTES = 64 * 1024 + 4 * REDACT_MARGIN_CHARS

/** What every call of a routine shares, with its own gate (rate and pauses). */
export function routineContext(
  http: Transport,
  options: RoutineOptions,
  cancelled: () => boolean,
  now: () => number
): CallContext {
  return {
    http,
    spec: options.spec,
    baseUrl: options.baseUrl,
    runId: options.runId,
    fingerprint: options.fingerprint,
    idempotent: options.idempotent,
    accept: options.accept,
    bearer: options.bearer,
    gate: new Limiter(options.rate, now),
    // A routine over targets keeps what its lines record; the one call without, its response output.
    keepBytes: options.targets ? RESULT_BODY_BYTES : RESPONSE_OUTPUT_BYTES + 1,
    cancelled,
    now
  }
}

/** A call's fixed parts, worked out once per routine: the URL prefix and whether it is a POST or PATCH. */
export interface CallPlan {
  readonly prefix: string
  readonly unsafe: boolean
}

export function callPlan(context: CallContext): CallPlan {
  const { baseUrl, spec } = context
  return {
    // Every call's URL is base-url's with the rendered path appended (checked in preflight: no value
    // makes a dot segment, and each is one encoded segment, so the origin and prefix cannot change).
    prefix: `${baseUrl.origin}${baseUrl.pathname.replace(/\/+$/, '')}`,
    unsafe: spec.method === 'POST' || spec.method === 'PATCH'
  }
}

/** One target's call, worked out before it is sent: what it is sent to, with, and under which key. */
export interface PreparedCall {
  readonly target: unknown
  readonly key: string
  readonly url: URL
  readonly body: string | undefined
  /** Set for a POST or PATCH. */
  readonly idempotencyKey: string | undefined
}

/** A target's call, worked out as its slot frees: its URL, body and Idempotency-Key. */
export function prepareCall(context: CallContext, plan: CallPlan, target: unknown, key: string): PreparedCall {
  const { spec } = context
  return {
    target,
    key,
    url: new URL(`${plan.prefix}${renderPath(spec, target)}`),
    body: renderBody(spec, target),
    idempotencyKey: plan.unsafe ? idempotencyKey(context.runId, context.fingerprint, key) : undefined
  }
}

/** Makes a prepared call: its request, a 401 recovered once, and what became of it. */
export async function makeCall(
  context: CallContext,
  plan: CallPlan,
  call: PreparedCall,
  index: number,
  /** Marked once an attempt may have reached the service. */
  state: { sent: boolean }
): Promise<CallEnd> {
  const { now } = context
  const t0 = now()
  try {
    const current = context.bearer.current()
    const token = typeof current === 'string' ? current : await current
    const gate = new CallGate(context, state)
    let res = await context.http.send(callRequest(context, plan, call, index, token), gate)
    // A 401 on a sealed token: one fresh exchange (shared by every call), and this call once more.
    if (res.status === 401) {
      const fresh = await context.bearer.recover(token)
      if (fresh !== undefined) res = await context.http.send(callRequest(context, plan, call, index, fresh), gate)
    }
    const outcome = succeeded(res.status, context.accept) ? 'succeeded' : 'failed'
    const text = res.body.toString('utf8')
    if (res.truncated)
      return { outcome, status: res.status, attempts: res.attempts, ms: now() - t0, text, truncated: true }
    return { outcome, status: res.status, attempts: res.attempts, ms: now() - t0, text }
  } catch (err) {
    return { status: null, attempts: null, text: '', ...failedEnd(err, call.url, state.sent), ms: now() - t0 }
  }
}

/** A call's request, carrying `token`. */
function callRequest(
  context: CallContext,
  plan: CallPlan,
  call: PreparedCall,
  index: number,
  token: string
): HttpRequest {
  const { body } = call
  const headers: Record<string, string> =
    body === undefined
      ? { Accept: 'application/json', Authorization: `Bearer ${token}` }
      : { Accept: 'application/json', 'Content-Type': 'application/json', Authorization: `Bearer ${token}` }
  if (call.idempotencyKey !== undefined) headers['Idempotency-Key'] = call.idempotencyKey
  return {
    method: context.spec.method,
    url: call.url,
    headers,
    body,
    maxBytes: MAX_RESPONSE_BYTES,
    keepBytes: context.keepBytes,
    label: `call #${index + 1}`,
    idempotent: context.idempotent || !plan.unsafe
  }
}

/**
 * The routine's gate as one call meets it: no attempt starts after a cancellation, and the call
 * is marked sent as an attempt starts.
 */
class CallGate implements Gate {
  constructor(
    private readonly context: CallContext,
    private readonly state: { sent: boolean }
  ) {}

  ready(): Promise<void> | undefined {
    const { context, state } = this
    if (context.cancelled()) throw new Cancelled()
    const turn = context.gate.ready()
    if (!turn) {
      state.sent = true
      return undefined
    }
    return turn.then(() => {
      if (context.cancelled()) throw new Cancelled()
      state.sent = true
    })
  }

  pause(ms: number): void {
    this.context.gate.pause(ms)
  }
}

/** A dry run's call: the method, the rendered path, and the line's fields that show it. */
export function plannedCall(spec: CallSpec, target: unknown): { method: string; path: string; fields: string } {
  const path = renderPath(spec, target)
  const body = renderBody(spec, target)
  return {
    method: spec.method,
    path,
    fields: `"method":"${spec.method}","path":${JSON.stringify(path)},"body":${body ?? null}`
  }
}
