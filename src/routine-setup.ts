import * as core from '@actions/core'
import { RecordSigner, recordVerifier } from './auth/record-key.js'
import { Inputs } from './inputs.js'
import { isPlanDigest } from './routine/plan.js'
import { createHash } from 'node:crypto'
import { callEntry, checkPlanCalls, isPlan2Digest, PlanBuilder, planTags } from './routine/plan-calls.js'
import {
  describeDifference,
  entryHash,
  PlanFile,
  PlannedCall,
  plannedCallAt,
  readPlanFile
} from './routine/plan-file.js'
import { readSnapshot } from './targets/snapshot.js'
import { Preflight } from './routine/preflight.js'
import { EarlierResults, readEarlierResults } from './routine/resume.js'
import { RankList, waveRank } from './routine/waves.js'
import { renderBody, renderPath } from './service/call.js'
import { Collected } from './targets/collect.js'
import { targetKey } from './targets/key.js'
import { recordFingerprint, callFingerprint } from './routine/fingerprint.js'
import { callIdentity, verifiedPlan } from './routine-step.js'

/**
 * What the call stage works out before the first call, as the targets pass into the targets file
 * (no extra read of the list): whether every target can be called (the preflight), the waves'
 * ranks, and the plan — the calls a dry run records, or an apply must match. Earlier attempts'
 * results are read first, since the plan leaves out what they finished.
 */
export class RoutineSetup {
  readonly earlier?: EarlierResults
  private readonly preflight: Preflight
  private readonly ranks?: RankList
  private readonly plan?: PlanBuilder
  private finishedEarlier = 0
  /** The targets seen so far: the next one's place in the targets file. */
  private seen = 0

  /** `signer`: the run's record key, which earlier records must be signed with; none without a secret. */
  constructor(
    private readonly inputs: Inputs,
    signer?: RecordSigner
  ) {
    const call = inputs.call!
    this.preflight = new Preflight(call.spec, call.text)
    if (call.waves || call.canary) this.ranks = new RankList()
    if (call.resumeFrom) {
      this.earlier = readEarlierResults({
        from: call.resumeFrom,
        fingerprint: recordFingerprint(callFingerprint(callIdentity(inputs)), call.accept),
        shard: inputs.shard,
        expected: {
          run: process.env.GITHUB_RUN_ID,
          attempt: Number(process.env.GITHUB_RUN_ATTEMPT) || 1,
          sameAttempt: 'canary only',
          snapshot: inputs.targetsDigest,
          verifier: signer && recordVerifier(signer.publicKey)
        },
        // An apply's own earlier attempts: what they finished is in its plan, not left out of it.
        plan: call.planDigest,
        info: core.info,
        warning: core.warning
      })
    }
    if (call.dryRun || (call.planDigest && isPlan2Digest(call.planDigest))) this.plan = new PlanBuilder()
  }

  /** Sees each target the step keeps, in order. */
  readonly onTarget = (target: unknown): void => {
    const ok = this.preflight.check(target)
    const key = this.ranks || this.plan || this.earlier ? targetKey(target) : ''
    this.ranks?.add(waveRank(key))
    if (this.earlier && this.earlier.finishedAt(this.seen, key) !== undefined) this.finishedEarlier++
    this.seen++
    if (!this.plan || !ok) return
    if (this.skips(key)) return this.plan.skip(key)
    const { spec } = this.inputs.call!
    this.plan.add(key, spec.method, renderPath(spec, target), renderBody(spec, target))
  }

  /** How many of the targets seen an earlier attempt finished: the routine skips them. */
  get skipped(): number {
    return this.finishedEarlier
  }

  /** Throws when a target seen so far cannot be called. */
  checkTargets(): void {
    this.preflight.verify()
  }

  /** The waves' ranks of the targets kept, in list order. */
  get waveRanks(): Uint32Array | undefined {
    return this.ranks?.values()
  }

  /**
   * The plan-digest output; throws before any call when the plan-digest input is not this step's
   * plan, naming what differs.
   */
  async planDigest(targets: Collected | undefined): Promise<string> {
    const { inputs } = this
    const call = inputs.call!
    const approved = call.planDigest
    if (approved && isPlanDigest(approved)) return verifiedPlan(inputs, targets?.digest ?? '', this.usesPlan2Only())
    if (!this.plan) return verifiedPlan(inputs, targets?.digest ?? '')
    // Without targets, the plan is the one call, as written.
    if (!targets) this.plan.add('', call.spec.method, renderPath(call.spec, {}), renderBody(call.spec, {}))
    const own = this.plan.digest({
      targets: targets?.digest ?? '',
      call: call.text.trim(),
      body: call.bodyText,
      baseUrl: inputs.baseUrl,
      where: inputs.targetsWhere,
      shard: inputs.shard && `${inputs.shard.index}/${inputs.shard.count}`
    })
    if (!approved) return own
    // A plan file given is the approved one, or the step fails: it is another job's file.
    const planFile = call.planFrom === undefined ? undefined : readPlanFile(call.planFrom, approved)
    if (own === approved) {
      core.info(`The plan is the approved one (plan-digest): its ${this.plan.count} calls are made as planned`)
      return own
    }
    // One shard of a plan made over every target: its calls must be the plan's calls of this shard.
    const ofShard = inputs.shard && wholePlan(approved) ? inputs.shard : undefined
    const first = planFile && targets ? await this.firstDifference(planFile, targets, ofShard) : undefined
    if (planFile && ofShard && first === undefined) {
      core.info(
        `The plan is the approved one (plan-digest and plan-from): shard ${ofShard.index} of ${ofShard.count} makes its ${this.plan.count} of the plan's calls`
      )
      return approved
    }
    const hint =
      ofShard && !planFile ? 'to apply one shard of a plan made over every target, give plan-from' : undefined
    checkPlanCalls(approved, own, first, hint)
    return own
  }

  /** Where this step's calls first part from the plan file's, going through the targets again. */
  private async firstDifference(
    planFile: PlanFile,
    targets: Collected,
    shard?: { readonly index: number; readonly count: number }
  ): Promise<string | undefined> {
    // The plan's calls this step is held to: all of them, or one shard's of a plan made over all.
    const theirs: number[] = []
    for (let i = 0; i < planFile.count; i++) {
      if (!shard || (planFile.places[i] % shard.count) + 1 === shard.index) theirs.push(i)
    }
    const { spec } = this.inputs.call!
    let index = 0
    let found: string | undefined
    const ours = (target: unknown): PlannedCall => ({
      key: targetKey(target),
      method: spec.method,
      path: renderPath(spec, target),
      body: renderBody(spec, target)
    })
    await readSnapshot(targets.listing.file, batch => {
      for (const target of batch) {
        if (found !== undefined) return
        const call = ours(target)
        if (this.skips(call.key)) continue
        const hash = entryHash(callEntry(call.key, call.method, call.path, call.body))
        const at = theirs[index]
        if (at === undefined || hash[0] !== planFile.hashes[2 * at] || hash[1] !== planFile.hashes[2 * at + 1]) {
          found = describeDifference(index, at === undefined ? undefined : plannedCallAt(planFile, at), call)
        }
        index++
      }
    })
    if (found === undefined && index < theirs.length) {
      found = describeDifference(index, plannedCallAt(planFile, theirs[index]), undefined)
    }
    return found
  }

  /** Whether the plan leaves a target out: an earlier attempt, not of this plan, finished it. */
  private skips(key: string): boolean {
    const { earlier } = this
    return earlier !== undefined && earlier.finished(key) !== undefined && !earlier.finishedByPlan(key)
  }

  /** What a plan1 digest (which binds the snapshot and the call only) cannot vouch for. */
  private usesPlan2Only(): string | undefined {
    const { inputs } = this
    if (inputs.shard) return 'shard'
    if (inputs.targetsWhere) return 'targets-where'
    if (inputs.call!.resumeFrom) return 'call-resume-from'
    return undefined
  }
}

/** Whether a plan2 digest is of a plan made over every target: its shard tag is no shard's. */
function wholePlan(digest: string): boolean {
  return planTags(digest)[5] === NO_SHARD_TAG
}
const NO_SHARD_TAG = createHash('sha256').update('').digest('hex').slice(0, 8)
