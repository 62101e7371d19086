import { generateKeyPairSync, verify } from 'node:crypto'
import {
  ASSERTION_LIFETIME_SECONDS,
  ASSERTION_TYPE,
  privateKeyJwt,
  signAssertion
} from '../../src/auth/private-key-jwt.js'
import { excerpt, redact } from '../../src/secrets.js'
import { captureStdout } from '../helpers.js'

const decode = (segment: string) => JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'))

describe('signAssertion', () => {
  const now = Date.parse('2026-11-22T06:00:00Z')

  it.each([
    ['RS256', generateKeyPairSync('rsa', { modulusLength: 2048 })],
    ['ES256', generateKeyPairSync('ec', { namedCurve: 'prime256v1' })]
  ] as const)('signs %s with the claims RFC 7523 asks for', (algorithm, { privateKey, publicKey }) => {
    const jwt = signAssertion({ privateKey, algorithm }, 'client-1', 'https://idp.test/token', now)
    const [h, c, s] = jwt.split('.')
    expect(decode(h)).toEqual({ alg: algorithm, typ: 'JWT' })
    const claims = decode(c)
    expect(claims).toEqual({
      iss: 'client-1',
      sub: 'client-1',
      aud: 'https://idp.test/token',
      jti: expect.stringMatching(/^[0-9a-f]{32}$/),
      iat: now / 1000,
      exp: now / 1000 + ASSERTION_LIFETIME_SECONDS
    })
    expect(ASSERTION_LIFETIME_SECONDS).toBeLessThanOrEqual(300)
    const key = algorithm === 'ES256' ? { key: publicKey, dsaEncoding: 'ieee-p1363' as const } : publicKey
    expect(verify('sha256', Buffer.from(`${h}.${c}`), key, Buffer.from(s, 'base64url'))).toBe(true)
    // A P-256 signature in JWS form is r || s, 64 bytes; DER would be longer and vary.
    if (algorithm === 'ES256') expect(Buffer.from(s, 'base64url')).toHaveLength(64)
  })

  it('names the key with kid when given, and never repeats a jti', () => {
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' })
    const a = signAssertion({ privateKey, algorithm: 'ES256', keyId: 'k-1' }, 'c', 'https://idp.test/token', now)
    const b = signAssertion({ privateKey, algorithm: 'ES256', keyId: 'k-1' }, 'c', 'https://idp.test/token', now)
    expect(decode(a.split('.')[0]).kid).toBe('k-1')
    expect(decode(a.split('.')[1]).jti).not.toBe(decode(b.split('.')[1]).jti)
  })
})

describe('privateKeyJwt', () => {
  const written = captureStdout()
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' })
  const auth = privateKeyJwt({ privateKey, algorithm: 'ES256', keyId: 'k-9' })

  it('proves the client with a fresh assertion for the token endpoint on every attempt, no header', async () => {
    const proof = await auth.proof('client-1', new URL('https://idp.test/oauth2/token?tenant=x'))
    expect(proof.headers).toEqual({})
    const [a, b] = [proof.fields(Date.now()), proof.fields(Date.now())]
    expect(Object.keys(a)).toEqual(['client_id', 'client_assertion_type', 'client_assertion'])
    expect(a.client_id).toBe('client-1')
    expect(a.client_assertion_type).toBe(ASSERTION_TYPE)
    expect(decode(a.client_assertion.split('.')[1]).aud).toBe('https://idp.test/oauth2/token')
    expect(a.client_assertion).not.toBe(b.client_assertion)
  })

  it('masks each assertion before it is sent, so that an echo of it is redacted', async () => {
    const proof = await auth.proof('client-1', new URL('https://idp.test/token'))
    const { client_assertion: assertion } = proof.fields(Date.now())
    expect(written).toContain(`::add-mask::${assertion}\n`)
    const echoed = `invalid_client: the assertion ${assertion} has expired`
    expect(redact(echoed)).toBe('invalid_client: the assertion *** has expired')
    expect(excerpt(JSON.stringify({ error_description: assertion }))).toBe('{"error_description":"***"}')
  })

  it('seals with the PKCS#8 form of the key, and binds the algorithm and key id', () => {
    expect(auth.keyMaterial()).toEqual(privateKey.export({ type: 'pkcs8', format: 'der' }))
    expect(auth.bound).toEqual({ algorithm: 'ES256', keyId: 'k-9', method: 'private-key-jwt' })
    expect(auth.proofInputs).toMatch(/private-key and private-key-id inputs/)
  })
})
