import { createHash } from 'node:crypto'
import { CallIdentity } from './fingerprint.js'

/**
 * A plan's digest binds the targets (their digest) and the call (method and path, body, base-url),
 * as terraform binds a saved plan to its state: an apply given the plan's digest makes no call
 * unless its own is the same. Each part has a short tag, so that a refusal names what moved; the
 * whole is bound by the SHA-256 at the end.
 *
 *   plan1.<targets 12 hex>.<method and path 8>.<body 8>.<base-url 8>.<sha256 of all, 64 hex>
 */
export function planDigest(targetsDigest: string, call: CallIdentity): string {
  const parts = planParts(targetsDigest, call)
  const all = createHash('sha256')
    .update(JSON.stringify([targetsDigest, call.method.toUpperCase(), call.path, call.body.trim(), call.baseUrl.href]))
    .digest('hex')
  return `plan1.${parts.map(p => p.tag).join('.')}.${all}`
}

const PARTS = [
  'the targets (another snapshot or listing)',
  'the call input (method or path)',
  'call-body',
  'base-url'
] as const

function planParts(targetsDigest: string, call: CallIdentity): { readonly tag: string }[] {
  const tag = (text: string, length: number) => createHash('sha256').update(text).digest('hex').slice(0, length)
  return [
    { tag: tag(targetsDigest, 12) },
    { tag: tag(`${call.method.toUpperCase()} ${call.path}`, 8) },
    { tag: tag(call.body.trim(), 8) },
    { tag: tag(call.baseUrl.href, 8) }
  ]
}

const FORMAT = /^plan1\.[0-9a-f]{12}\.[0-9a-f]{8}\.[0-9a-f]{8}\.[0-9a-f]{8}\.[0-9a-f]{64}$/

/** Whether a plan-digest input has the form the plan-digest output gives. */
export function isPlanDigest(text: string): boolean {
  return FORMAT.test(text)
}

/**
 * Throws before any call when this step's plan is not the approved one, naming what differs.
 * `approved` has the form isPlanDigest checks.
 */
export function checkPlan(approved: string, own: string): void {
  if (approved === own) return
  const theirs = approved.split('.').slice(1, 5)
  const ours = own.split('.').slice(1, 5)
  const moved = PARTS.filter((_, i) => theirs[i] !== ours[i])
  const what = moved.length > 0 ? moved.join(', ') : 'the plan (its digest does not match)'
  throw new Error(
    `Input plan-digest: this step's plan differs from the approved one in ${what}, so no call was made. ` +
      'Apply exactly what was planned: the same targets-from file, call, call-body and base-url; or plan again and have the new plan approved.'
  )
}
