import { Http, HttpRequest, statusError } from './http.js'
import { Credentials } from './inputs.js'

export interface Token {
  readonly accessToken: string
  readonly tokenType: string
  /** Seconds, as the identity provider stated it; absent when it did not. */
  readonly expiresIn?: number
  readonly scope?: string
}

const MAX_TOKEN_RESPONSE_BYTES = 256 * 1024
const ACTION = 'exchange client credentials for a token'

/**
 * POSTs the client credentials to the token endpoint. `onSecret` is called with every secret
 * in the response the moment it is parsed, before anything else can see or print it.
 */
export async function exchangeToken(
  http: Http,
  credentials: Credentials,
  onSecret: (secret: string) => void
): Promise<Token> {
  const fields = {
    client_id: credentials.clientId,
    client_secret: credentials.clientSecret,
    audience: credentials.audience,
    grant_type: 'client_credentials'
  }
  const request: HttpRequest = {
    method: 'POST',
    url: credentials.tokenUrl,
    headers: {
      'Content-Type': credentials.format === 'json' ? 'application/json' : 'application/x-www-form-urlencoded',
      Accept: 'application/json'
    },
    body: credentials.format === 'json' ? JSON.stringify(fields) : new URLSearchParams(fields).toString(),
    what: 'token request',
    action: ACTION,
    maxBytes: MAX_TOKEN_RESPONSE_BYTES
  }
  const res = await http.send(request)
  if (res.status < 200 || res.status > 299) throw statusError(request, res, adviceFor(res.status, credentials))
  return parseTokenResponse(res.body.toString('utf8'), onSecret)
}

function adviceFor(status: number, credentials: Credentials): string {
  switch (status) {
    case 401:
      return 'Check the client-id and client-secret inputs (the secrets they come from may be wrong, expired or rotated).'
    case 403:
      return `The client has no grant for the audience "${credentials.audience}": authorize the application for that API in the identity provider, or check the audience input.`
    case 400:
      return 'The identity provider rejected the request: check the client-id, audience and token-request-format inputs.'
    case 404:
    case 405:
      return `There is no token endpoint at ${credentials.tokenUrl.href}: check auth-url (the token endpoint is {auth-url}/oauth/token) or set token-url.`
    case 429:
      return 'The identity provider is rate-limiting token requests: re-run later, and reuse one token per run (see sealed-token) to spend fewer.'
    default:
      return status >= 500 ? 'The identity provider failed: re-run later.' : 'Check the auth-url and client inputs.'
  }
}

/** Parses a token endpoint's 200 body. Never quotes the body: it may hold the token. */
export function parseTokenResponse(text: string, onSecret: (secret: string) => void): Token {
  const fail = (what: string): Error => new Error(`Failed to ${ACTION}: the identity provider's response ${what}`)
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    throw fail(`is not valid JSON (${text.length} characters)`)
  }
  if (!json || typeof json !== 'object' || Array.isArray(json)) throw fail('is not a JSON object')
  const body = json as Record<string, unknown>
  for (const key of ['access_token', 'refresh_token', 'id_token']) {
    if (typeof body[key] === 'string') onSecret(body[key])
  }
  const { access_token: accessToken, token_type: tokenType, expires_in: expiresIn, scope } = body
  if (typeof accessToken !== 'string' || accessToken.trim() === '') {
    throw fail(accessToken === undefined ? 'has no access_token' : 'has an access_token that is not a non-empty string')
  }
  if (tokenType !== undefined && (typeof tokenType !== 'string' || tokenType.toLowerCase() !== 'bearer')) {
    throw fail(`has token_type ${JSON.stringify(tokenType).slice(0, 40)}; only Bearer tokens are supported`)
  }
  if (expiresIn !== undefined && (typeof expiresIn !== 'number' || !Number.isFinite(expiresIn) || expiresIn < 0)) {
    throw fail('has an expires_in that is not a non-negative number of seconds')
  }
  if (scope !== undefined && typeof scope !== 'string') throw fail('has a scope that is not a string')
  return { accessToken, tokenType: 'Bearer', expiresIn, scope }
}
