import * as core from '@actions/core'
import { appendFileSync, statSync, truncateSync } from 'node:fs'
import { Token } from '../auth/token.js'
import { messageOf } from '../errors.js'
import { formatBytes, isoSeconds } from '../format.js'
import { randomHex } from '../random.js'
import { redact } from '../secrets.js'
import { RoutineResult } from '../routine/routine.js'
import { Outcome } from '../routine/lines.js'
import type { MergedReport } from './merge.js'
import { REPORT_OUTCOMES, ReportOutcome } from './report-outcomes.js'
import { Door } from '../doors.js'
import { Collected } from '../targets/collect.js'
import { MAX_OUTPUT_BYTES } from '../targets/file.js'
import { shardList } from '../targets/shards.js'

/** Linux refuses an environment value over 128 KiB (MAX_ARG_STRLEN): `env: X: ${{ … }}` breaks past it. */
export const ENV_VALUE_BYTES = 128 * 1024

export interface Published {
  readonly token: Token
  readonly sealed?: string
  readonly targets?: Collected
  /** Whether to set the targets output: false leaves it out, and its size warnings. */
  readonly targetsOutput?: boolean
  readonly calls?: RoutineResult
  /** The plan-digest output, with the call input. */
  readonly plan?: string
  /** The record-key output: the public half of the run's record key, when the step holds it. */
  readonly recordKey?: string
  /** The door the step runs through: only the outputs it declares are set. */
  readonly door?: Door
  readonly exportVariable?: string
}

/**
 * Writes every output, and the exported variable, all or nothing: the runner reads file commands
 * even from a failed step, so a write that fails midway is undone before the step fails.
 */
export function publish({
  token,
  sealed,
  targets,
  targetsOutput = true,
  calls,
  plan,
  recordKey,
  exportVariable,
  door
}: Published): void {
  const outputs: Record<string, string> = {
    token: token.accessToken,
    'token-type': token.tokenType,
    'token-source': token.source,
    'expires-in': token.expiresInSeconds === undefined ? '' : String(token.expiresInSeconds),
    'expires-at': token.expiresAtMs === undefined ? '' : isoSeconds(token.expiresAtMs),
    // The only one of them a server writes as it likes (an identity provider, or one before it for a
    // sealed token): it may echo what it was sent, and is not a secret the runner hides.
    scope: redact(token.scope ?? ''),
    'sealed-token': sealed ?? ''
  }
  if (targets) Object.assign(outputs, targetOutputs(targets, targetsOutput))
  if (calls) Object.assign(outputs, callOutputs(calls))
  if (plan) outputs['plan-digest'] = plan
  if (recordKey) outputs['record-key'] = recordKey
  outputs.counts = JSON.stringify(calls ? callCounts(calls) : targets ? listCounts(targets) : {})
  const writes: FileCommand[] = [{ variable: 'GITHUB_OUTPUT', values: declared(outputs, door) }]
  if (exportVariable) writes.push({ variable: 'GITHUB_ENV', values: { [exportVariable]: token.accessToken } })
  writeFileCommands(writes)
}

/** The routine's counts by outcome, and where its record is. */
export function callOutputs(calls: RoutineResult): Record<string, string> {
  const n = (outcome: Outcome): string => String(calls.outcomes.get(outcome) ?? 0)
  const outputs: Record<string, string> = {
    'calls-succeeded': n('succeeded'),
    'calls-failed': n('failed'),
    'calls-unknown': n('unknown'),
    'calls-skipped': n('skipped'),
    'calls-not-made': n('not-made'),
    'calls-planned': n('planned'),
    'results-file': calls.resultsFile
  }
  if (calls.response !== undefined) outputs.response = calls.response
  return outputs
}

/** Report mode's outputs: the counts by outcome, the report file, and the shards to re-run. */
export function publishReport(report: MergedReport, door?: Door): void {
  const n = (outcome: ReportOutcome): string => String(report.counts.get(outcome) ?? 0)
  const counts = Object.fromEntries([['targets', report.targets], ...REPORT_OUTCOMES.map(o => [o, Number(n(o))])])
  writeFileCommands([
    {
      variable: 'GITHUB_OUTPUT',
      values: declared(
        {
          counts: JSON.stringify(counts),
          'report-targets': String(report.targets),
          'report-succeeded': n('succeeded'),
          'report-skipped': n('skipped'),
          'report-failed': n('failed'),
          'report-unknown': n('unknown'),
          'report-not-made': n('not-made'),
          'report-missing': n('missing'),
          'report-file': report.reportFile,
          'shards-to-rerun': JSON.stringify(report.shardsToRerun)
        },
        door
      )
    }
  ])
}

/** The outputs the door declares; every output for the root action run directly (no door). */
function declared(values: Record<string, string>, door: Door | undefined): Record<string, string> {
  if (!door) {
    const { counts: _counts, ...rest } = values
    void _counts
    return rest
  }
  return Object.fromEntries(Object.entries(values).filter(([name]) => door.outputs.includes(name)))
}

/** The counts output of a routine: its calls by outcome. */
function callCounts(calls: RoutineResult): Record<string, number> {
  const outcomes: Outcome[] = ['succeeded', 'failed', 'unknown', 'not-made', 'skipped', 'planned']
  return Object.fromEntries(outcomes.map(o => [o, calls.outcomes.get(o) ?? 0]))
}

/** The counts output of a listing: listed, selected, and the shards they make. */
function listCounts({ listing, shardCount }: Collected): Record<string, number> {
  return { listed: listing.listed, selected: listing.selected, shards: shardCount }
}

interface FileCommand {
  /** The environment variable naming the file: GITHUB_OUTPUT, GITHUB_ENV. */
  readonly variable: string
  readonly values: Readonly<Record<string, string>>
}

function writeFileCommands(writes: readonly FileCommand[]): void {
  const files = writes.map(({ variable, values }) => {
    const path = process.env[variable]
    // Without the file, core would print the values to the log: never do that.
    if (!path) throw new Error(`${variable} is not set, so the step's outputs cannot be written (run it on a runner)`)
    return { variable, path, text: Object.entries(values).map(fileCommand).join('') }
  })
  const done: { path: string; size: number }[] = []
  let failed = files[0]
  try {
    for (const file of files) {
      failed = file
      done.push({ path: file.path, size: statSync(file.path).size })
      appendFileSync(file.path, file.text)
    }
  } catch (err) {
    for (const { path, size } of done) {
      try {
        truncateSync(path, size)
      } catch {
        // nothing more can be done; the step fails below
      }
    }
    throw new Error(`Failed to write the step's outputs to ${failed.variable}: ${messageOf(err)}. No output was set.`, {
      cause: err
    })
  }
}

/** One name<<delimiter entry, with a delimiter found in neither the name nor the value. */
function fileCommand([name, value]: [string, string]): string {
  const delimiter = `ghadelimiter_${randomHex(16)}`
  if (name.includes(delimiter) || value.includes(delimiter)) throw new Error(`Unexpected delimiter in ${name}`)
  return `${name}<<${delimiter}\n${value}\n${delimiter}\n`
}

function targetOutputs({ listing, shardCount, from }: Collected, targetsOutput: boolean): Record<string, string> {
  const outputs: Record<string, string> = {
    'target-count': String(listing.count),
    'targets-file': listing.file,
    shards: JSON.stringify(shardList(shardCount))
  }
  if (listing.where !== undefined) {
    outputs['targets-listed'] = String(listing.listed)
    outputs['targets-selected'] = String(listing.selected)
  }
  // The digest a later job checks its copy of this file against: only a listing makes a new list.
  if (from === 'listing') outputs['targets-digest'] = listing.digest
  if (!targetsOutput) return outputs
  const size = formatBytes(listing.bytes)
  if (listing.json === undefined) {
    core.warning(
      `The targets output was not set: the list is ${size} as JSON, more than ${formatBytes(MAX_OUTPUT_BYTES)}, ` +
        'past what a job output holds (1 MB) and what an expression can read. Read the targets-file output ' +
        'in this job, or fan out over the shards output (see shard-size and shard).'
    )
  } else {
    if (listing.bytes > ENV_VALUE_BYTES) {
      core.warning(
        `The targets output is ${size}: an env value over ${formatBytes(ENV_VALUE_BYTES)} makes the next step fail ` +
          '("Argument list too long"), and expressions fail past about 1 MB. Read the targets-file output instead, ' +
          'or fan out over the shards output (see shard-size and shard).'
      )
    }
    outputs.targets = listing.json
  }
  return outputs
}
