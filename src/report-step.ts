import * as core from '@actions/core'
import { tmpdir } from 'node:os'
import { ReportInputs } from './inputs/report.js'
import { mergeResults } from './report/merge.js'
import { publishReport } from './report/outputs.js'
import { renderReportSummary } from './report/report-summary.js'
import { reportError } from './report/report-verdict.js'
import { callFingerprint } from './routine/fingerprint.js'
import { compileSelection } from './targets/select.js'
import { snapshotPath } from './targets/snapshot.js'

/**
 * Report mode: one answer for a run of many shards, from their results files and no request. The
 * outputs and the summary are written, then the step fails when a target's outcome is in
 * report-fail-on, with the shards to re-run, when a results file could not be read, or when no
 * result line was read (report-verdict.ts).
 */
export async function reportEveryShard(inputs: ReportInputs, writeSummary: (markdown: string) => void): Promise<void> {
  const fingerprint = inputs.call && callFingerprint(inputs.call)
  const select = inputs.targetsWhere === undefined ? undefined : await compileSelection(inputs.targetsWhere)
  const report = await mergeResults({
    select,
    from: inputs.from,
    fingerprint,
    snapshot: inputs.targetsFrom && snapshotPath(inputs.targetsFrom),
    snapshotDigest: inputs.targetsDigest,
    failOn: inputs.failOn,
    dir: process.env.RUNNER_TEMP || tmpdir(),
    info: core.info,
    warning: core.warning
  })
  if (inputs.summary) writeSummary(renderReportSummary(report))
  publishReport(report)
  const failure = reportError(report, inputs.failOn)
  if (failure) core.setFailed(failure.message)
}
