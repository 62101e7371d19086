import { Http } from '../http/client.js'
import { parseJsonObject } from '../json.js'
import { excerpt } from '../secrets.js'
import { Operation, perform, ResponseError } from '../http/operation.js'
import { Credentials, originAndPath, Proof } from './credentials.js'

/** A token as the identity provider issued it. */
export interface IssuedToken {
  readonly accessToken: string
  readonly tokenType: string
  /** Seconds, as the identity provider stated it; absent when it did not. */
  readonly expiresInSeconds?: number
  readonly scope?: string
}

const MAX_TOKEN_RESPONSE_BYTES = 256 * 1024
const MAX_EXPIRES_IN_SECONDS = 10 * 365 * 24 * 3600

/**
 * POSTs the client credentials to the token endpoint. `onSecret` is called with every secret
 * in the response the moment it is parsed, before anything else can see or print it.
 */
export async function exchangeToken(
  http: Http,
  credentials: Credentials,
  onSecret: (secret: string) => void
): Promise<IssuedToken> {
  const { bodyFormat, tokenUrl } = credentials
  const proof = await credentials.auth.proof(credentials.clientId, tokenUrl, http)
  const operation: Operation<IssuedToken> = {
    action: 'exchange client credentials for a token',
    request: {
      method: 'POST',
      url: tokenUrl,
      headers: {
        'Content-Type': bodyFormat === 'json' ? 'application/json' : 'application/x-www-form-urlencoded',
        Accept: 'application/json',
        ...proof.headers
      },
      body: () => {
        const fields = tokenRequestFields(credentials, proof)
        return bodyFormat === 'json' ? JSON.stringify(fields) : new URLSearchParams(fields).toString()
      },
      maxBytes: MAX_TOKEN_RESPONSE_BYTES,
      label: 'token request'
    },
    redirect: 'a token request carries the client credentials and is never redirected',
    urlInput: credentials.tokenUrlFrom ?? 'auth-url',
    advice: status => adviceFor(status, credentials),
    parse: res => parseTokenResponse(res.body.toString('utf8'), onSecret)
  }
  return perform(http, operation)
}

/**
 * The token request's fields, in the order the Auth0 contract shows them: with the default
 * client-auth, exactly {client_id, client_secret, audience, grant_type}.
 */
export function tokenRequestFields(credentials: Credentials, proof: Proof, nowMs = Date.now()): Record<string, string> {
  const fields: Record<string, string> = { ...proof.fields(nowMs) }
  if (credentials.audience !== undefined) fields.audience = credentials.audience
  fields.grant_type = 'client_credentials'
  if (credentials.scope !== undefined) fields.scope = credentials.scope
  return fields
}

function adviceFor(status: number, credentials: Credentials): string {
  switch (status) {
    case 401:
      return `Check ${credentials.auth.proofInputs}, and that client-auth (${credentials.auth.method}) is the method the client is registered for.`
    case 403:
      return `The client has no grant for ${credentials.audience === undefined ? 'this API' : `the audience "${credentials.audience}"`}: authorize the application for that API in the identity provider, or check the audience and scope inputs.`
    case 400:
      return 'The identity provider rejected the request: check the client-id, audience, scope, client-auth and token-request-format inputs.'
    case 404:
    case 405:
      return credentials.tokenUrlFrom === 'token-url'
        ? `There is no token endpoint at ${originAndPath(credentials.tokenUrl)}: check token-url.`
        : `There is no token endpoint at ${originAndPath(credentials.tokenUrl)}: check auth-url (the token endpoint is {auth-url}/oauth/token) or set token-url.`
    case 429:
      return 'The identity provider is rate-limiting token requests: re-run later, and reuse one token per run (see sealed-token) to spend fewer.'
    default:
      return status >= 500 ? 'The identity provider failed: re-run later.' : 'Check the auth-url and client inputs.'
  }
}

/** Parses a token endpoint's 200 body. Never quotes the body: it may hold the token. */
export function parseTokenResponse(text: string, onSecret: (secret: string) => void): IssuedToken {
  const fail = (what: string): Error => new ResponseError(`the identity provider's response ${what}`)
  const body = parseJsonObject(text)
  if (body === undefined) throw fail(`is not valid JSON (${text.length} characters)`)
  if (body === null) throw fail('is not a JSON object')
  for (const key of ['access_token', 'refresh_token', 'id_token']) {
    if (typeof body[key] === 'string') onSecret(body[key])
  }
  const { access_token: accessToken, token_type: tokenType, expires_in: expiresIn, scope } = body
  if (typeof accessToken !== 'string' || accessToken.trim() === '') {
    throw fail(accessToken === undefined ? 'has no access_token' : 'has an access_token that is not a non-empty string')
  }
  if (tokenType !== undefined && (typeof tokenType !== 'string' || tokenType.toLowerCase() !== 'bearer')) {
    throw fail(`has token_type ${excerpt(JSON.stringify(tokenType), 40)}; only Bearer tokens are supported`)
  }
  if (expiresIn !== undefined && (typeof expiresIn !== 'number' || !Number.isFinite(expiresIn) || expiresIn < 0)) {
    throw fail('has an expires_in that is not a non-negative number of seconds')
  }
  if (typeof expiresIn === 'number' && expiresIn > MAX_EXPIRES_IN_SECONDS) {
    throw fail(
      `has an expires_in of ${expiresIn} seconds, more than ten years (${MAX_EXPIRES_IN_SECONDS}): it cannot be a token's lifetime`
    )
  }
  if (scope !== undefined && typeof scope !== 'string') throw fail('has a scope that is not a string')
  return { accessToken, tokenType: 'Bearer', expiresInSeconds: expiresIn, scope }
}
