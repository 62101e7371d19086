import { createHash, Hash } from 'node:crypto'
import { formatCount } from '../format.js'

/**
 * A plan is the calls (Terraform's saved plan: apply executes the plan and nothing else). Its
 * digest binds every call a dry run would make — target, method, resolved path, body — after the
 * selection, the shard and the skips of call-resume-from, in list order, with the service:
 *
 *   plan2.<calls>.<targets 8>.<call 8>.<body 8>.<base-url 8>.<where 8>.<shard 8>.<skips 8>.<sha256 of all, 64>
 *
 * The short parts are tags of the inputs behind the calls, so that a refusal names the input that
 * moved; the last part covers every call. An apply step works its own calls out the same way and
 * makes none unless the digest is the approved one.
 */
export const PLAN_FORMAT = 'plan2'
const FORMAT =
  /^plan2\.(\d{1,9})\.([0-9a-f]{8})\.([0-9a-f]{8})\.([0-9a-f]{8})\.([0-9a-f]{8})\.([0-9a-f]{8})\.([0-9a-f]{8})\.([0-9a-f]{8})\.([0-9a-f]{64})$/

/** What the calls are made from: each part's input names a difference. */
export interface PlanInputs {
  /** The targets' digest: the snapshot's (targets-from), or the listing's. */
  readonly targets: string
  /** "METHOD /path/{template}" as the call input gives it. */
  readonly call: string
  /** The call-body template as written, '' for none. */
  readonly body: string
  readonly baseUrl: URL
  readonly where?: string
  /** "K/N", or undefined. */
  readonly shard?: string
}

const PARTS: readonly [keyof PlanInputs | 'skips', string][] = [
  ['targets', 'the targets (targets-from and targets-digest, or the listing)'],
  ['call', 'the call input (method or path)'],
  ['body', 'call-body'],
  ['baseUrl', 'base-url'],
  ['where', 'targets-where'],
  ['shard', 'shard'],
  ['skips', 'call-resume-from (the targets an earlier attempt finished)']
]

/** The plan of a step, call by call, as its targets pass. */
export class PlanBuilder {
  private readonly calls: Hash = createHash('sha256')
  private readonly skipped: Hash = createHash('sha256')
  private added = 0

  /** A call the plan holds: the target's key, and the request as it will be sent. */
  add(key: string, method: string, path: string, body: string | undefined): void {
    this.added++
    this.calls.update(callEntry(key, method, path, body))
  }

  /** A target the plan leaves out: an earlier attempt finished it. */
  skip(key: string): void {
    this.skipped.update(`${JSON.stringify(key)}\n`)
  }

  get count(): number {
    return this.added
  }

  /** The digest, once every target has passed (once only): the calls bound to their inputs. */
  digest(inputs: PlanInputs): string {
    const tag = (text: string): string => createHash('sha256').update(text).digest('hex').slice(0, 8)
    const { targets, call, body, baseUrl, where, shard } = inputs
    const tags = [targets, call, body.trim(), baseUrl.href, where ?? '', shard ?? ''].map(tag)
    return sealDigest(this.added, tags, this.calls.digest('hex'), this.skipped.digest('hex'))
  }
}

/** One call as the plan hashes it: the same text for the builder and for a plan file read back. */
export function callEntry(key: string, method: string, path: string, body: string | undefined): string {
  // A plan file writes no body and a body of null alike: the plan does not tell them apart either.
  return `${JSON.stringify([key, method, path])}\n${body === 'null' ? '' : (body ?? '')}\n`
}

/**
 * The digest of `count` calls hashed to `calls` and skips hashed to `skips`, under the inputs'
 * tags: what a plan file's lines must give again for its header's digest to be its own.
 */
export function sealDigest(count: number, tags: readonly string[], calls: string, skips: string): string {
  const all = createHash('sha256')
    .update(`m2m plan 2\n${calls}\n${tags.join('.')}\n${skips}`)
    .digest('hex')
  return [PLAN_FORMAT, count, ...tags, skips.slice(0, 8), all].join('.')
}

/** The six input tags of a plan2 digest (isPlan2Digest checked). */
export function planTags(digest: string): string[] {
  return digest.split('.').slice(2, 8)
}

/** Whether a text has the form of a plan2 digest. */
export function isPlan2Digest(text: string): boolean {
  return FORMAT.test(text)
}

/**
 * Throws before any call when this step's plan is not the approved one, naming what differs: the
 * number of calls, and the inputs whose tags moved. `approved` has the form isPlan2Digest checks.
 */
export function checkPlanCalls(approved: string, own: string, firstDifference?: string, hint?: string): void {
  if (approved === own) return
  const theirs = FORMAT.exec(approved)!
  const ours = FORMAT.exec(own)!
  const moved = PARTS.filter((_, i) => theirs[i + 2] !== ours[i + 2]).map(([, input]) => input)
  const counts =
    theirs[1] === ours[1]
      ? `the same number of calls (${formatCount(Number(ours[1]))}), other ones`
      : `${formatCount(Number(ours[1]))} calls where the approved plan has ${formatCount(Number(theirs[1]))}`
  const inputs =
    moved.length > 0
      ? `; what differs: ${moved.join(', ')}`
      : '; every input is the same, so the targets themselves changed (a new listing)'
  const first =
    (firstDifference ? `; the first call that differs is ${firstDifference}` : '') + (hint ? ` (${hint})` : '')
  throw new Error(
    `Input plan-digest: this step would make ${counts}${inputs}${first}. No call was made. Apply exactly what was ` +
      'planned (the same targets-from, targets-where, shard, call-resume-from, call, call-body and base-url), or plan again and have the new plan approved.'
  )
}
