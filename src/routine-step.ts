import * as core from '@actions/core'
import { Bearer } from './auth/bearer.js'
import { formatCount } from './format.js'
import { Transport } from './http/client.js'
import { Inputs } from './inputs.js'
import { CallIdentity, callFingerprint, runIdentity } from './routine/fingerprint.js'
import { checkPlan, planDigest } from './routine/plan.js'
import { readEarlierResults } from './routine/resume.js'
import { RoutineResult, runRoutine } from './routine/routine.js'
import { Collected } from './targets/collect.js'
import { readSnapshot } from './targets/snapshot.js'

export interface RoutineSignals {
  /** The first SIGINT or SIGTERM: drain. */
  readonly signal: AbortSignal
  /** The second: flush and stop at once. */
  readonly hardStop: AbortSignal
}

/** What the call is, for its fingerprint and the plan digest: the inputs as written. */
export function callIdentity(inputs: Inputs): CallIdentity {
  const call = inputs.call!
  return {
    method: call.spec.method,
    path: call.text.trim().split(/\s+/)[1],
    body: call.bodyText,
    baseUrl: inputs.baseUrl
  }
}

/**
 * The plan-digest output, and the check of the plan-digest input before any call: the targets'
 * digest (the snapshot's, or the listing's) bound to the call.
 */
export function verifiedPlan(inputs: Inputs, targetsDigest: string): string {
  const own = planDigest(targetsDigest, callIdentity(inputs))
  const approved = inputs.call!.planDigest
  if (approved) {
    checkPlan(approved, own)
    core.info('The plan is the approved one (plan-digest): the calls are made as planned')
  }
  return own
}

/**
 * The call input's stage, once every target has passed the preflight: reads what earlier attempts
 * finished (call-resume-from), then calls the operation for each target left (or once, without
 * targets). Resolves with the record whatever became of the calls; throws only before the first.
 */
export async function callEveryTarget(
  http: Transport,
  inputs: Inputs,
  bearer: Bearer,
  targets: Collected | undefined,
  resultsDir: string,
  signals: RoutineSignals,
  onRecord: (path: string) => void
): Promise<RoutineResult> {
  const call = inputs.call!
  const file = targets?.listing.file
  const fingerprint = callFingerprint(callIdentity(inputs))
  const run = runIdentity(process.env.GITHUB_RUN_ID)
  if (run.nonce) {
    core.info(
      'GITHUB_RUN_ID is not set (not on a runner): the Idempotency-Keys of this run use a random nonce, so no other run repeats them'
    )
  }
  const earlier = call.resumeFrom
    ? readEarlierResults({
        from: call.resumeFrom,
        fingerprint,
        shard: inputs.shard,
        info: core.info,
        warning: core.warning
      })
    : undefined
  const count = targets?.listing.count ?? 1
  const what = targets ? `${formatCount(count)} target${count === 1 ? '' : 's'}` : 'one call'
  if (call.dryRun) core.info(`Planning ${call.text} for ${what}, with no call made (call-dry-run; call ${fingerprint})`)
  else core.info(`Calling ${call.text} for ${what}, ${call.concurrency} at a time (call ${fingerprint})`)
  return runRoutine(http, {
    spec: call.spec,
    call: call.text,
    fingerprint,
    baseUrl: inputs.baseUrl,
    bearer,
    concurrency: call.concurrency,
    rate: call.rate,
    accept: call.accept,
    maxFailures: call.maxFailures,
    idempotent: call.idempotent,
    runId: run.id,
    runAttempt: Number(process.env.GITHUB_RUN_ATTEMPT) || 1,
    shard: inputs.shard ? `${inputs.shard.index}/${inputs.shard.count}` : undefined,
    resultsDir,
    count,
    earlier,
    dryRun: call.dryRun,
    signal: signals.signal,
    hardStop: signals.hardStop,
    onRecord,
    info: core.info,
    // The kept targets are read back from their file: memory holds a batch, never the list.
    targets: file
      ? async offer => {
          await readSnapshot(file, offer)
        }
      : undefined
  })
}
