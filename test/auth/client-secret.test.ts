import {
  basicCredentials,
  clientSecretBasic,
  clientSecretPost,
  maskBasicCredentials
} from '../../src/auth/client-secret.js'
import { redact } from '../../src/secrets.js'
import { captureStdout } from '../helpers.js'

const endpoint = new URL('https://idp.test/oauth/token')

describe('client secret methods', () => {
  captureStdout()

  it('post: the id and secret in the body, in the Auth0 order, and no header', async () => {
    const proof = await clientSecretPost('s3cret').proof('client-1', endpoint)
    expect(proof.headers).toEqual({})
    expect(proof.fields(0)).toStrictEqual({ client_id: 'client-1', client_secret: 's3cret' })
  })

  it('basic: form-encoded id:secret as Basic credentials, and nothing in the body', async () => {
    const proof = await clientSecretBasic('se:cret ü').proof('client 1', endpoint)
    expect(proof.headers).toEqual({ Authorization: `Basic ${basicCredentials('client 1', 'se:cret ü')}` })
    expect(proof.fields(0)).toStrictEqual({})
    expect(Buffer.from(basicCredentials('client 1', 'se:cret ü'), 'base64').toString()).toBe(
      'client+1:se%3Acret+%C3%BC'
    )
  })

  it('seal with the secret and bind only the method', () => {
    for (const auth of [clientSecretPost('s3cret'), clientSecretBasic('s3cret')]) {
      expect(auth.keyMaterial()).toEqual(Buffer.from('s3cret'))
      expect(auth.bound).toEqual({ method: auth.method })
      expect(auth.proofInputs).toMatch(/^the client-id and client-secret inputs/)
    }
  })

  it('redacts the Basic credentials of id:secret, form-encoded or not', () => {
    maskBasicCredentials('client 1', 'se:cret ü')
    const plain = Buffer.from('client 1:se:cret ü').toString('base64')
    expect(redact(`Basic ${basicCredentials('client 1', 'se:cret ü')} / ${plain}`)).toBe('Basic *** / ***')
  })
})
