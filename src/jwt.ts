import { KeyObject, randomBytes, sign } from 'node:crypto'
import { parseJsonObject } from './json.js'

export interface Claims {
  readonly sub?: string
  readonly exp?: number
  readonly scope?: string
}

/**
 * The claims of a JWT, read without verifying it: only for display and expiry. Never throws;
 * anything that is not a readable JWT gives no claims.
 */
export function readClaims(token: string): Claims {
  const parts = token.split('.')
  if (parts.length !== 3) return {}
  const payload = parseJsonObject(Buffer.from(parts[1], 'base64url').toString('utf8'))
  if (!payload) return {}
  const { sub, exp, scope } = payload
  return {
    sub: typeof sub === 'string' ? sub : undefined,
    exp: typeof exp === 'number' && Number.isFinite(exp) ? exp : undefined,
    scope: typeof scope === 'string' ? scope : undefined
  }
}

export interface AssertionKey {
  readonly privateKey: KeyObject
  readonly algorithm: 'RS256' | 'ES256'
  readonly keyId?: string
}

/** How long a client assertion is valid: RFC 7523 asks for a short life; servers allow 5 min at most. */
export const ASSERTION_LIFETIME_SECONDS = 120

/**
 * A client assertion (RFC 7523 §2.2, as OpenID Connect's private_key_jwt): iss = sub = the client,
 * aud = the token endpoint, a random jti, signed RS256 or ES256. A fresh one for every attempt.
 */
export function signAssertion(key: AssertionKey, clientId: string, tokenEndpoint: string, nowMs = Date.now()): string {
  const iat = Math.floor(nowMs / 1000)
  const header = { alg: key.algorithm, typ: 'JWT', ...(key.keyId ? { kid: key.keyId } : {}) }
  const claims = {
    iss: clientId,
    sub: clientId,
    aud: tokenEndpoint,
    jti: randomBytes(16).toString('hex'),
    iat,
    exp: iat + ASSERTION_LIFETIME_SECONDS
  }
  const part = (value: object): string => Buffer.from(JSON.stringify(value)).toString('base64url')
  const input = `${part(header)}.${part(claims)}`
  const signature =
    key.algorithm === 'ES256'
      ? sign('sha256', Buffer.from(input), { key: key.privateKey, dsaEncoding: 'ieee-p1363' })
      : sign('sha256', Buffer.from(input), key.privateKey)
  return `${input}.${signature.toString('base64url')}`
}
