import { formEncode, mask } from '../secrets.js'
import { ClientAuth, Proof } from './credentials.js'

const PROOF_INPUTS =
  'the client-id and client-secret inputs (the secrets they come from may be wrong, expired or rotated)'

/** client_secret_post: the client id and secret in the body (the Auth0 contract). */
export function clientSecretPost(clientSecret: string): ClientAuth {
  return {
    method: 'post',
    proof: async clientId => ({
      headers: {},
      fields: () => ({ client_id: clientId, client_secret: clientSecret })
    }),
    keyMaterial: () => Buffer.from(clientSecret, 'utf8'),
    bound: { method: 'post' },
    proofInputs: PROOF_INPUTS
  }
}

/** client_secret_basic: HTTP Basic credentials, and no secret in the body. */
export function clientSecretBasic(clientSecret: string): ClientAuth {
  return {
    method: 'basic',
    proof: async (clientId): Promise<Proof> => ({
      headers: { Authorization: `Basic ${basicCredentials(clientId, clientSecret)}` },
      fields: () => ({})
    }),
    keyMaterial: () => Buffer.from(clientSecret, 'utf8'),
    bound: { method: 'basic' },
    proofInputs: PROOF_INPUTS
  }
}

/** HTTP Basic client credentials (RFC 6749 §2.3.1): the base64 of form-encoded id:secret, as sent. */
export function basicCredentials(clientId: string, clientSecret: string): string {
  return Buffer.from(`${formEncode(clientId)}:${formEncode(clientSecret)}`).toString('base64')
}

/** Registered for post too: a server may echo id:secret as Basic credentials whatever was sent. */
export function maskBasicCredentials(clientId: string, clientSecret: string): void {
  mask(basicCredentials(clientId, clientSecret))
  mask(Buffer.from(`${clientId}:${clientSecret}`).toString('base64'))
}
