import { generateKeyPairSync } from 'node:crypto'
import { clientSecretBasic } from '../../src/auth/client-secret.js'
import { Credentials } from '../../src/auth/credentials.js'
import { encodeHandoff, settingsOf } from '../../src/auth/handoff.js'
import { privateKeyJwt } from '../../src/auth/private-key-jwt.js'
import { shardHandoff } from '../../src/inputs/handoff.js'
import { setInputs } from '../helpers.js'

const basic: Credentials = {
  clientId: 'client-1',
  auth: clientSecretBasic('s'),
  scope: 'read',
  tokenUrl: new URL('https://idp.test/realms/x/token'),
  bodyFormat: 'form'
}
const handoff = (credentials: Credentials, base = 'https://api.test/svc') =>
  encodeHandoff(settingsOf(credentials, new URL(base)), Buffer.alloc(48))

describe('shardHandoff', () => {
  it('takes the client and the service from the sealed token, and the secret from the input', () => {
    setInputs({ 'sealed-token': handoff(basic) })
    const { credentials, baseUrl } = shardHandoff('the-secret', '')
    expect(baseUrl.href).toBe('https://api.test/svc')
    expect(credentials).toMatchObject({
      clientId: 'client-1',
      scope: 'read',
      bodyFormat: 'form',
      tokenUrl: new URL('https://idp.test/realms/x/token'),
      auth: { method: 'basic', bound: { method: 'basic' } }
    })
    expect(credentials.auth.keyMaterial()?.toString()).toBe('the-secret')
  })

  it('needs the secret the method authenticates with', () => {
    setInputs({ 'sealed-token': handoff(basic) })
    expect(() => shardHandoff('', '')).toThrow(
      /^Input required and not supplied: client-secret \(the listing job's client authenticates with basic: its secret opens the sealed token\)$/
    )
  })

  it('signs with the private key for private-key-jwt, keeping the key id of the listing job', () => {
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' })
    const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString()
    const jwt: Credentials = { ...basic, auth: privateKeyJwt({ privateKey, algorithm: 'ES256', keyId: 'k1' }) }
    setInputs({ 'sealed-token': handoff(jwt) })
    expect(shardHandoff('', pem).credentials.auth.bound).toEqual({
      algorithm: 'ES256',
      keyId: 'k1',
      method: 'private-key-jwt'
    })
  })

  it.each([
    [undefined, /^Input required and not supplied: sealed-token/],
    ['m2m2.AAAA', /^Input sealed-token is format m2m2, made by an earlier version of the listing job/],
    ['m2m9.a.b', /^Input sealed-token is format m2m9, made by a newer version of this action than this step runs/],
    ['garbage', /^Input sealed-token cannot be read \(it is not a sealed token of this action\)/]
  ])('refuses %s, saying what to do', (text, message) => {
    setInputs(text === undefined ? {} : { 'sealed-token': text })
    expect(() => shardHandoff('s', '')).toThrow(message)
  })

  it('refuses a handoff naming a service that is not https', () => {
    setInputs({ 'sealed-token': handoff(basic, 'http://api.example.com/') })
    expect(() => shardHandoff('s', '')).toThrow(/names a service or identity provider that is not https/)
    setInputs({ 'sealed-token': handoff(basic, 'http://127.0.0.1:8080/') })
    expect(shardHandoff('s', '').baseUrl.href).toBe('http://127.0.0.1:8080/')
  })
})
