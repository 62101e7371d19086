import { createHash, randomBytes } from 'node:crypto'
import { closeSync, openSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { tempFileError, writeAll } from '../files.js'
import { formatCount, formatDuration } from '../format.js'
import { HttpResponse, statusText, Transport } from '../http/client.js'
import { Bearer } from '../auth/bearer.js'
import { describeFailure, RequestError, ServerWaitError } from '../http/errors.js'
import { Limiter } from '../http/limiter.js'
import { parseExact } from '../json.js'
import { excerpt, redact } from '../secrets.js'
import { hasId, targetKey } from '../targets/key.js'
import { CallSpec, hasDotSegment, missingFields, renderBody, renderPath } from './call.js'
import { succeeded } from '../http/operation.js'

export interface RoutineOptions {
  readonly spec: CallSpec
  /** The call input as written, for messages and the Idempotency-Key. */
  readonly call: string
  readonly baseUrl: URL
  /** The bearer token of each call: renewed as it nears expiry, recovered once after a 401. */
  readonly bearer: Pick<Bearer, 'current' | 'recover' | 'latest'>
  readonly concurrency: number
  readonly rate?: number
  readonly accept: ReadonlySet<number>
  readonly maxFailures: number
  /** call-idempotent: a POST or PATCH may be repeated after any transient failure. */
  readonly idempotent: boolean
  /** GITHUB_RUN_ID: the Idempotency-Key is the same for a target in every attempt of the run. */
  readonly runId: string
  readonly resultsDir: string
  /**
   * Feeds every target to `each` in order, awaiting it; absent for the one call without targets.
   * Every target fed must have passed a Preflight: the calls' URLs rely on it (no dot segment).
   */
  readonly targets?: (each: (target: unknown) => Promise<void>) => Promise<void>
  /** How many targets `targets` feeds, for progress lines. */
  readonly count?: number
  readonly info: (message: string) => void
  readonly now?: () => number
}

export interface Failure {
  readonly target: string
  readonly status: string
  readonly said: string
}

export interface RoutineResult {
  readonly calls: number
  readonly succeeded: number
  readonly failed: number
  /** "HTTP 200", "HTTP 500", "no response", …: how many calls ended so. */
  readonly byStatus: ReadonlyMap<string, number>
  /** The same, for the calls that failed. */
  readonly failedByStatus: ReadonlyMap<string, number>
  readonly failures: readonly Failure[]
  readonly durationMs: number
  readonly resultsFile: string
  /** The body of the one call without targets, when under 1 MiB. */
  readonly response?: string
  /** Why new calls stopped early: a 401, or call-max-failures. */
  readonly stopped?: string
}

const MAX_RESPONSE_BYTES = 8 * 1024 * 1024
const RESULT_BODY_CHARS = 64 * 1024
const RESPONSE_OUTPUT_BYTES = 1024 * 1024
const LOGGED_FAILURES = 20
const KEPT_FAILURES = 50
const PROGRESS_MS = 10_000

/**
 * The targets a call cannot be made for, found before the first call: each target is checked as it
 * passes into the targets file, so no extra read of the list is needed. At most five are named.
 */
export class Preflight {
  private seen = 0
  private bad = 0
  private readonly problems: string[] = []

  constructor(private readonly spec: CallSpec) {}

  check(target: unknown): void {
    const index = this.seen++
    if (this.spec.fields.length === 0) return
    const missing = missingFields(this.spec, target)
    if (missing.length === 0 && !hasDotSegment(renderPath(this.spec, target))) return
    this.bad++
    if (this.problems.length < 5) {
      const why = missing.length > 0 ? missing.join(', ') : 'gives a path segment of . or ..'
      this.problems.push(`${label(target, index)} ${why}`)
    }
  }

  /** Throws the input error when any target checked so far cannot fill the placeholders. */
  verify(): void {
    if (this.bad === 0) return
    throw new Error(
      `Input call: ${formatCount(this.bad)} of ${formatCount(this.seen)} targets cannot fill its placeholders, so no call was made: ` +
        `${this.problems.join('; ')}. Check the field names (they are case-sensitive) against the targets.`
    )
  }
}

/** A target as messages name it: its id, JSON-quoted, else its place in the list. */
function label(target: unknown, index: number): string {
  if (!hasId(target)) return `target #${index + 1}`
  const { id } = target as { id: unknown }
  return `target ${typeof id === 'string' ? excerpt(JSON.stringify(id), 80) : targetKey(target)}`
}

/** Calls the operation for every target, at most `concurrency` at once, recording each result. */
export async function runRoutine(http: Transport, options: RoutineOptions): Promise<RoutineResult> {
  const now = options.now ?? Date.now
  const { spec } = options
  const started = now()
  const limiter = new Limiter(options.rate, now)
  const resultsFile = join(options.resultsDir, `results-${randomBytes(6).toString('hex')}.jsonl`)
  const unwritable = (err: unknown): Error => tempFileError('results file', options.resultsDir, err)
  let fd: number
  try {
    fd = openSync(resultsFile, 'wx', 0o600)
  } catch (err) {
    throw unwritable(err)
  }
  const byStatus = new Map<string, number>()
  const failedByStatus = new Map<string, number>()
  const failures: Failure[] = []
  let done = 0
  let ok = 0
  let failed = 0
  let total = 0
  let stopped: string | undefined
  let response: string | undefined
  // Lines are written in blocks of about 64 KiB: one write per call would cost a system call each.
  // Each is redacted as it is kept, which also leaves it one flat string rather than the pieces it
  // was joined from (kept as pieces until the block was written, at 100,000 calls they made V8 grow
  // its young space and peak memory by 30 %).
  let buffered: string[] = []
  let bufferedChars = 0
  const flush = (): void => {
    const bytes = Buffer.from(buffered.join(''))
    buffered = []
    bufferedChars = 0
    try {
      writeAll(fd, bytes)
    } catch (err) {
      throw unwritable(err)
    }
  }
  let closed = false
  const record = (line: string): void => {
    if (closed) return // a call that ended after the routine failed
    const text = `${redact(line)}\n`
    buffered.push(text)
    bufferedChars += text.length
    if (bufferedChars >= 64 * 1024) flush()
  }
  const progress = (): void => {
    const seconds = (now() - started) / 1000
    const rate = seconds > 0 ? done / seconds : 0
    const count = options.count ?? 1
    const of = ` of ${formatCount(count)} (${count > 0 ? Math.floor((done / count) * 100) : 100} %)`
    const left = rate > 0 && done < count ? `, about ${formatDuration((count - done) / rate)} left` : ''
    options.info(`Calls: ${formatCount(done)}${of}, ${formatCount(failed)} failed, ${rate.toFixed(0)}/s${left}`)
  }
  const timer = setInterval(progress, PROGRESS_MS)
  timer.unref()

  // Every call's URL is base-url's with the rendered path appended (checked in preflight: no value
  // makes a dot segment, and each is one encoded segment, so the origin and prefix cannot change).
  const prefix = `${options.baseUrl.origin}${options.baseUrl.pathname.replace(/\/+$/, '')}`
  const unsafe = spec.method === 'POST' || spec.method === 'PATCH'
  const callOne = async (target: unknown, index: number): Promise<void> => {
    const path = renderPath(spec, target)
    const url = new URL(`${prefix}${path}`)
    const body = renderBody(spec, target)
    const headers: Record<string, string> = { Accept: 'application/json' }
    if (body !== undefined) headers['Content-Type'] = 'application/json'
    if (unsafe) {
      const key = `${options.runId}\n${options.call}\n${targetKey(target)}`
      headers['Idempotency-Key'] = createHash('sha256').update(key).digest('hex').slice(0, 32)
    }
    const t0 = now()
    let res: HttpResponse | undefined
    let error: string | undefined
    const send = (token: string): Promise<HttpResponse> =>
      http.send(
        {
          method: spec.method,
          url,
          headers: { ...headers, Authorization: `Bearer ${token}` },
          body,
          maxBytes: MAX_RESPONSE_BYTES,
          label: `call #${index + 1}`,
          idempotent: options.idempotent || !unsafe
        },
        limiter
      )
    try {
      const token = await options.bearer.current()
      res = await send(token)
      // A 401 on a sealed token: one fresh exchange (shared by every call), and this call once more.
      if (res.status === 401) {
        const fresh = await options.bearer.recover(token)
        if (fresh !== undefined) res = await send(fresh)
      }
    } catch (err) {
      if (err instanceof RequestError) error = describeFailure(err.failure, url)
      else if (err instanceof ServerWaitError) {
        error = `HTTP ${statusText(err.status)}, retry asked for in ${Math.ceil(err.waitMs / 1000)} s`
      } else error = redact(String((err as Error)?.message ?? err))
    }
    done++
    // Redacted where it is shown: the results line as a whole, the excerpt, the response output.
    const text = res ? res.body.toString('utf8') : ''
    const good = res !== undefined && succeeded(res.status, options.accept)
    const status = res ? `HTTP ${res.status}` : 'no response'
    byStatus.set(status, (byStatus.get(status) ?? 0) + 1)
    // Written by hand, in the order of the format in the README: JSON.stringify of an object per
    // call costs more than the rest of a call's bookkeeping.
    const idField = hasId(target) ? `,"id":${JSON.stringify((target as { id: unknown }).id)}` : ''
    const errorField = error ? `,"error":${JSON.stringify(error)}` : ''
    record(
      `{"index":${index}${idField},"status":${res ? res.status : null}${errorField},` +
        `"attempts":${res?.attempts ?? null},"ms":${now() - t0},${resultBody(text)}}`
    )
    if (!options.targets && res && Buffer.byteLength(text) < RESPONSE_OUTPUT_BYTES) response = redact(text)
    if (good) {
      ok++
      return
    }
    failed++
    failedByStatus.set(status, (failedByStatus.get(status) ?? 0) + 1)
    const said = error ?? excerpt(text, 200)
    if (failures.length < KEPT_FAILURES) failures.push({ target: label(target, index), status, said })
    if (failed <= LOGGED_FAILURES) {
      options.info(
        `Call #${index + 1} for ${label(target, index)} failed: ${res ? `HTTP ${statusText(res.status)}` : 'no response'}${said ? ` (${said})` : ''}`
      )
    } else if (failed === LOGGED_FAILURES + 1) {
      options.info('More calls failed: from here on they are counted, not listed (see the results file)')
    }
    if (res?.status === 401 && !stopped) {
      const { expiresAtMs } = options.bearer.latest
      const expiry = expiresAtMs === undefined ? '' : ` (it expires ${new Date(expiresAtMs).toISOString()})`
      stopped = `the service refused the token (HTTP 401) at call #${index + 1}${expiry}: no new call was started`
    } else if (failed >= options.maxFailures && !stopped) {
      stopped = `${formatCount(failed)} calls failed, call-max-failures (${options.maxFailures}): no new call was started`
    }
  }

  // A count of calls in flight, and the one caller waiting for a slot to free: no promise is kept
  // per call, and no reaction attached to every call in flight for every target.
  let active = 0
  let broken: { error: unknown } | undefined
  let waiting: (() => void) | undefined
  const release = (): void => {
    active--
    const wake = waiting
    waiting = undefined
    wake?.()
  }
  const slotFreed = (): Promise<void> => new Promise<void>(resolve => (waiting = resolve))
  const submit = async (target: unknown): Promise<void> => {
    while (active >= options.concurrency) await slotFreed()
    if (broken) throw broken.error
    if (stopped) return
    active++
    callOne(target, total++).then(release, (error: unknown) => {
      broken ??= { error }
      release()
    })
  }

  let finished = false
  try {
    if (options.targets) await options.targets(submit)
    else await submit({})
    while (active > 0) await slotFreed()
    if (broken) throw broken.error
    flush()
    finished = true
  } finally {
    clearInterval(timer)
    closed = true
    closeSync(fd)
    // A failed routine leaves no results file (closed first: Windows cannot remove an open file).
    if (!finished) rmSync(resultsFile, { force: true })
  }
  progress()
  return {
    calls: done,
    succeeded: ok,
    failed,
    byStatus,
    failedByStatus,
    failures,
    durationMs: now() - started,
    resultsFile,
    response,
    stopped
  }
}

/**
 * A response body's fields for the results file: "body" parsed when JSON, else as text, cut at
 * 64 KiB with a marker. JSON without a backslash is kept as the server wrote it (numbers exactly,
 * its line breaks made spaces, which JSON allows between tokens); with escapes it is parsed and
 * written again, so that redaction sees a secret the server escaped as the secret itself.
 */
function resultBody(text: string): string {
  if (text === '') return '"body":null'
  if (text.length > RESULT_BODY_CHARS)
    return `"body":${JSON.stringify(text.slice(0, RESULT_BODY_CHARS))},"truncated":true`
  try {
    if (!text.includes('\\')) {
      JSON.parse(text)
      return `"body":${text.replace(LINE_BREAKS, ' ')}`
    }
    return `"body":${JSON.stringify(parseExact(text))}`
  } catch {
    return `"body":${JSON.stringify(text)}`
  }
}

const LINE_BREAKS = /[\r\n]/g

/** The step's failure when any call failed: counts by status and the first failed targets. */
export function routineError(call: string, result: RoutineResult): Error | undefined {
  if (result.failed === 0 && !result.stopped) return undefined
  const counts = [...result.failedByStatus].map(([s, n]) => `${s}: ${formatCount(n)}`)
  const first = result.failures
    .slice(0, 3)
    .map(f => `${f.target} (${f.status})`)
    .join(', ')
  return new Error(
    `Failed to call ${excerpt(call, 100)}: ${formatCount(result.failed)} of ${formatCount(result.calls)} calls failed` +
      `${counts.length ? ` (${counts.join(', ')})` : ''}${first ? `; first: ${first}` : ''}` +
      `${result.stopped ? `; ${result.stopped}` : ''}. The log above lists the failures.`
  )
}
