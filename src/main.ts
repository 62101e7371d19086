import * as core from '@actions/core'
import { appendFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { Bearer } from './auth/bearer.js'
import { obtainToken, renewer } from './auth/token.js'
import { messageOf } from './errors.js'
import { trustEnvironment } from './http/agents.js'
import { Http } from './http/client.js'
import { getInputs } from './inputs.js'
import { publish } from './report/outputs.js'
import { callEveryTarget } from './routine-step.js'
import { Preflight } from './service/routine.js'
import { renderSummary } from './report/summary.js'
import { mask, redact } from './secrets.js'
import { listInto, readInto } from './targets/collect.js'
import { TargetsFile } from './targets/file.js'

const USER_AGENT = 'm2m-targets-action/1'

export async function run(): Promise<void> {
  let http: Http | undefined
  let file: TargetsFile | undefined
  let results: string | undefined
  try {
    trustEnvironment(core.warning, mask)
    const inputs = getInputs()
    http = new Http({
      timeoutMs: inputs.timeoutSeconds * 1000,
      maxAttempts: inputs.maxAttempts,
      userAgent: USER_AGENT,
      info: core.info,
      // A line per attempt costs a write even when the runner hides it: only when debugging.
      debug: core.isDebug() ? core.debug : undefined
    })
    // The targets file and the results file: both readable by their owner only, removed on failure.
    const tempDir = process.env.RUNNER_TEMP || tmpdir()
    // Every target is checked against the call's placeholders as it passes into the targets file.
    const preflight = inputs.call && new Preflight(inputs.call.spec)
    const onTarget = preflight && ((target: unknown) => preflight.check(target))
    const newFile = (): TargetsFile => (file = new TargetsFile({ dir: tempDir, shard: inputs.shard, onTarget }))
    // A snapshot is read before any request: a bad one (or one the call cannot be made for) fails
    // the step before a token is spent on it.
    const { targetsFrom, targetsDigest, shardSize } = inputs
    let targets = targetsFrom ? await readInto({ targetsFrom, targetsDigest, shardSize }, newFile()) : undefined
    preflight?.verify()
    const obtained = await obtainToken({ ...inputs, shardJob: inputs.shard !== undefined }, http)
    const bearer = new Bearer(obtained.token, renewer(inputs, http), core.warning)
    if (!targets && inputs.listTargets) targets = await listInto(http, inputs, bearer, newFile())
    preflight?.verify()
    const calls = inputs.call
      ? await callEveryTarget(http, inputs, bearer, targets, tempDir, path => (results = path))
      : undefined
    // The token in use at the end: a renewal during the work replaced the first one.
    const token = bearer.latest
    const { sealed } = obtained
    const from = targets?.from === 'snapshot' ? 'targets-from' : inputs.baseUrl.origin
    const summary = inputs.summary ? renderSummary(token, from, targets?.listing, Date.now(), calls) : undefined
    publish({
      token,
      sealed: await sealed,
      targets,
      calls,
      targetsOutput: inputs.targetsOutput,
      exportVariable: inputs.exportVariable
    })
    // Last, and never failing the step: a failed step leaves no summary claiming success.
    if (summary) writeSummary(summary)
  } catch (err) {
    file?.discard()
    if (results) rmSync(results, { force: true })
    core.setFailed(redact(messageOf(err)))
  } finally {
    http?.dispose()
  }
}

/**
 * Appends the summary to GITHUB_STEP_SUMMARY. Written directly rather than through core.summary,
 * whose builder we do not need: its asynchronous write cost about 1.3 ms of every run (npm run bench).
 */
function writeSummary(markdown: string): void {
  const file = process.env.GITHUB_STEP_SUMMARY
  try {
    if (!file) throw new Error('GITHUB_STEP_SUMMARY is not set')
    appendFileSync(file, markdown)
  } catch (err) {
    core.warning(`The job summary was not written: ${messageOf(err)}`)
  }
}
