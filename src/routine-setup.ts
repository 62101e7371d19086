import * as core from '@actions/core'
import { Inputs } from './inputs.js'
import { isPlanDigest } from './routine/plan.js'
import { checkPlanCalls, isPlan2Digest, PlanBuilder } from './routine/plan-calls.js'
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

  constructor(private readonly inputs: Inputs) {
    const call = inputs.call!
    this.preflight = new Preflight(call.spec)
    if (call.waves || call.canary) this.ranks = new RankList()
    if (call.resumeFrom) {
      this.earlier = readEarlierResults({
        from: call.resumeFrom,
        fingerprint: recordFingerprint(callFingerprint(callIdentity(inputs)), call.accept),
        shard: inputs.shard,
        info: core.info,
        warning: core.warning
      })
    }
    if (call.dryRun || (call.planDigest && isPlan2Digest(call.planDigest))) this.plan = new PlanBuilder()
  }

  /** Sees each target the step keeps, in order. */
  readonly onTarget = (target: unknown): void => {
    const ok = this.preflight.check(target)
    const key = this.ranks || this.plan ? targetKey(target) : ''
    this.ranks?.add(waveRank(key))
    if (!this.plan || !ok) return
    if (this.earlier?.finished(key) !== undefined) return this.plan.skip(key)
    const { spec } = this.inputs.call!
    this.plan.add(key, spec.method, renderPath(spec, target), renderBody(spec, target))
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
  planDigest(targets: Collected | undefined): string {
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
    if (approved) {
      checkPlanCalls(approved, own)
      core.info(`The plan is the approved one (plan-digest): its ${this.plan.count} calls are made as planned`)
    }
    return own
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
