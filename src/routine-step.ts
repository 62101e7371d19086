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
import { MAX_WAVES, planWaves, WavePlan, waveCounts, sizeText } from './routine/waves.js'

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
export interface RoutineStage {
  readonly bearer: Bearer
  readonly targets?: Collected
  /** The targets' wave ranks in list order, with call-waves or call-canary. */
  readonly ranks?: Uint32Array
  readonly resultsDir: string
  readonly signals: RoutineSignals
  /** Told of the results file once it exists, before the first call. */
  readonly onRecord: (path: string) => void
}

export async function callEveryTarget(http: Transport, inputs: Inputs, stage: RoutineStage): Promise<RoutineResult> {
  const { bearer, targets, resultsDir, signals, onRecord } = stage
  const call = inputs.call!
  const file = targets?.listing.file
  const waves = wavePlan(call, stage.ranks)
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
  if (waves) {
    const sizes = waves.counts.map(formatCount).join(', ')
    core.info(
      call.canary
        ? `Canary: ${formatCount(waves.counts[0])} of ${what}, ranked as call-waves ranks them; the rest are left to the shards`
        : `In ${waves.counts.length} waves of ${sizes} targets, each answered and checked before the next (call-waves)`
    )
  }
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
    waves,
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
      ? async (offer, keep) => {
          await readSnapshot(file, offer, keep)
        }
      : undefined
  })
}

/** The waves of call-waves or call-canary over the step's targets; throws before any call for too many. */
export function wavePlan(call: NonNullable<Inputs['call']>, ranks: Uint32Array | undefined): WavePlan | undefined {
  if (!ranks || (!call.waves && !call.canary)) return undefined
  if (call.canary) {
    const [count] = waveCounts([call.canary], ranks.length)
    return planWaves(ranks, count === undefined ? [] : [count])
  }
  const counts = waveCounts(call.waves!, ranks.length)
  if (counts.length > MAX_WAVES) {
    throw new Error(
      `Input call-waves makes more than ${MAX_WAVES} waves of ${formatCount(ranks.length)} targets ` +
        `(${call.waves!.map(sizeText).join(', ')}): end it with a larger wave, such as 100%`
    )
  }
  return planWaves(ranks, counts)
}
