import * as core from '@actions/core'
import { tmpdir } from 'node:os'
import { Door } from './doors.js'
import { ReportInputs, reportInputs } from './inputs/report.js'
import { mergeResults } from './report/merge.js'
import { publishReport } from './report/outputs.js'
import { renderReportSummary } from './report/report-summary.js'
import { reportError } from './report/report-verdict.js'
import { recordVerifier } from './auth/record-key.js'
import { callFingerprint, recordFingerprint } from './routine/fingerprint.js'
import { compileSelection } from './targets/select.js'
import { snapshotPath } from './targets/snapshot.js'
import { youngGenerationCap } from './routine/young-generation.js'

/** Report mode (inputs.ts, reportMode), from its inputs. */
export async function reportStep(writeSummary: (markdown: string) => void, door?: Door): Promise<void> {
  await reportEveryShard(reportInputs(true), writeSummary, door)
}

/**
 * Report mode: one answer for a run of many shards, from their results files and no request. The
 * outputs and the summary are written, then the step fails when a target's outcome is in
 * report-fail-on, with the shards to re-run, when a results file could not be read, or when no
 * result line was read (report-verdict.ts).
 */
export async function reportEveryShard(
  inputs: ReportInputs,
  writeSummary: (markdown: string) => void,
  door?: Door
): Promise<void> {
  const fingerprint = inputs.call && recordFingerprint(callFingerprint(inputs.call), inputs.call.accept)
  const select = inputs.targetsWhere === undefined ? undefined : await compileSelection(inputs.targetsWhere)
  // A line's or a target's garbage is young: a new space that stops growing keeps peak RSS down.
  // Held where it stands now: the merge reads its files in one synchronous run, which a timer's
  // check (capYoungGeneration) would only see the end of.
  youngGenerationCap(0)()
  const report = await mergeResults({
    select,
    from: inputs.from,
    fingerprint,
    snapshot: inputs.targetsFrom && snapshotPath(inputs.targetsFrom),
    snapshotDigest: inputs.targetsDigest,
    failOn: inputs.failOn,
    dir: process.env.RUNNER_TEMP || tmpdir(),
    info: core.info,
    warning: core.warning,
    expected: {
      run: process.env.GITHUB_RUN_ID,
      attempt: Number(process.env.GITHUB_RUN_ATTEMPT) || undefined,
      sameAttempt: 'counted',
      snapshot: inputs.targetsDigest,
      verifier: inputs.recordKey === undefined ? undefined : recordVerifier(inputs.recordKey)
    }
  })
  // Another run's or snapshot's files are set aside with a word; forged ones fail the step.
  if (report.refused && !report.forged) core.warning(report.refused)
  if (report.signedUnchecked) {
    core.warning(
      "The results files are signed with a record key, but record-key is not given: the report cannot tell the run's files " +
        'from forged ones. Pass the listing job\'s record-key output to record-key (README, "Fan-out").'
    )
  }
  if (inputs.summary) writeSummary(renderReportSummary(report))
  publishReport(report, door)
  const failure = reportError(report, inputs.failOn)
  if (failure) core.setFailed(failure.message)
}
