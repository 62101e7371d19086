import * as core from '@actions/core'
import { MAX_SHARDS, parseShard, Shard } from '../targets/shards.js'
import { redact } from '../secrets.js'
import { boolean } from './read.js'

export function shard(listTargetsInput: string): Shard | undefined {
  const value = core.getInput('shard')
  if (!value) return undefined
  const parsed = parseShard(value)
  if (!parsed) {
    throw new Error(
      `Input shard must be K/N with 1 <= K <= N <= ${MAX_SHARDS}, as in the shards output (for example 3/20), got "${value}"`
    )
  }
  if (!boolean(listTargetsInput)) {
    throw new Error('Input shard needs the targets listed: remove shard, or set list-targets to true')
  }
  return parsed
}

export function snapshot(listTargetsInput: string): { targetsFrom?: string; targetsDigest?: string } {
  const targetsFrom = core.getInput('targets-from') || undefined
  const targetsDigest = core.getInput('targets-digest').toLowerCase() || undefined
  if (targetsDigest && !targetsFrom) {
    throw new Error('Input targets-digest checks the file of targets-from: set targets-from too, or remove it')
  }
  if (targetsDigest && !/^sha256:[0-9a-f]{64}$/.test(targetsDigest)) {
    throw new Error(
      `Input targets-digest must be sha256: and 64 hex digits, as the targets-digest output gives it, got "${targetsDigest}"`
    )
  }
  if (targetsFrom && !boolean(listTargetsInput)) {
    throw new Error('Input targets-from gives the targets: remove list-targets: false')
  }
  if (targetsFrom && !targetsDigest) {
    core.warning(
      `Input targets-from ${JSON.stringify(redact(targetsFrom))} is read without targets-digest, so nothing checks that it is the listing job's snapshot, unchanged: ` +
        "an edited file, or another run's, would be taken as the targets. Pass the listing step's targets-digest output as targets-digest."
    )
  }
  return { targetsFrom, targetsDigest }
}

/** targets-where: the CEL condition a target must meet; compiled by the caller, before any request. */
export function where(listTargetsInput: string): string | undefined {
  const text = core.getInput('targets-where')
  if (!text) return undefined
  if (!boolean(listTargetsInput)) {
    throw new Error('Input targets-where selects among listed targets: remove it, or set list-targets to true')
  }
  return text
}
