import * as core from '@actions/core'
import { appendFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { obtainToken } from './auth/token.js'
import { messageOf } from './errors.js'
import { formatCount } from './format.js'
import { Http } from './http/client.js'
import { getInputs, Inputs } from './inputs.js'
import { publish, TargetOutputs } from './report/outputs.js'
import { renderSummary } from './report/summary.js'
import { redact } from './secrets.js'
import { listTargets } from './service/targets.js'
import { TargetsFile } from './targets/file.js'
import { MAX_SHARDS, shardCount } from './targets/shards.js'

const USER_AGENT = 'm2m-targets-action/1'

export async function run(): Promise<void> {
  let http: Http | undefined
  let file: TargetsFile | undefined
  try {
    const inputs = getInputs()
    http = new Http({
      timeoutMs: inputs.timeoutSeconds * 1000,
      maxAttempts: inputs.maxAttempts,
      userAgent: USER_AGENT,
      info: core.info,
      debug: core.debug
    })
    const { token, sealed } = await obtainToken(inputs, http)
    let targets: TargetOutputs | undefined
    if (inputs.listTargets) {
      file = new TargetsFile({ dir: process.env.RUNNER_TEMP || tmpdir(), shard: inputs.shard })
      targets = await listWithProgress(http, inputs, token.accessToken, file)
    }
    const summary = inputs.summary ? renderSummary(token, inputs.baseUrl, targets?.listing, Date.now()) : undefined
    publish({ token, sealed: await sealed, targets, exportVariable: inputs.exportVariable })
    // Last, and never failing the step: a failed step leaves no summary claiming success.
    if (summary) writeSummary(summary)
  } catch (err) {
    file?.discard()
    core.setFailed(redact(messageOf(err)))
  } finally {
    http?.dispose()
  }
}

/** Lists targets into `file`; a list of more than one page logs a line per page inside a collapsed group. */
async function listWithProgress(http: Http, inputs: Inputs, token: string, file: TargetsFile): Promise<TargetOutputs> {
  let grouped = false
  const onPage = (page: number, count: number, total: number, more: boolean): void => {
    if (page === 1 && !more) return
    if (!grouped) core.startGroup('Listing targets page by page')
    grouped = true
    core.info(`Page ${page}: ${count} targets (${total} so far)`)
  }
  const { baseUrl, maxPages, shard, shardSize } = inputs
  try {
    await listTargets(http, { baseUrl, token, maxPages, onPage, onTargets: targets => file.add(targets) })
  } finally {
    if (grouped) core.endGroup()
  }
  const listing = file.finish()
  const { listed } = listing
  core.info(
    `Listed ${count(listed, 'target')}` +
      (shard ? `; shard ${shard.index} of ${shard.count} holds ${count(listing.count, 'target')}` : '')
  )
  const shards = shardCount(listed, shardSize)
  const wanted = Math.ceil(listed / shardSize)
  if (wanted > shards) {
    core.info(
      `The shards output has ${MAX_SHARDS} shards, not ${wanted}: a matrix runs at most ` +
        `${MAX_SHARDS} jobs, so each shard holds about ${Math.ceil(listed / MAX_SHARDS)} targets, more than shard-size (${shardSize}).`
    )
  }
  return { listing, shardCount: shards }
}

function count(n: number, noun: string): string {
  return `${formatCount(n)} ${noun}${n === 1 ? '' : 's'}`
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
