import { Bearer, MIN_TOKEN_USE_MS, RENEW_MARGIN_MS } from '../../src/auth/bearer.js'
import { Token } from '../../src/auth/token.js'

const NOW = Date.parse('2026-11-23T06:00:00Z')
const token = (accessToken: string, expiresInMs: number | undefined, source: Token['source'] = 'exchange'): Token => ({
  accessToken,
  tokenType: 'Bearer',
  expiresAtMs: expiresInMs === undefined ? undefined : clock.now + expiresInMs,
  source
})
const clock = { now: NOW }
let renewals = 0
const renew = async (): Promise<Token> => {
  renewals++
  return token(`fresh-${renewals}`, 3_600_000)
}
const warnings: string[] = []
beforeEach(() => {
  clock.now = NOW
  renewals = 0
  warnings.length = 0
})
const bearer = (t: Token, canRenew = true) =>
  new Bearer(
    t,
    canRenew ? renew : undefined,
    m => warnings.push(m),
    () => clock.now
  )

describe('Bearer', () => {
  it('sends the token as it is while it has more than a minute left', async () => {
    const b = bearer(token('first', RENEW_MARGIN_MS + 1))
    await expect(Promise.resolve().then(() => b.current())).resolves.toBe('first')
    expect(renewals).toBe(0)
    // A fresh token is given at once, with no promise to wait for: every call of a routine asks.
    expect(b.current()).toBe('first')
  })

  it('renews a token that comes within a minute of its expiry while the work goes on, once for all callers', async () => {
    const b = bearer(token('first', 30 * 60_000))
    await expect(Promise.resolve().then(() => b.current())).resolves.toBe('first')
    clock.now += 29 * 60_000 + 1 // a long routine later: 59.999 s left
    const all = await Promise.all([b.current(), b.current(), b.current()])
    expect(all).toEqual(['fresh-1', 'fresh-1', 'fresh-1'])
    expect(renewals).toBe(1)
    expect(b.latest.accessToken).toBe('fresh-1')
  })

  it('with only a token input, sends it until it expires, then fails naming when', async () => {
    const b = bearer(token('given', 30_000, 'input'), false)
    await expect(Promise.resolve().then(() => b.current())).resolves.toBe('given')
    clock.now += 30_000
    await expect(Promise.resolve().then(() => b.current())).rejects.toThrow(
      /^The token expired at 2026-11-23T06:00:30Z while the step ran/
    )
  })

  it('recovers once from a 401 on a sealed token, with a warning; never for an exchanged one', async () => {
    const sealed = bearer(token('sealed-1', 3_600_000, 'sealed'))
    await expect(sealed.recover('sealed-1')).resolves.toBe('fresh-1')
    expect(warnings).toEqual([
      expect.stringMatching(/^The service refused the sealed token \(HTTP 401\) \(it had 1 h left\)/)
    ])
    await expect(sealed.recover('fresh-1')).resolves.toBeUndefined() // a second 401 fails as before
    await expect(sealed.recover('sealed-1')).resolves.toBe('fresh-1') // a call that still held the old one
    await expect(bearer(token('exchanged', 3_600_000)).recover('exchanged')).resolves.toBeUndefined()
    expect(renewals).toBe(1)
  })

  it.each([
    [60_000, 2000, 50, 4],
    [30_000, 2000, 50, 7],
    [10_000, 2000, 25, 10]
  ])(
    'renews a token that lives %i ms at half its life, not before every call, and warns once',
    async (lifeMs, calls, msPerCall, most) => {
      let exchanges = 0
      const b = new Bearer(
        token('short-0', lifeMs),
        async () => token(`short-${++exchanges}`, lifeMs),
        m => warnings.push(m),
        () => clock.now
      )
      for (let i = 0; i < calls; i++) {
        await b.current()
        clock.now += msPerCall
      }
      // The work lasts calls * msPerCall; a renewal every lifeMs / 2.
      expect(exchanges).toBeLessThanOrEqual(most)
      expect(exchanges).toBeGreaterThanOrEqual(Math.floor((calls * msPerCall) / lifeMs))
      expect(warnings).toHaveLength(1)
      expect(warnings[0]).toMatch(/^The identity provider issued a token that lasts (\d+ s|1 min), within the minute/)
    }
  )

  it('uses even a token that is expired when it arrives for a second before exchanging again', async () => {
    let exchanges = 0
    const b = new Bearer(
      token('old', 30 * 60_000),
      async () => token(`dead-${++exchanges}`, 0),
      m => warnings.push(m),
      () => clock.now
    )
    clock.now += 30 * 60_000
    for (let i = 0; i < 1000; i++) {
      await b.current()
      clock.now += 10
    }
    expect(exchanges).toBe(Math.ceil((1000 * 10) / MIN_TOKEN_USE_MS))
  })

  it('does not warn of a short life for a sealed or given token', async () => {
    const sealed = bearer(token('sealed', 30_000, 'sealed'))
    await expect(Promise.resolve().then(() => sealed.current())).resolves.toBe('sealed')
    bearer(token('given', 30_000, 'input'), false)
    expect(warnings).toEqual([])
  })
})
