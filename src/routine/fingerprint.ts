import { createHash, hash, randomBytes } from 'node:crypto'

/** What makes one routine another: the call's method and templates, and where it goes. */
export interface CallIdentity {
  readonly method: string
  /** The path template as written in the call input: /v1/targets/{id}/scan. */
  readonly path: string
  /** The call-body template as written, or '' for none. */
  readonly body: string
  readonly baseUrl: URL
}

/**
 * A short fingerprint of the operation, on every result line, so that a line of one routine is never
 * taken for another's: the same targets with another body, path or service are another routine.
 */
export function callFingerprint(call: CallIdentity): string {
  const text = JSON.stringify([call.method.toUpperCase(), call.path, call.body.trim(), call.baseUrl.href])
  return createHash('sha256').update(text).digest('hex').slice(0, 16)
}

/**
 * The fingerprint on a results file's lines and header: the operation and what decides whether a
 * call of it succeeded (call-accept), so that a line that counted a 404 as done under
 * `call-accept: 404` is not taken as done by a step that does not accept 404. The Idempotency-Key
 * keeps the operation's fingerprint alone: the same request whatever counts as success.
 */
export function recordFingerprint(operation: string, accept: ReadonlySet<number>): string {
  if (accept.size === 0) return operation
  const statuses = [...accept].sort((a, b) => a - b).join(',')
  return createHash('sha256').update(`${operation}\naccept ${statuses}`).digest('hex').slice(0, 16)
}

/**
 * The run an Idempotency-Key belongs to: GITHUB_RUN_ID, the same in every attempt of a run, so that
 * a re-run repeats a call with the key the service saw. Outside Actions, a nonce of this process.
 */
export function runIdentity(runId: string | undefined): { readonly id: string; readonly nonce: boolean } {
  if (runId) return { id: runId, nonce: false }
  return { id: `nonce-${randomBytes(12).toString('hex')}`, nonce: true }
}

/**
 * The Idempotency-Key of a call: the run, the operation and the target, hashed to 32 hex characters.
 * One call of crypto.hash: a routine makes one per call, and a Hash object costs twice as much.
 */
export function idempotencyKey(runId: string, fingerprint: string, key: string): string {
  return hash('sha256', `${runId}\n${fingerprint}\n${key}`, 'hex').slice(0, 32)
}
