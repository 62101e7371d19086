import { KeyObject, randomBytes, sign } from 'node:crypto'
import { mask } from '../secrets.js'
import { ClientAuth, originAndPath } from './credentials.js'

export type AssertionAlgorithm = 'RS256' | 'ES256'

export interface AssertionKey {
  readonly privateKey: KeyObject
  readonly algorithm: AssertionAlgorithm
  readonly keyId?: string
}

export const ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer'
/** How long a client assertion is valid: RFC 7523 asks for a short life; servers allow 5 min at most. */
export const ASSERTION_LIFETIME_SECONDS = 120

/** private_key_jwt: a client assertion signed with the private key, fresh for every attempt. */
export function privateKeyJwt(key: AssertionKey): ClientAuth {
  return {
    method: 'private-key-jwt',
    proof: async (clientId, tokenEndpoint) => ({
      headers: {},
      fields: nowMs => {
        // It proves the client to whoever holds it until it expires: masked before it is sent, so
        // that an identity provider's error that echoes the request shows it as ***.
        const assertion = signAssertion(key, clientId, originAndPath(tokenEndpoint), nowMs)
        mask(assertion)
        return { client_id: clientId, client_assertion_type: ASSERTION_TYPE, client_assertion: assertion }
      }
    }),
    keyMaterial: () => key.privateKey.export({ type: 'pkcs8', format: 'der' }),
    bound: { algorithm: key.algorithm, keyId: key.keyId, method: 'private-key-jwt' },
    proofInputs: 'the client-id, private-key and private-key-id inputs (the identity provider must hold the public key)'
  }
}

/**
 * A client assertion (RFC 7523 §2.2, as OpenID Connect's private_key_jwt): iss = sub = the client,
 * aud = the token endpoint, a random jti, signed RS256 or ES256.
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
