import * as core from '@actions/core'
import { Credentials } from '../auth/credentials.js'
import { parseHandoff } from '../auth/handoff.js'
import { credentialsFrom } from './credentials.js'
import { isLoopback } from './read.js'

/**
 * The shard door's client and service: from the listing job's sealed token (handoff.ts), which
 * carries them, with the secret this job is given to open it. Checked before any request.
 */
export function shardHandoff(clientSecret: string, privateKeyText: string): { credentials: Credentials; baseUrl: URL } {
  const text = core.getInput('sealed-token')
  if (!text) throw new Error("Input required and not supplied: sealed-token (the listing job's sealed-token output)")
  const handoff = parseHandoff(text)
  if ('reason' in handoff) {
    const why =
      handoff.newer !== undefined
        ? `is format m2m${handoff.newer}, made by a newer version of this action than this step runs (it reads m2m3): upgrade this step's action to the version of the listing job`
        : /^m2m2\./.test(text)
          ? 'is format m2m2, made by an earlier version of the listing job, which does not carry the client and the service: upgrade the listing job to this version (list/ of this action)'
          : `cannot be read (${handoff.reason}): pass the listing job's sealed-token output, as the README's fan-out shows`
    throw new Error(`Input sealed-token ${why}`)
  }
  const { settings } = handoff
  const baseUrl = new URL(settings.baseUrl)
  const tokenUrl = new URL(settings.tokenUrl)
  for (const url of [baseUrl, tokenUrl]) {
    if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopback(url.hostname))) {
      throw new Error(
        "Input sealed-token names a service or identity provider that is not https: it is not a listing job's"
      )
    }
  }
  return { credentials: credentialsFrom(settings, clientSecret, privateKeyText), baseUrl }
}
