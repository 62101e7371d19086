import { generateKeyPairSync, verify } from 'node:crypto'
import { ASSERTION_LIFETIME_SECONDS, readClaims, signAssertion } from '../src/jwt.js'

const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url')
const decode = (segment: string) => JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'))

describe('readClaims', () => {
  it('reads sub, exp and scope of a JWT without verifying it', () => {
    expect(readClaims(`${part({ alg: 'none' })}.${part({ sub: 'bot', exp: 1800000000, scope: 'read' })}.sig`)).toEqual({
      sub: 'bot',
      exp: 1800000000,
      scope: 'read'
    })
  })

  it.each([
    ['not a JWT', 'opaque-token'],
    ['two parts', 'a.b'],
    ['a payload that is not JSON', `a.${Buffer.from('nope').toString('base64url')}.c`],
    ['a payload that is an array', `a.${part([1])}.c`]
  ])('gives no claims for %s', (_what, token) => {
    expect(readClaims(token)).toEqual({})
  })

  it('ignores claims of the wrong type', () => {
    expect(readClaims(`a.${part({ sub: 7, exp: 'soon', scope: ['x'] })}.c`)).toEqual({
      sub: undefined,
      exp: undefined,
      scope: undefined
    })
  })
})

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
