import * as core from '@actions/core'
import { appendFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { Bearer } from './auth/bearer.js'
import type { RecordSigner } from './auth/record-key.js'
import { runSealKey } from './auth/sealed.js'
import { ObtainedToken, obtainToken, renewer } from './auth/token.js'
import { Cancellation, SignalSource } from './cancel.js'
import type { Ending } from './ending.js'
import { messageOf } from './errors.js'
import { trustEnvironment } from './http/agents.js'
import { Http } from './http/client.js'
import { checkGivenInputs, currentDoor, Door } from './doors.js'
import { Inputs, readInputs, reportMode } from './inputs.js'
import { publish } from './report/outputs.js'
import { renderSummary } from './report/summary.js'
import type { RoutineResult } from './routine/routine.js'
import { mask, redact } from './secrets.js'
import { Collected, listInto, readInto } from './targets/collect.js'
import { TargetsFile } from './targets/file.js'

const USER_AGENT = 'm2m-targets-action/1'

export interface RunOptions {
  /** The door the step runs through; its stub's, by default (doors.ts). */
  readonly door?: Door
  /** Where SIGINT and SIGTERM come from: the process. */
  readonly signals?: SignalSource
  readonly exit?: (code: number) => void
}

/** What the step has made so far: until the first call a failure leaves none of it behind. */
interface Made {
  file?: TargetsFile
  calls?: RoutineResult
  phase: 'setup' | 'routine' | 'publish'
}

/** Resolves to how the step ends (ending.ts); it never rejects. */
export async function run(options: RunOptions = {}): Promise<Ending> {
  const exit = options.exit ?? ((code: number) => process.exit(code))
  const made: Made = { phase: 'setup' }
  let http: Http | undefined
  const cancellation = new Cancellation(options.signals ?? process, (name, count) => {
    if (made.phase === 'setup') {
      discard(made)
      core.setFailed(`The step was cancelled (${name}) before any call was made: no output was set and no file kept`)
      exit(1)
    } else if (count > 1) {
      core.setFailed(
        `The step was cancelled again (${name}): its results file was flushed as it stood, no output was set`
      )
      exit(1)
    }
  })
  const door = options.door ?? currentDoor()
  try {
    // A mistyped input fails the step first: a call-bodyy would have sent every call with no body.
    if (door) checkGivenInputs(door)
    trustEnvironment(core.warning, mask)
    // Report mode makes no request and needs no credential: it reads results files only. Each
    // mode's code, its inputs' too, is loaded only when the step is that mode.
    if (reportMode(door?.name)) {
      await (await import('./report-step.js')).reportStep(writeSummary, door)
      return 'exit'
    }
    const inputs = await readInputs(door?.name)
    http = new Http({
      timeoutMs: inputs.timeoutSeconds * 1000,
      maxAttempts: inputs.maxAttempts,
      userAgent: USER_AGENT,
      info: core.info,
      // A line per attempt costs a write even when the runner hides it: only when debugging.
      debug: core.isDebug() ? core.debug : undefined
    })
    await work(inputs, http, made, cancellation, door)
  } catch (err) {
    if (made.phase === 'setup') discard(made)
    core.setFailed(redact(messageOf(err)))
  } finally {
    http?.dispose()
    cancellation.dispose()
  }
  // Calls abandoned by a cancellation may still hold sockets and timers: the step ends now.
  if (made.calls?.cancelled) exit(1)
  return made.phase === 'setup' ? 'exit' : 'drain'
}

/**
 * The run's record key (record-key.ts), when the step holds a secret to derive it from and signs a
 * record or hands the key on with a sealed token: its scrypt is not paid otherwise.
 */
function recordKeyOf(inputs: Inputs): Promise<RecordSigner | undefined> {
  const { credentials } = inputs
  if (!credentials || !(inputs.sealToken || inputs.call)) return Promise.resolve(undefined)
  const key = runSealKey(credentials, inputs.baseUrl, process.env.GITHUB_RUN_ID, inputs.sealedToken)
  const signer = key.then(async k => k && (await import('./auth/record-key.js')).recordSigner(k))
  signer.catch(() => undefined) // awaited where it is used; never an unhandled rejection meanwhile
  return signer
}

/** Before the routine: the targets file only (the results file is made as the routine starts). */
function discard(made: Made): void {
  made.file?.discard()
}

/** inputs -> targets -> token -> [listing] -> [calls] -> summary and outputs. */
async function work(inputs: Inputs, http: Http, made: Made, cancellation: Cancellation, door?: Door): Promise<void> {
  // The targets file and the results file: both readable by their owner only.
  const tempDir = process.env.RUNNER_TEMP || tmpdir()
  // The run's record key, from the secret alone (no request, on the thread pool): it signs this
  // step's record and tells the run's earlier records from forged ones.
  const recordKey = recordKeyOf(inputs)
  // Every target is checked against the call as it passes into the targets file, and the plan
  // and the waves' ranks are worked out there too: no extra read of the list.
  const routine = inputs.call && (await import('./routine-step.js'))
  // A routine's garbage is young: held in a new space that stops growing, peak RSS stays flat.
  // Held from before the targets are read: reading a million of them grew it past the cap.
  const uncap = routine && routine.capYoungGeneration()
  const setup =
    inputs.call &&
    new (await import('./routine-setup.js')).RoutineSetup(inputs, inputs.call.resumeFrom ? await recordKey : undefined)
  const onTarget = setup?.onTarget
  // A condition that does not parse fails here, before any request.
  const select =
    inputs.targetsWhere === undefined
      ? undefined
      : await (await import('./targets/select.js')).compileSelection(inputs.targetsWhere)
  const newFile = (): TargetsFile =>
    (made.file = new TargetsFile({ dir: tempDir, shard: inputs.shard, select, onTarget }))
  // A snapshot is read before any request: a bad one (or one the call cannot be made for) fails
  // the step before a token is spent on it.
  const { targetsFrom, targetsDigest, shardSize } = inputs
  let targets = targetsFrom ? await readInto({ targetsFrom, targetsDigest, shardSize }, newFile()) : undefined
  setup?.checkTargets()
  // With a snapshot, an apply that is not the approved plan fails here, before any request.
  let plan = targets && (await setup?.planDigest(targets))
  const obtained = await obtainToken(
    { ...inputs, shardJob: inputs.shard !== undefined, runId: process.env.GITHUB_RUN_ID },
    http
  )
  const bearer = new Bearer(obtained.token, renewer(inputs, http), core.warning)
  if (!targets && inputs.listTargets) {
    targets = await listInto(http, inputs, bearer, newFile())
    setup?.checkTargets()
  }
  // Bound before any call: a plan-digest that does not match fails the step here.
  plan ??= await setup?.planDigest(targets)
  if (setup && routine) {
    const onRecord = (): void => {
      made.phase = 'routine'
    }
    made.calls = await routine.callEveryTarget(http, inputs, {
      bearer,
      targets,
      signer: await recordKey,
      plan: inputs.call?.planDigest ?? plan,
      earlier: setup.earlier,
      skipped: setup.skipped,
      ranks: setup.waveRanks,
      resultsDir: tempDir,
      signals: cancellation,
      onRecord
    })
    uncap?.()
    made.phase = 'publish'
  }
  await finish(inputs, {
    obtained,
    bearer,
    targets,
    calls: made.calls,
    plan,
    recordKey: (await recordKey)?.publicKey,
    door
  })
}

interface Done {
  readonly obtained: ObtainedToken
  readonly bearer: Bearer
  readonly targets?: Collected
  readonly calls?: RoutineResult
  readonly plan?: string
  readonly recordKey?: string
  readonly door?: Door
}

/** The summary and the outputs; then a routine's failure, once its record is written. */
async function finish(
  inputs: Inputs,
  { obtained, bearer, targets, calls, plan, recordKey, door }: Done
): Promise<void> {
  // The token in use at the end: a renewal during the work replaced the first one.
  const token = bearer.latest
  const from = targets?.from === 'snapshot' ? 'targets-from' : inputs.baseUrl.origin
  // A routine's part of the summary is loaded with it: a step that only lists does not compile it.
  const routine =
    calls &&
    (await import('./report/routine-summary.js')).routineHead(
      inputs.call!.text,
      calls,
      inputs.call!.dryRun ? plan : undefined
    )
  const summary = inputs.summary ? renderSummary(token, from, targets?.listing, Date.now(), routine) : undefined
  const failure = calls && (await import('./routine/verdict.js')).routineError(inputs.call!.text, calls)
  // A routine's summary is written whatever follows: it is the record the person on call reads.
  if (summary && failure) writeSummary(summary)
  publish({
    token,
    sealed: await obtained.sealed,
    targets,
    calls,
    // A shard door gives the digest of a plan it made only: its other routines have none to give.
    plan: inputs.door === 'shard' && !inputs.call?.dryRun ? undefined : plan,
    recordKey,
    door,
    targetsOutput: inputs.targetsOutput,
    exportVariable: inputs.exportVariable
  })
  // Last, and never failing the step: a failed step leaves no summary claiming success.
  if (summary && !failure) writeSummary(summary)
  if (failure) core.setFailed(redact(failure.message))
}

/**
 * Appends the summary to GITHUB_STEP_SUMMARY. Written directly rather than through core.summary,
 * whose builder we do not need: its asynchronous write cost about 1.3 ms of every run (npm run bench).
 */
export function writeSummary(markdown: string): void {
  const file = process.env.GITHUB_STEP_SUMMARY
  try {
    if (!file) throw new Error('GITHUB_STEP_SUMMARY is not set')
    appendFileSync(file, markdown)
  } catch (err) {
    core.warning(`The job summary was not written: ${messageOf(err)}`)
  }
}
