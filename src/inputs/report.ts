import * as core from '@actions/core'
import { REPORT_OUTCOMES, ReportOutcome } from '../report/merge.js'
import { isRecordKey } from '../auth/record-key.js'
import { CallIdentity } from '../routine/fingerprint.js'
import { acceptedStatuses } from './call.js'
import { parseCall } from '../service/call.js'
import { boolean, read, url } from './read.js'
import { snapshot, where } from './targets.js'

/** Report mode: the inputs of a step that merges results files and makes no request. */
export interface ReportInputs {
  /** report-from: a folder of results files, or one file. */
  readonly from: string
  readonly failOn: ReadonlySet<ReportOutcome>
  /** targets-from and targets-digest: every target of the snapshot is accounted for. */
  readonly targetsFrom?: string
  readonly targetsDigest?: string
  /** targets-where: the shards' own selection, applied to the snapshot so unselected targets are not missing. */
  readonly targetsWhere?: string
  /** The call, when given, whose lines are counted; else the call most lines are of. */
  readonly call?: CallIdentity & { readonly accept: ReadonlySet<number> }
  /** record-key: the run's record key, which every results file must be signed with. */
  readonly recordKey?: string
  readonly summary: boolean
}

const FAIL_ON: readonly ReportOutcome[] = REPORT_OUTCOMES.filter(o => o !== 'succeeded' && o !== 'skipped')

/**
 * The report inputs, or undefined when report-from is not set. No credential is read or asked for:
 * the step makes no request. A credential input that is set anyway is said to be unused.
 */
export function reportInputs(required: true): ReportInputs
export function reportInputs(required?: boolean): ReportInputs | undefined
export function reportInputs(required = false): ReportInputs | undefined {
  const from = core.getInput('report-from')
  if (!from && required) {
    throw new Error(
      "Input required and not supplied: report-from (the folder the shards' results artifacts were downloaded to)"
    )
  }
  if (!from) return undefined
  const unused = ['client-id', 'client-secret', 'private-key', 'token', 'sealed-token'].filter(n => core.getInput(n))
  if (unused.length > 0) {
    core.warning(
      `Input report-from makes a report and no request, so ${unused.join(', ')} ${unused.length === 1 ? 'is' : 'are'} not used: remove ${unused.length === 1 ? 'it' : 'them'} from this step`
    )
  }
  if (core.getInput('call-dry-run').toLowerCase() === 'true' || core.getInput('call-resume-from')) {
    throw new Error(
      'Input report-from makes a report, not calls: remove call-dry-run and call-resume-from from this step'
    )
  }
  const text = read('report-fail-on')
  const failOn = text.split(',').map(s => s.trim().toLowerCase())
  const wrong = failOn.filter(o => !FAIL_ON.includes(o as ReportOutcome))
  if (wrong.length > 0 || failOn.length === 0) {
    throw new Error(
      `Input report-fail-on must be outcomes separated by commas, of ${FAIL_ON.join(', ')}; got "${text}"`
    )
  }
  const callText = core.getInput('call')
  let call: ReportInputs['call']
  if (callText) {
    const body = core.getInput('call-body')
    const spec = parseCall(callText, body)
    const baseUrl = url('base-url', {
      what: "with call, the service the shards called: part of the call's fingerprint"
    })
    call = { method: spec.method, path: callText.trim().split(/\s+/)[1], body, baseUrl, accept: acceptedStatuses() }
  }
  const recordKey = core.getInput('record-key') || undefined
  if (recordKey && !isRecordKey(recordKey)) {
    throw new Error(
      `Input record-key must be the record-key output of the listing job (m2mrk1. and 43 characters), got "${recordKey}"`
    )
  }
  const targets = snapshot('list-targets')
  const targetsWhere = where('list-targets')
  if (targetsWhere !== undefined && targets.targetsFrom === undefined) {
    throw new Error(
      'Input targets-where in a report narrows the snapshot of targets-from, as the shards narrowed it: set targets-from too, or remove targets-where'
    )
  }
  return {
    from,
    failOn: new Set(failOn as ReportOutcome[]),
    ...targets,
    targetsWhere,
    call,
    recordKey,
    summary: boolean('summary')
  }
}
