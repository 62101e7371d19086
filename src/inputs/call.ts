import * as core from '@actions/core'
import { isPlanDigest } from '../routine/plan.js'
import { isPlan2Digest } from '../routine/plan-calls.js'
import { FailureLimit, parseFailureLimit } from '../routine/stop-rule.js'
import { parseSize, parseWaveSizes, WaveSize } from '../routine/waves.js'
import { CallSpec, parseCall } from '../service/call.js'
import { boolean, integer, number, read } from './read.js'

export interface CallInputs {
  readonly spec: CallSpec
  /** The input as written. */
  readonly text: string
  /** The call-body input as written, '' for none: part of the call's fingerprint. */
  readonly bodyText: string
  /** call-resume-from: earlier attempts' results, whose finished targets are skipped. */
  readonly resumeFrom?: string
  /** call-dry-run: everything up to the calls, then a planned line per target and no call. */
  readonly dryRun: boolean
  /** plan-digest: the approved plan; no call unless this step's plan is the same. */
  readonly planDigest?: string
  /** plan-from: the plan job's results file, checked against plan-digest, to name a difference. */
  readonly planFrom?: string
  readonly concurrency: number
  readonly rate?: number
  readonly idempotent: boolean
  readonly accept: ReadonlySet<number>
  /** call-max-failures: a count, or a percentage of the calls answered. */
  readonly maxFailures: FailureLimit
  /** call-waves: the waves' sizes, the last repeating; absent for one wave of every target. */
  readonly waves?: readonly WaveSize[]
  /** call-canary: call only this first wave of the targets, ranked as waves rank them. */
  readonly canary?: WaveSize
  /** target-label: the field that names a target to a person in summaries; detected when not given. */
  readonly nameField?: string
}

export function call(listTargetsInput: string): CallInputs | undefined {
  const text = core.getInput('call')
  if (!text) return undefined
  const bodyText = core.getInput('call-body')
  const spec = parseCall(text, bodyText)
  if (!boolean(listTargetsInput) && spec.fields.length > 0) {
    throw new Error(
      `Input call has {${spec.fields[0]}}, but with list-targets: false there is no target to fill it: one call is made, as written`
    )
  }
  const rate = core.getInput('call-rate')
  const planDigest = core.getInput('plan-digest') || undefined
  if (planDigest && !isPlanDigest(planDigest) && !isPlan2Digest(planDigest)) {
    const version = /^plan(\d+)\./.exec(planDigest)?.[1]
    throw new Error(
      version && Number(version) > 2
        ? `Input plan-digest is a plan${version} digest, made by a newer version of this action than this step runs (it reads plan2, and plan1 before it): upgrade this step's action to the version of the plan step`
        : `Input plan-digest must be the plan-digest output of the plan step (plan2. and its parts), got "${planDigest}"`
    )
  }
  return {
    spec,
    text,
    bodyText,
    dryRun: boolean('call-dry-run'),
    planDigest,
    planFrom: planFrom(planDigest),
    resumeFrom: core.getInput('call-resume-from') || undefined,
    concurrency: integer('call-concurrency', 1, 64),
    rate: rate ? number('call-rate', 0.01, 10_000) : undefined,
    idempotent: boolean('call-idempotent'),
    accept: acceptedStatuses(),
    maxFailures: failureLimit(),
    waves: waves(),
    canary: canary(),
    nameField: core.getInput('target-label') || undefined
  }
}

function failureLimit(): FailureLimit {
  const text = read('call-max-failures')
  const limit = parseFailureLimit(text)
  if (!limit) {
    throw new Error(
      `Input call-max-failures must be a whole number from 1 to 10000000 or a percentage of the calls answered (5%), got "${text}"`
    )
  }
  return limit
}

function waves(): WaveSize[] | undefined {
  const text = core.getInput('call-waves')
  if (!text) return undefined
  const sizes = parseWaveSizes(text)
  if (!sizes) {
    throw new Error(
      `Input call-waves must be wave sizes separated by commas, each a whole number or a percentage of the targets (1, 5%, 25%, 100%), got "${text}"`
    )
  }
  return sizes
}

function canary(): WaveSize | undefined {
  const text = core.getInput('call-canary')
  if (!text) return undefined
  const size = parseSize(text.trim())
  if (!size) {
    throw new Error(
      `Input call-canary must be a whole number of targets or a percentage of them (10, or 2%), got "${text}"`
    )
  }
  if (core.getInput('call-waves')) {
    throw new Error('Input call-canary calls one wave only: remove call-waves from the canary step')
  }
  return size
}

/** call-accept: statuses that also count as success, and so decide which results lines are done. */
export function acceptedStatuses(): Set<number> {
  const accept = core.getInput('call-accept')
  const statuses = accept ? accept.split(',').map(s => s.trim()) : []
  if (statuses.some(s => !/^[1-5]\d\d$/.test(s))) {
    throw new Error(
      `Input call-accept must be HTTP statuses separated by commas (for example 404,409), got "${accept}"`
    )
  }
  if (statuses.some(s => s === '401')) {
    throw new Error(
      'Input call-accept must not hold 401: a refused token stops the routine (and is renewed once); remove 401'
    )
  }
  return new Set(statuses.map(Number))
}

function planFrom(planDigest: string | undefined): string | undefined {
  const from = core.getInput('plan-from') || undefined
  if (from && !(planDigest && isPlan2Digest(planDigest))) {
    throw new Error(
      "Input plan-from is the plan job's results file, checked against the approved plan: give plan-digest (a plan2 digest) too, or remove plan-from"
    )
  }
  return from
}
