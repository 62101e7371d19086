import * as core from '@actions/core'
import { Bearer } from './auth/bearer.js'
import { formatCount } from './format.js'
import { Transport } from './http/client.js'
import { CallInputs, Inputs } from './inputs.js'
import { RecordSigner } from './auth/record-key.js'
import { CallIdentity, callFingerprint, recordFingerprint, runIdentity } from './routine/fingerprint.js'
import { RecordHeader } from './routine/record-format.js'
import { checkPlan, planDigest } from './routine/plan.js'
import { EarlierResults } from './routine/resume.js'
import { RoutineResult, runRoutine } from './routine/routine.js'
import { Collected } from './targets/collect.js'
import { readSnapshot } from './targets/snapshot.js'
import { MAX_WAVES, planWaves, WavePlan, waveCounts, sizeText } from './routine/waves.js'

export { capYoungGeneration } from './routine/young-generation.js'

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
 * The plan1 digest of a step that is neither a dry run nor an apply of a plan2 digest: the targets'
 * digest (the snapshot's, or the listing's) bound to the call. An approved plan1 digest (made by an
 * earlier version) is checked, but only where it binds every call: not with `beyond`, an input
 * that chooses among the targets it does not bind.
 */
export function verifiedPlan(inputs: Inputs, targetsDigest: string, beyond?: string): string {
  const own = planDigest(targetsDigest, callIdentity(inputs))
  const approved = inputs.call!.planDigest
  if (approved) {
    if (beyond) {
      throw new Error(
        `Input plan-digest is a plan1 digest, made by an earlier version of this action, which binds the snapshot and the call but not ${beyond}: ` +
          'no call was made. Plan again with this version (its plan-digest is plan2, which binds every call), and have that plan approved.'
      )
    }
    checkPlan(approved, own)
    core.info('The plan is the approved one (plan-digest): the calls are made as planned')
  }
  return own
}

export interface RoutineStage {
  readonly bearer: Bearer
  readonly targets?: Collected
  /** Signs the results file: the run's record key, when the job holds the secret it comes from. */
  readonly signer?: RecordSigner
  /** What earlier attempts finished (call-resume-from), read before the targets. */
  readonly earlier?: EarlierResults
  /** How many of the targets `earlier` finished: skipped, not called. */
  readonly skipped?: number
  /** The targets' wave ranks in list order, with call-waves or call-canary. */
  readonly ranks?: Uint32Array
  readonly resultsDir: string
  readonly signals: RoutineSignals
  /** Told of the results file once it exists, before the first call. */
  readonly onRecord: (path: string) => void
  /** The plan made (a dry run) or applied (plan-digest): the results file's header names it. */
  readonly plan?: string
}

/**
 * The call input's stage, once every target has passed the preflight: reads what earlier attempts
 * finished (call-resume-from), then calls the operation for each target left (or once, without
 * targets). Resolves with the record whatever became of the calls; throws only before the first.
 */
export async function callEveryTarget(http: Transport, inputs: Inputs, stage: RoutineStage): Promise<RoutineResult> {
  const { bearer, targets, resultsDir, signals, onRecord, signer } = stage
  const call = inputs.call!
  const file = targets?.listing.file
  const waves = wavePlan(call, stage.ranks)
  const operation = callFingerprint(callIdentity(inputs))
  const header = recordHeader(inputs, stage, recordFingerprint(operation, call.accept))
  const { earlier } = stage
  const count = targets?.listing.count ?? 1
  sayWhatComes(call, targets ? targetsText(count, stage.skipped ?? 0) : 'one call', header, waves)
  return runRoutine(http, {
    spec: call.spec,
    call: call.text,
    fingerprint: operation,
    header,
    signer,
    baseUrl: inputs.baseUrl,
    bearer,
    concurrency: call.concurrency,
    rate: call.rate,
    accept: call.accept,
    maxFailures: call.maxFailures,
    waves,
    idempotent: call.idempotent,
    runId: header.run,
    runAttempt: header.attempt,
    shard: header.shard ?? undefined,
    resultsDir,
    count,
    earlier,
    dryRun: call.dryRun,
    nameField: call.nameField,
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

/** Whose the results file is: the run and its attempt, the call, the shard, the targets, the plan. */
function recordHeader(inputs: Inputs, stage: RoutineStage, fingerprint: string): RecordHeader {
  const run = runIdentity(process.env.GITHUB_RUN_ID)
  if (run.nonce) {
    core.info(
      'GITHUB_RUN_ID is not set (not on a runner): the Idempotency-Keys of this run use a random nonce, so no other run repeats them'
    )
  }
  const { targets } = stage
  return {
    run: run.id,
    attempt: Number(process.env.GITHUB_RUN_ATTEMPT) || 1,
    call: fingerprint,
    shard: inputs.shard ? `${inputs.shard.index}/${inputs.shard.count}` : null,
    snapshot: targets?.from === 'snapshot' ? targets.digest : null,
    listing: targets?.from === 'listing' ? targets.digest : null,
    where: inputs.targetsWhere ?? null,
    plan: stage.plan ?? null,
    canary: inputs.call!.canary !== undefined,
    signer: stage.signer?.publicKey ?? null
  }
}

/** "500 targets", or "13 of 500 targets (487 done in an earlier attempt are skipped)". */
export function targetsText(count: number, skipped: number): string {
  const all = `${formatCount(count)} target${count === 1 ? '' : 's'}`
  if (skipped === 0) return all
  const them =
    skipped === 1
      ? '1 done in an earlier attempt is skipped'
      : `${formatCount(skipped)} done in an earlier attempt are skipped`
  return `${formatCount(Math.max(0, count - skipped))} of ${all} (${them})`
}

/** The log's word on what the routine is about to do. */
function sayWhatComes(call: CallInputs, what: string, header: RecordHeader, waves: WavePlan | undefined): void {
  const fingerprint = header.call
  if (call.dryRun) core.info(`Planning ${call.text} for ${what}, with no call made (call-dry-run; call ${fingerprint})`)
  else core.info(`Calling ${call.text} for ${what}, ${call.concurrency} at a time (call ${fingerprint})`)
  if (!waves) return
  const sizes = waves.counts.map(formatCount).join(', ')
  core.info(
    call.canary
      ? `Canary: ${formatCount(waves.counts[0])} of ${what}, ranked as call-waves ranks them; the rest are left to the shards`
      : `In ${waves.counts.length} waves of ${sizes} targets, each answered and checked before the next (call-waves)`
  )
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
