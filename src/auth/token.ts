import * as core from '@actions/core'
import { formatDuration } from '../format.js'
import { Http } from '../http/client.js'
import { mask } from '../secrets.js'
import { B64TOKEN_CHARACTERS, b64tokenFlaw } from './b64token.js'
import { Credentials } from './credentials.js'
import { exchangeToken, IssuedToken } from './exchange.js'
import { readClaims } from './jwt.js'
import { canSeal, Sealer, unseal } from './sealed.js'

export type TokenSource = 'exchange' | 'sealed' | 'input'

/** The token the action uses, wherever it came from. */
export interface Token {
  readonly accessToken: string
  readonly tokenType: string
  readonly scope?: string
  /** The JWT's subject, for the summary; absent when the token is not a readable JWT. */
  readonly subject?: string
  /** Absent when neither the response nor the JWT states it. */
  readonly expiresAtMs?: number
  /** expires_in as the identity provider stated it, else what is left until expiresAtMs. */
  readonly expiresInSeconds?: number
  readonly source: TokenSource
}

export interface ObtainedToken {
  readonly token: Token
  /** The sealed-token output: its key is derived on the thread pool while the caller goes on. */
  readonly sealed: Promise<string | undefined>
}

interface TokenFacts {
  readonly accessToken: string
  readonly scope?: string
  /** When the source states it; else the JWT's exp is used. */
  readonly expiresAtMs?: number
  readonly expiresInSeconds?: number
}

/**
 * The one place a Token is made, whatever its source: its characters are checked, so that no token
 * is used, output or exported unless it is inert text; the JWT is read once, for the expiry it may
 * state and the subject.
 */
function makeToken(facts: TokenFacts, source: TokenSource, now: number): Token {
  const flaw = b64tokenFlaw(facts.accessToken)
  if (flaw !== undefined) {
    throw new Error(
      `${TOKEN_FROM[source]} ${flaw}, and a Bearer token may hold only ${B64TOKEN_CHARACTERS} (RFC 6750): ` +
        `it was not used, output or exported. ${ADVICE[source]}`
    )
  }
  const claims = readClaims(facts.accessToken)
  const expiresAtMs = facts.expiresAtMs ?? (claims.exp === undefined ? undefined : claims.exp * 1000)
  return {
    accessToken: facts.accessToken,
    tokenType: 'Bearer',
    // A token input has no other source of its scope; an identity provider's response does.
    scope: source === 'input' ? claims.scope : facts.scope,
    subject: claims.sub,
    expiresAtMs,
    expiresInSeconds: facts.expiresInSeconds ?? secondsLeft(expiresAtMs, now),
    source
  }
}

const TOKEN_FROM: Readonly<Record<TokenSource, string>> = {
  exchange: "The identity provider's access_token",
  sealed: 'The token in the sealed-token input',
  input: 'The token input'
}
const ADVICE: Readonly<Record<TokenSource, string>> = {
  exchange: 'Check that auth-url (or token-url) is your identity provider.',
  sealed: 'Remove sealed-token to exchange client credentials for a fresh token.',
  input: 'Give the token exactly as it was issued.'
}

/** Where the token may come from, as the inputs give it: plain values, so that auth knows no input. */
export interface TokenOptions {
  /** Absent when a pre-issued token is given. */
  readonly credentials?: Credentials
  readonly token?: string
  readonly sealedToken?: string
  readonly minValiditySeconds: number
  /** The service the token is for: a sealed token is bound to it. */
  readonly baseUrl: URL
  /** A shard job of a fan-out: its own exchange is worth a warning about the quota. */
  readonly shardJob?: boolean
  /** The workflow run: a sealed token made here is salted with it (sealed.ts, runSalt). */
  readonly runId?: string
  /** Whether a fresh token is sealed for the sealed-token output: it costs a scrypt. */
  readonly sealToken?: boolean
}

/** The token to use: the `token` input, a still-valid `sealed-token`, or a fresh exchange. */
export async function obtainToken(inputs: TokenOptions, http: Http, now = Date.now()): Promise<ObtainedToken> {
  const { credentials } = inputs
  if (!credentials) {
    const token = makeToken({ accessToken: inputs.token ?? '' }, 'input', now)
    if (token.expiresAtMs !== undefined && token.expiresAtMs <= now) {
      throw new Error(`The token input expired at ${new Date(token.expiresAtMs).toISOString()}: give a fresh token.`)
    }
    core.info(`Using the token from the token input${lifetime(token.expiresAtMs, now)}; no exchange made`)
    return { token, sealed: Promise.resolve(undefined) }
  }

  if (inputs.shardJob && !inputs.sealedToken && canSeal(credentials)) {
    core.warning(
      'This shard job exchanges client credentials for its own token: every shard job of the fan-out does, and each ' +
        "exchange counts against the identity provider's quota (Auth0's free plan: 1,000 machine tokens a month). " +
        "Pass the listing job's sealed-token output to sealed-token to exchange once per run."
    )
  }

  if (inputs.sealedToken) {
    const opened = await unseal(inputs.sealedToken, credentials, inputs.baseUrl)
    if ('reason' in opened && opened.newer !== undefined) {
      throw new Error(
        `Input sealed-token is format m2m${opened.newer}, made by a newer version of this action than this step runs ` +
          "(it reads m2m3, and m2m2 before it): upgrade this step's action to the version of the listing job"
      )
    }
    if ('reason' in opened) {
      core.warning(`The sealed-token input was not used: ${opened.reason}. Exchanging client credentials instead.`)
    } else {
      mask(opened.accessToken)
      const left = (opened.expiresAtMs - now) / 1000
      if (left >= inputs.minValiditySeconds) {
        const token = makeToken(opened, 'sealed', now)
        core.info(`Reused the sealed token${lifetime(opened.expiresAtMs, now)}; no token request made`)
        return { token, sealed: Promise.resolve(inputs.sealedToken) }
      }
      core.warning(
        `The sealed-token input ${left > 0 ? `expires in ${formatDuration(left)}` : 'has expired'}, ` +
          `less than min-validity-seconds (${inputs.minValiditySeconds}). Exchanging client credentials for a fresh token.`
      )
    }
  }

  const issued = await exchangeToken(http, credentials, mask)
  const token = issuedToken(issued, now)
  // The key derivation starts once there is a token to seal, on the thread pool, and overlaps the
  // listing. Not before: a derivation under way holds the process open when the exchange fails.
  const sealable = inputs.sealToken === true && canSeal(credentials)
  const sealer = sealable ? new Sealer(credentials, inputs.baseUrl, inputs.runId) : undefined
  if (inputs.sealToken && !sealer) {
    core.info(
      `No sealed-token output: client-auth ${credentials.auth.method} holds no secret to seal with, so each job of a fan-out exchanges its own`
    )
  }
  core.info(`Exchanged client credentials for a token${lifetime(token.expiresAtMs, now)}`)
  const { expiresAtMs } = token
  const sealed =
    expiresAtMs === undefined || !sealer
      ? Promise.resolve(undefined)
      : sealer.seal({ accessToken: issued.accessToken, scope: issued.scope, expiresAtMs })
  sealed.catch(() => undefined) // awaited by the caller; never an unhandled rejection meanwhile
  return { token, sealed }
}

function issuedToken(issued: IssuedToken, now: number): Token {
  const stated = issued.expiresInSeconds
  return makeToken(
    {
      accessToken: issued.accessToken,
      scope: issued.scope,
      expiresAtMs: stated === undefined ? undefined : now + stated * 1000,
      expiresInSeconds: stated
    },
    'exchange',
    now
  )
}

/** A fresh exchange, for renewal and recovery while the step runs; undefined without credentials. */
export function renewer(inputs: Pick<TokenOptions, 'credentials'>, http: Http): (() => Promise<Token>) | undefined {
  const { credentials } = inputs
  if (!credentials) return undefined
  return async () => {
    const now = Date.now()
    const token = issuedToken(await exchangeToken(http, credentials, mask), now)
    core.info(`Exchanged client credentials for a fresh token${lifetime(token.expiresAtMs, now)}`)
    return token
  }
}

function lifetime(expiresAtMs: number | undefined, now: number): string {
  return expiresAtMs === undefined
    ? ' (its lifetime is not stated)'
    : `, expires in ${formatDuration((expiresAtMs - now) / 1000)}`
}

function secondsLeft(expiresAtMs: number | undefined, now: number): number | undefined {
  return expiresAtMs === undefined ? undefined : Math.max(0, Math.round((expiresAtMs - now) / 1000))
}
