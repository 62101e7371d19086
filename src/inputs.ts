import * as core from '@actions/core'
import { Credentials } from './auth/credentials.js'
import type { CallInputs } from './inputs/call.js'
import { readCredentials } from './inputs/credentials.js'
import { boolean, integer, number, read, url } from './inputs/read.js'
import { shard, snapshot, where } from './inputs/targets.js'
import { shardHandoff } from './inputs/handoff.js'
import { currentDoor, DoorName, givenButUnused } from './doors.js'
import { variableName } from './inputs/variable.js'
import { mask, maskPrivateKey } from './secrets.js'
import { Shard } from './targets/shards.js'

import { DEFAULTS } from './inputs/read.js'
export { DEFAULTS }
export type { CallInputs } from './inputs/call.js'

export interface Inputs {
  /** The door the step runs through (doors.ts): the root action, or a sub-action. */
  readonly door: DoorName
  /** Absent when a pre-issued `token` is given. */
  readonly credentials?: Credentials
  readonly token?: string
  readonly sealedToken?: string
  /**
   * Whether to seal the token for the sealed-token output: the list door always does; the root
   * action with seal-token, or a shard-size other than its default. Sealing costs a scrypt.
   */
  readonly sealToken: boolean
  readonly minValiditySeconds: number
  readonly baseUrl: URL
  readonly listTargets: boolean
  readonly exportVariable?: string
  readonly timeoutSeconds: number
  readonly maxAttempts: number
  readonly maxPages: number
  /** How many targets one shard should get: the shards output is ceil(count / shardSize), at most 256. */
  readonly shardSize: number
  /** Keep only this shard of the listing. */
  readonly shard?: Shard
  /** Read the targets from this file or directory (a snapshot an earlier step wrote) instead of listing. */
  readonly targetsFrom?: string
  /** The digest the snapshot must have: sha256:<hex>. */
  readonly targetsDigest?: string
  /** targets-where: the CEL condition that selects the targets, before the shard is taken. */
  readonly targetsWhere?: string
  /** Whether to set the targets output (a fan-out's mint step does not need it). */
  readonly targetsOutput: boolean
  /** The operation to call for every target (or once, without targets). */
  readonly call?: CallInputs
  readonly summary: boolean
}

/**
 * Whether the step makes a report (the report/ door, or report-from given to the action) and no
 * request. A report's inputs are read with its code (inputs/report.ts), which only it loads.
 */
export function reportMode(door: DoorName = 'root'): boolean {
  return door === 'report' || (door === 'root' && core.getInput('report-from') !== '')
}

/** Reads the call inputs (inputs/call.ts): loaded by readInputs only when the step has a call. */
export type CallReader = (listTargetsInput: string) => CallInputs | undefined

/**
 * getInputs, with the call inputs' reader when the step has a call: a step that only lists does
 * not load the routine's parsers (the call, its waves, stop rule and plan), a fifth of the bundle
 * it would otherwise compile at start (docs/performance.md).
 */
export async function readInputs(door: DoorName = 'root'): Promise<Inputs> {
  const readCall = core.getInput('call') === '' ? undefined : (await import('./inputs/call.js')).call
  return getInputs(door, readCall)
}

/** Reads and validates every input; the only place that calls getInput. Masks secrets as they are read. */
export function getInputs(door: DoorName = 'root', readCall?: CallReader): Inputs {
  // Secrets first, so nothing below can print them unmasked.
  const clientSecret = core.getInput('client-secret', { trimWhitespace: false })
  mask(clientSecret)
  const privateKeyText = core.getInput('private-key')
  maskPrivateKey(privateKeyText)
  // A token copied from an Authorization header may keep its scheme: it is sent with one anyway.
  const token = core.getInput('token').replace(/^bearer\s+/i, '')
  mask(token)
  // A shard job's client and service come with the listing job's sealed token.
  const handoff = door === 'shard' ? shardHandoff(clientSecret, privateKeyText) : undefined

  const common = {
    door,
    timeoutSeconds: number('timeout-seconds', 1, 600),
    maxAttempts: integer('max-attempts', 1, 10),
    maxPages: integer('max-pages', 1, 100_000),
    shardSize: integer('shard-size', 1, 100_000),
    sealToken:
      door === 'list' || (door === 'root' && (boolean('seal-token') || read('shard-size') !== DEFAULTS['shard-size'])),
    minValiditySeconds: integer('min-validity-seconds', 0, 31_536_000),
    listTargets: boolean('list-targets'),
    shard: shard('list-targets'),
    ...snapshot('list-targets'),
    targetsWhere: where('list-targets'),
    // The list door hands the list on as a file only.
    targetsOutput: door !== 'list' && boolean('targets-output'),
    call: readCall ? readCall('list-targets') : noCall(),
    summary: boolean('summary'),
    baseUrl: handoff?.baseUrl ?? url('base-url'),
    exportVariable: variableName('export-variable')
  }
  if (!common.call) warnUnusedWithoutCall()
  if (token) {
    if (core.getInput('client-id') || clientSecret || privateKeyText) {
      core.warning(
        'Input token is set, so no exchange is made and the client credentials inputs are not used: remove token to exchange them'
      )
    }
    return { ...common, token }
  }

  return {
    ...common,
    credentials: handoff?.credentials ?? readCredentials(clientSecret, privateKeyText),
    sealedToken: core.getInput('sealed-token') || undefined
  }
}

/** No call input: a step given one reads it with its reader (readInputs), or this throws. */
function noCall(): undefined {
  if (core.getInput('call') !== '') throw new Error('Input call was given, but its reader was not loaded')
  return undefined
}

/** The inputs only a routine uses: given without call, each is named in one warning. */
const ROUTINE_ONLY = [
  'call-body',
  'call-accept',
  'call-rate',
  'call-idempotent',
  'call-max-failures',
  'call-waves',
  'call-canary',
  'call-dry-run',
  'call-resume-from',
  'plan-digest',
  'plan-from',
  'target-label'
]

function warnUnusedWithoutCall(): void {
  const unused = givenButUnused(ROUTINE_ONLY, currentDoor()?.inputs ?? DEFAULTS)
  if (unused.length === 0) return
  core.warning(
    `Input${unused.length === 1 ? '' : 's'} ${unused.join(', ')} ${unused.length === 1 ? 'is' : 'are'} for a routine, and this step has no call input: ` +
      `${unused.length === 1 ? 'it is' : 'they are'} not used. Add call, or remove ${unused.length === 1 ? 'it' : 'them'}.`
  )
}
