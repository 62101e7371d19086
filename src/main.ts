import * as core from '@actions/core'
import { appendFileSync } from 'node:fs'
import { Http } from './http.js'
import { getInputs } from './inputs.js'
import { publish } from './outputs.js'
import { redact } from './secrets.js'
import { listTargets } from './service.js'
import { renderSummary } from './summary.js'
import { obtainToken } from './token.js'

const USER_AGENT = 'm2m-targets-action/1'

export async function run(): Promise<void> {
  let http: Http | undefined
  try {
    const inputs = getInputs()
    http = new Http({
      timeoutMs: inputs.timeoutSeconds * 1000,
      maxAttempts: inputs.maxAttempts,
      userAgent: USER_AGENT,
      info: core.info,
      debug: core.debug
    })
    const token = await obtainToken(inputs, http)
    const targets = inputs.listTargets
      ? await listWithProgress(http, inputs.baseUrl, token.accessToken, inputs.maxPages)
      : undefined
    const summary = inputs.summary ? renderSummary(token, inputs.baseUrl, targets, Date.now()) : undefined
    publish(token, targets, inputs.exportVariable)
    // Last, and never failing the step: a failed step leaves no summary claiming success.
    if (summary) writeSummary(summary)
  } catch (err) {
    core.setFailed(redact(err instanceof Error ? err.message : String(err)))
  } finally {
    http?.dispose()
  }
}

/** Lists targets; a list of more than one page logs a line per page inside a collapsed group. */
async function listWithProgress(http: Http, baseUrl: URL, token: string, maxPages: number): Promise<unknown[]> {
  let grouped = false
  const onPage = (page: number, count: number, total: number, more: boolean): void => {
    if (page === 1 && !more) return
    if (!grouped) core.startGroup('Listing targets page by page')
    grouped = true
    core.info(`Page ${page}: ${count} targets (${total} so far)`)
  }
  let targets: unknown[]
  try {
    targets = await listTargets(http, { baseUrl, token, maxPages, onPage })
  } finally {
    if (grouped) core.endGroup()
  }
  core.info(`Listed ${targets.length} target${targets.length === 1 ? '' : 's'}`)
  return targets
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
    core.warning(`The job summary was not written: ${err instanceof Error ? err.message : String(err)}`)
  }
}
