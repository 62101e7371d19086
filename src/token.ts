import * as core from '@actions/core'
import { Http } from './http.js'
import { exchangeToken } from './idp.js'
import { Inputs } from './inputs.js'
import { readClaims } from './jwt.js'
import { seal, unseal } from './sealed.js'
import { mask } from './secrets.js'
import { formatDuration } from './format.js'

export interface AccessToken {
  readonly accessToken: string
  readonly tokenType: string
  readonly scope?: string
  /** Milliseconds since the epoch; absent when neither the response nor the JWT states it. */
  readonly expiresAt?: number
  /** Seconds left: expires_in as the identity provider stated it, else from expiresAt. */
  readonly expiresIn?: number
  readonly source: 'exchange' | 'sealed' | 'input'
  readonly sealed?: string
}

/** The token to use: the `token` input, a still-valid `sealed-token`, or a fresh exchange. */
export async function obtainToken(inputs: Inputs, http: Http, now = Date.now()): Promise<AccessToken> {
  const { credentials } = inputs
  if (!credentials) {
    const token = inputs.token ?? ''
    const claims = readClaims(token)
    const expiresAt = claims.exp === undefined ? undefined : claims.exp * 1000
    if (expiresAt !== undefined && expiresAt <= now) {
      throw new Error(`The token input expired at ${new Date(expiresAt).toISOString()}: give a fresh token.`)
    }
    core.info(`Using the token from the token input${lifetime(expiresAt, now)}; no exchange made`)
    return {
      accessToken: token,
      tokenType: 'Bearer',
      scope: claims.scope,
      expiresAt,
      expiresIn: secondsLeft(expiresAt, now),
      source: 'input'
    }
  }

  if (inputs.sealedToken) {
    const opened = unseal(inputs.sealedToken, credentials, inputs.baseUrl)
    if ('reason' in opened) {
      core.warning(`The sealed-token input was not used: ${opened.reason}. Exchanging client credentials instead.`)
    } else {
      mask(opened.accessToken)
      const left = (opened.expiresAt - now) / 1000
      if (left >= inputs.minValiditySeconds) {
        core.info(`Reused the sealed token${lifetime(opened.expiresAt, now)}; no token request made`)
        return {
          ...opened,
          tokenType: 'Bearer',
          expiresIn: secondsLeft(opened.expiresAt, now),
          source: 'sealed',
          sealed: inputs.sealedToken
        }
      }
      core.warning(
        `The sealed-token input ${left > 0 ? `expires in ${formatDuration(left)}` : 'has expired'}, ` +
          `less than min-validity-seconds (${inputs.minValiditySeconds}). Exchanging client credentials for a fresh token.`
      )
    }
  }

  const token = await exchangeToken(http, credentials, mask)
  const claimed = readClaims(token.accessToken).exp
  const expiresAt =
    token.expiresIn !== undefined ? now + token.expiresIn * 1000 : claimed !== undefined ? claimed * 1000 : undefined
  core.info(`Exchanged client credentials for a token${lifetime(expiresAt, now)}`)
  const sealed = expiresAt === undefined ? undefined : seal({ ...token, expiresAt }, credentials, inputs.baseUrl)
  return { ...token, expiresAt, expiresIn: token.expiresIn ?? secondsLeft(expiresAt, now), source: 'exchange', sealed }
}

function lifetime(expiresAt: number | undefined, now: number): string {
  return expiresAt === undefined
    ? ' (its lifetime is not stated)'
    : `, expires in ${formatDuration((expiresAt - now) / 1000)}`
}

function secondsLeft(expiresAt: number | undefined, now: number): number | undefined {
  return expiresAt === undefined ? undefined : Math.max(0, Math.round((expiresAt - now) / 1000))
}
