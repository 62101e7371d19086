import * as core from '@actions/core'
import { formatDuration } from './format.js'
import { Http } from './http.js'
import { exchangeToken } from './idp.js'
import { Inputs } from './inputs.js'
import { readClaims } from './jwt.js'
import { Sealer, unseal } from './sealed.js'
import { mask } from './secrets.js'

/** The token the action uses, wherever it came from. */
export interface Token {
  readonly accessToken: string
  readonly tokenType: string
  readonly scope?: string
  /** Absent when neither the response nor the JWT states it. */
  readonly expiresAtMs?: number
  /** expires_in as the identity provider stated it, else what is left until expiresAtMs. */
  readonly expiresInSeconds?: number
  readonly source: 'exchange' | 'sealed' | 'input'
}

export interface ObtainedToken {
  readonly token: Token
  /** The sealed-token output: its key is derived on the thread pool while the caller goes on. */
  readonly sealed: Promise<string | undefined>
}

/** The token to use: the `token` input, a still-valid `sealed-token`, or a fresh exchange. */
export async function obtainToken(inputs: Inputs, http: Http, now = Date.now()): Promise<ObtainedToken> {
  const { credentials } = inputs
  if (!credentials) {
    const accessToken = inputs.token ?? ''
    const claims = readClaims(accessToken)
    const expiresAtMs = claims.exp === undefined ? undefined : claims.exp * 1000
    if (expiresAtMs !== undefined && expiresAtMs <= now) {
      throw new Error(`The token input expired at ${new Date(expiresAtMs).toISOString()}: give a fresh token.`)
    }
    core.info(`Using the token from the token input${lifetime(expiresAtMs, now)}; no exchange made`)
    const token: Token = {
      accessToken,
      tokenType: 'Bearer',
      scope: claims.scope,
      expiresAtMs,
      expiresInSeconds: secondsLeft(expiresAtMs, now),
      source: 'input'
    }
    return { token, sealed: Promise.resolve(undefined) }
  }

  if (inputs.sealedToken) {
    const opened = await unseal(inputs.sealedToken, credentials, inputs.baseUrl)
    if ('reason' in opened) {
      core.warning(`The sealed-token input was not used: ${opened.reason}. Exchanging client credentials instead.`)
    } else {
      mask(opened.accessToken)
      const left = (opened.expiresAtMs - now) / 1000
      if (left >= inputs.minValiditySeconds) {
        core.info(`Reused the sealed token${lifetime(opened.expiresAtMs, now)}; no token request made`)
        const token: Token = {
          accessToken: opened.accessToken,
          scope: opened.scope,
          expiresAtMs: opened.expiresAtMs,
          tokenType: 'Bearer',
          expiresInSeconds: secondsLeft(opened.expiresAtMs, now),
          source: 'sealed'
        }
        return { token, sealed: Promise.resolve(inputs.sealedToken) }
      }
      core.warning(
        `The sealed-token input ${left > 0 ? `expires in ${formatDuration(left)}` : 'has expired'}, ` +
          `less than min-validity-seconds (${inputs.minValiditySeconds}). Exchanging client credentials for a fresh token.`
      )
    }
  }

  // The key derivation starts now, on the thread pool, and overlaps the token request and the listing.
  const sealer = new Sealer(credentials, inputs.baseUrl)
  const issued = await exchangeToken(http, credentials, mask)
  const claimed = readClaims(issued.accessToken).exp
  const expiresAtMs =
    issued.expiresInSeconds !== undefined
      ? now + issued.expiresInSeconds * 1000
      : claimed !== undefined
        ? claimed * 1000
        : undefined
  core.info(`Exchanged client credentials for a token${lifetime(expiresAtMs, now)}`)
  const token: Token = {
    accessToken: issued.accessToken,
    tokenType: issued.tokenType,
    scope: issued.scope,
    expiresAtMs,
    expiresInSeconds: issued.expiresInSeconds ?? secondsLeft(expiresAtMs, now),
    source: 'exchange'
  }
  const sealed =
    expiresAtMs === undefined
      ? Promise.resolve(undefined)
      : sealer.seal({ accessToken: issued.accessToken, scope: issued.scope, expiresAtMs })
  sealed.catch(() => undefined) // awaited by the caller; never an unhandled rejection meanwhile
  return { token, sealed }
}

function lifetime(expiresAtMs: number | undefined, now: number): string {
  return expiresAtMs === undefined
    ? ' (its lifetime is not stated)'
    : `, expires in ${formatDuration((expiresAtMs - now) / 1000)}`
}

function secondsLeft(expiresAtMs: number | undefined, now: number): number | undefined {
  return expiresAtMs === undefined ? undefined : Math.max(0, Math.round((expiresAtMs - now) / 1000))
}
