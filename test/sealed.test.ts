import { Credentials } from '../src/inputs.js'
import { seal, unseal } from '../src/sealed.js'

const credentials: Credentials = {
  clientId: 'client-1',
  clientSecret: 'secret-1',
  audience: 'https://idp.test/api/v2/',
  tokenUrl: new URL('https://idp.test/oauth/token'),
  format: 'json'
}
const baseUrl = new URL('https://api.test/')
const token = {
  accessToken: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJib3QifQ.sig',
  scope: 'read',
  expiresAt: 1_800_000_000_000
}

describe('sealed tokens', () => {
  it('round-trips with the same secret and settings', () => {
    expect(unseal(seal(token, credentials, baseUrl), credentials, baseUrl)).toEqual(token)
  })

  it('reveals nothing of the token and differs every time', () => {
    const a = seal(token, credentials, baseUrl)
    const b = seal(token, credentials, baseUrl)
    expect(a).not.toBe(b)
    expect(a).toMatch(/^m2m1\.[\w-]+$/)
    for (const part of token.accessToken.split('.')) {
      expect(a).not.toContain(part)
      expect(Buffer.from(a.slice(5), 'base64url').toString('latin1')).not.toContain(part)
    }
  })

  it.each([
    ['another client secret', { ...credentials, clientSecret: 'secret-2' }, baseUrl],
    ['another client id', { ...credentials, clientId: 'client-2' }, baseUrl],
    ['another audience', { ...credentials, audience: 'https://other/' }, baseUrl],
    ['another token URL', { ...credentials, tokenUrl: new URL('https://idp2.test/oauth/token') }, baseUrl],
    ['another base URL', credentials, new URL('https://api2.test/')]
  ])('cannot be opened with %s', (_what, other, otherBase) => {
    expect(unseal(seal(token, credentials, baseUrl), other, otherBase)).toEqual({
      reason: expect.stringContaining('cannot be opened')
    })
  })

  it('detects tampering with any byte', () => {
    const sealed = seal(token, credentials, baseUrl)
    const raw = Buffer.from(sealed.slice(5), 'base64url')
    for (const i of [0, 16, 30, raw.length - 1]) {
      const bad = Buffer.from(raw)
      bad[i] ^= 1
      expect(unseal(`m2m1.${bad.toString('base64url')}`, credentials, baseUrl)).toHaveProperty('reason')
    }
  })

  it.each([
    ['', 'it is not a sealed token of this version'],
    ['m2m0.abc', 'it is not a sealed token of this version'],
    ['m2m1.abc', 'it is truncated']
  ])('explains why %j is unusable', (sealed, reason) => {
    expect(unseal(sealed, credentials, baseUrl)).toEqual({ reason })
  })
})
