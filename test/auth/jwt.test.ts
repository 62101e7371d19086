import { readClaims } from '../../src/auth/jwt.js'
import fc from 'fast-check'

const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url')

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

describe('under random input', () => {
  it('readClaims never throws on any string', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc
            .tuple(fc.string(), fc.jsonValue(), fc.string())
            .map(([a, b, c]) => `${a}.${Buffer.from(JSON.stringify(b) ?? '').toString('base64url')}.${c}`)
        ),
        token => {
          const claims = readClaims(token)
          return typeof claims === 'object' && (claims.exp === undefined || Number.isFinite(claims.exp))
        }
      ),
      { numRuns: 2000 }
    )
  })
})
