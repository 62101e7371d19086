import nock from 'nock'
import { ClientAuth } from '../../src/auth/credentials.js'
import { Sealer, unseal } from '../../src/auth/sealed.js'
import { obtainToken, renewer, TokenOptions } from '../../src/auth/token.js'
import { captureStdout, recordingHttp } from '../helpers.js'
import { clientSecretPost } from '../../src/auth/client-secret.js'
import { useNock } from '../nock.js'

useNock()

const IDP = 'https://tenant.idp.test'
const NOW = Date.parse('2026-11-22T06:00:00Z')
const jwt = (claims: object) => `e30.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.sig`
const base: TokenOptions = {
  credentials: {
    clientId: 'client-1',
    auth: clientSecretPost('secret-for-token-tests'),
    audience: 'https://tenant.idp.test/api/v2/',
    tokenUrl: new URL(`${IDP}/oauth/token`),
    bodyFormat: 'json'
  },
  minValiditySeconds: 300,
  baseUrl: new URL('https://api.test/'),
  sealToken: true
}
const issued = (body: object) => nock(IDP).post('/oauth/token').reply(200, body)

describe('obtainToken: which source wins, and each fallback', () => {
  const written = captureStdout()
  const warnings = () => written.filter(l => l.startsWith('::warning::'))

  it('uses the token input, with its expiry from the JWT, and makes no request', async () => {
    const token = jwt({ exp: NOW / 1000 + 3600, scope: 'read' })
    const { token: got, sealed } = await obtainToken(
      { ...base, credentials: undefined, token },
      recordingHttp().http,
      NOW
    )
    expect(got).toEqual({
      accessToken: token,
      tokenType: 'Bearer',
      scope: 'read',
      expiresAtMs: NOW + 3_600_000,
      expiresInSeconds: 3600,
      source: 'input'
    })
    await expect(sealed).resolves.toBeUndefined()
    expect(written.join('')).toContain('Using the token from the token input, expires in 1 h; no exchange made')
  })

  it('says so when a token input states no lifetime', async () => {
    const { token } = await obtainToken({ ...base, credentials: undefined, token: 'opaque' }, recordingHttp().http, NOW)
    expect(token).toMatchObject({ expiresAtMs: undefined, expiresInSeconds: undefined })
    expect(written.join('')).toContain('(its lifetime is not stated); no exchange made')
  })

  it('refuses an expired token input', async () => {
    const token = jwt({ exp: NOW / 1000 - 1 })
    await expect(obtainToken({ ...base, credentials: undefined, token }, recordingHttp().http, NOW)).rejects.toThrow(
      'The token input expired at 2026-11-22T05:59:59.000Z: give a fresh token.'
    )
  })

  it('exchanges, taking the expiry from expires_in, and seals the token', async () => {
    const token = jwt({ exp: NOW / 1000 + 60 })
    issued({ access_token: token, expires_in: 86400, scope: 'read:targets', token_type: 'Bearer' })
    const got = await obtainToken(base, recordingHttp().http, NOW)
    expect(got.token).toEqual({
      accessToken: token,
      tokenType: 'Bearer',
      scope: 'read:targets',
      expiresAtMs: NOW + 86_400_000,
      expiresInSeconds: 86400,
      source: 'exchange'
    })
    expect(await got.sealed).toMatch(/^m2m3\./)
    expect(written).toContain(`::add-mask::${token}\n`)
    expect(written).toContain('Exchanged client credentials for a token, expires in 24 h\n')
  })

  it('takes the expiry from the JWT when expires_in is absent', async () => {
    const token = jwt({ exp: NOW / 1000 + 1800 })
    issued({ access_token: token })
    const { token: got } = await obtainToken(base, recordingHttp().http, NOW)
    expect(got).toMatchObject({ expiresAtMs: NOW + 1_800_000, expiresInSeconds: 1800 })
  })

  it('seals nothing when neither the response nor the token states an expiry', async () => {
    issued({ access_token: 'opaque-token-value' })
    const { token, sealed } = await obtainToken(base, recordingHttp().http, NOW)
    expect(token.expiresAtMs).toBeUndefined()
    await expect(sealed).resolves.toBeUndefined()
  })

  it('masks an id_token and a refresh_token the response carries', async () => {
    issued({ access_token: 'access-token-1', id_token: 'id-token-value-1', refresh_token: 'refresh-token-1' })
    await obtainToken(base, recordingHttp().http, NOW)
    for (const secret of ['access-token-1', 'id-token-value-1', 'refresh-token-1']) {
      expect(written).toContain(`::add-mask::${secret}\n`)
    }
  })

  it('warns a shard job that exchanges its own token, and no other job', async () => {
    issued({ access_token: 'shard-own-token-1', expires_in: 3600 })
    issued({ access_token: 'shard-own-token-2', expires_in: 3600 })
    await obtainToken({ ...base, shardJob: true }, recordingHttp().http, NOW)
    expect(warnings()).toEqual([
      expect.stringContaining('This shard job exchanges client credentials for its own token')
    ])
    written.length = 0
    await obtainToken({ ...base, shardJob: false }, recordingHttp().http, NOW)
    expect(warnings()).toEqual([])
  })

  it('reuses a sealed token that stays valid long enough, with no request', async () => {
    const access = jwt({ sub: 'bot' })
    const sealedToken = await new Sealer(base.credentials!, base.baseUrl).seal({
      accessToken: access,
      scope: 's',
      expiresAtMs: NOW + 3_600_000
    })
    const got = await obtainToken({ ...base, sealedToken }, recordingHttp().http, NOW)
    expect(got.token).toEqual({
      accessToken: access,
      tokenType: 'Bearer',
      scope: 's',
      subject: 'bot',
      expiresAtMs: NOW + 3_600_000,
      expiresInSeconds: 3600,
      source: 'sealed'
    })
    await expect(got.sealed).resolves.toBe(sealedToken)
    expect(written).toContain(`::add-mask::${access}\n`)
    expect(written.join('')).toContain('Reused the sealed token, expires in 1 h; no token request made')
  })

  it('exchanges, with a warning, when the sealed token expires within min-validity-seconds', async () => {
    const sealedToken = await new Sealer(base.credentials!, base.baseUrl).seal({
      accessToken: 'old-token-1234',
      expiresAtMs: NOW + 200_000
    })
    issued({ access_token: 'new-token-1234', expires_in: 600 })
    const got = await obtainToken({ ...base, sealedToken }, recordingHttp().http, NOW)
    expect(got.token).toMatchObject({ accessToken: 'new-token-1234', source: 'exchange' })
    expect(warnings()).toEqual([
      '::warning::The sealed-token input expires in 3 min, less than min-validity-seconds (300). Exchanging client credentials for a fresh token.\n'
    ])
  })

  it('reuses a sealed token with exactly min-validity-seconds left', async () => {
    const sealedToken = await new Sealer(base.credentials!, base.baseUrl).seal({
      accessToken: 'edge-token-1234',
      expiresAtMs: NOW + 300_000
    })
    const got = await obtainToken({ ...base, sealedToken }, recordingHttp().http, NOW)
    expect(got.token.source).toBe('sealed')
  })

  it('refuses a token input that expires this very second', async () => {
    const token = jwt({ exp: NOW / 1000 })
    await expect(obtainToken({ ...base, credentials: undefined, token }, recordingHttp().http, NOW)).rejects.toThrow(
      'The token input expired at 2026-11-22T06:00:00.000Z'
    )
  })

  it('exchanges, with a warning, when the sealed token has expired', async () => {
    const sealedToken = await new Sealer(base.credentials!, base.baseUrl).seal({
      accessToken: 'old-token-5678',
      expiresAtMs: NOW - 1000
    })
    issued({ access_token: 'new-token-5678', expires_in: 600 })
    await obtainToken({ ...base, sealedToken, minValiditySeconds: 0 }, recordingHttp().http, NOW)
    expect(warnings()[0]).toContain('The sealed-token input has expired, less than min-validity-seconds (0).')
  })

  it('exchanges, with a warning, when the sealed token cannot be opened', async () => {
    issued({ access_token: 'fresh-token-9', expires_in: 600 })
    const got = await obtainToken({ ...base, sealedToken: 'm2m2.AAAA' }, recordingHttp().http, NOW)
    expect(got.token.source).toBe('exchange')
    expect(warnings()).toEqual([
      '::warning::The sealed-token input was not used: it is truncated. Exchanging client credentials instead.\n'
    ])
  })
})

describe('obtainToken: the edges of each source', () => {
  const written = captureStdout()
  const warnings = () => written.filter(l => l.startsWith('::warning::'))
  /** A client-auth that proves the client with no secret of its own, as github-oidc does. */
  const noSecret: ClientAuth = {
    method: 'no-secret-test',
    proof: async clientId => ({ headers: {}, fields: () => ({ client_id: clientId }) }),
    keyMaterial: () => undefined,
    bound: { method: 'no-secret-test' },
    proofInputs: 'the client-id input'
  }

  it('refuses an absent token input as an empty token', async () => {
    await expect(obtainToken({ ...base, credentials: undefined }, recordingHttp().http, NOW)).rejects.toThrow(
      'The token input is empty, and a Bearer token may hold only'
    )
  })

  it('warns a shard job word for word', async () => {
    issued({ access_token: 'shard-own-token-3', expires_in: 3600 })
    await obtainToken({ ...base, shardJob: true }, recordingHttp().http, NOW)
    expect(warnings()).toEqual([
      '::warning::This shard job exchanges client credentials for its own token: every shard job of the fan-out does, and each ' +
        "exchange counts against the identity provider's quota (Auth0's free plan: 1,000 machine tokens a month). " +
        "Pass the listing job's sealed-token output to sealed-token to exchange once per run.\n"
    ])
  })

  it('says a sealed token that expires this very second has expired', async () => {
    const sealedToken = await new Sealer(base.credentials!, base.baseUrl).seal({
      accessToken: 'now-token-1234',
      expiresAtMs: NOW
    })
    issued({ access_token: 'new-token-9012', expires_in: 600 })
    await obtainToken({ ...base, sealedToken }, recordingHttp().http, NOW)
    expect(warnings()[0]).toBe(
      '::warning::The sealed-token input has expired, less than min-validity-seconds (300). Exchanging client credentials for a fresh token.\n'
    )
  })

  it('seals the token it was issued, its scope and expiry, and says nothing of a missing seal', async () => {
    issued({ access_token: 'to-seal-token-1', expires_in: 600, scope: 'read:targets' })
    const got = await obtainToken(base, recordingHttp().http, NOW)
    expect(await unseal((await got.sealed)!, base.credentials!, base.baseUrl)).toEqual({
      accessToken: 'to-seal-token-1',
      scope: 'read:targets',
      expiresAtMs: NOW + 600_000
    })
    expect(written.some(l => l.startsWith('No sealed-token output'))).toBe(false)
  })

  it('seals nothing, and says nothing of it, when no sealed token is wanted', async () => {
    issued({ access_token: 'unwanted-seal-token-1', expires_in: 600 })
    for (const options of [
      { ...base, sealToken: false },
      { ...base, sealToken: undefined }
    ]) {
      const got = await obtainToken(options, recordingHttp().http, NOW)
      await expect(got.sealed).resolves.toBeUndefined()
      issued({ access_token: 'unwanted-seal-token-1', expires_in: 600 })
    }
    expect(written.some(l => l.startsWith('No sealed-token output'))).toBe(false)
  })

  it('says nothing of a missing seal for a client-auth without a secret when none is wanted', async () => {
    issued({ access_token: 'unsealed-token-2', expires_in: 600 })
    const options = { ...base, credentials: { ...base.credentials!, auth: noSecret }, sealToken: false }
    await expect((await obtainToken(options, recordingHttp().http, NOW)).sealed).resolves.toBeUndefined()
    expect(written.some(l => l.startsWith('No sealed-token output'))).toBe(false)
  })

  it('seals nothing, and says why, for a client-auth without a secret', async () => {
    issued({ access_token: 'unsealed-token-1', expires_in: 600 })
    const got = await obtainToken(
      { ...base, credentials: { ...base.credentials!, auth: noSecret }, shardJob: true },
      recordingHttp().http,
      NOW
    )
    expect(got.token.accessToken).toBe('unsealed-token-1')
    await expect(got.sealed).resolves.toBeUndefined()
    expect(warnings()).toEqual([])
    expect(written).toContain(
      'No sealed-token output: client-auth no-secret-test holds no secret to seal with, so each job of a fan-out exchanges its own\n'
    )
  })
})

describe('obtainToken: a token that is not inert text', () => {
  const written = captureStdout()
  const HOSTILE = '--eval=$(shell echo pwned)'
  const rule =
    'and a Bearer token may hold only letters, digits, - . _ ~ + / and = as trailing padding (RFC 6750): ' +
    'it was not used, output or exported.'

  it('refuses a token input, saying what is wrong and what to do, without quoting it', async () => {
    const failed = obtainToken({ ...base, credentials: undefined, token: 'abc;def' }, recordingHttp().http, NOW)
    await expect(failed).rejects.toThrow(
      new Error(
        `The token input has a punctuation character other than - . _ ~ + / at character 4 of 7, ${rule} ` +
          'Give the token exactly as it was issued.'
      )
    )
    expect(written.join('')).not.toContain('Using the token')
  })

  it("refuses an identity provider's token before anything is said of it, and seals nothing", async () => {
    issued({ access_token: HOSTILE, expires_in: 600 })
    const failed = obtainToken(base, recordingHttp().http, NOW)
    await expect(failed).rejects.toThrow(
      new Error(
        `The identity provider's access_token has an = that is not trailing padding at character 7 of 26, ${rule} ` +
          'Check that auth-url (or token-url) is your identity provider.'
      )
    )
    await failed.catch((err: Error) => expect(err.message).not.toContain('shell'))
    // Masked the moment it was parsed, like any token; then neither announced nor sealed.
    expect(written).toContain(`::add-mask::${HOSTILE}\n`)
    expect(written.join('')).not.toMatch(/Exchanged|sealed-token/)
  })

  it('refuses a sealed token that holds one', async () => {
    const sealedToken = await new Sealer(base.credentials!, base.baseUrl).seal({
      accessToken: 'sealed token',
      expiresAtMs: NOW + 3_600_000
    })
    await expect(obtainToken({ ...base, sealedToken }, recordingHttp().http, NOW)).rejects.toThrow(
      new Error(
        `The token in the sealed-token input has a space at character 7 of 12, ${rule} ` +
          'Remove sealed-token to exchange client credentials for a fresh token.'
      )
    )
    expect(written.join('')).not.toContain('Reused the sealed token')
  })

  it('refuses a renewal that brings one', async () => {
    issued({ access_token: 'renewed\ntoken', expires_in: 600 })
    await expect(renewer(base, recordingHttp().http)!()).rejects.toThrow(
      "The identity provider's access_token has a line break at character 8 of 13"
    )
    expect(written.join('')).not.toContain('fresh token')
  })
})

describe('renewer', () => {
  const written = captureStdout()

  it('is undefined without credentials', () => {
    expect(renewer({ credentials: undefined }, recordingHttp().http)).toBeUndefined()
  })

  it('exchanges the credentials again for a fresh token, each time it is called', async () => {
    issued({ access_token: 'renewed-token-1', expires_in: 600 })
    issued({ access_token: 'renewed-token-2' })
    const renew = renewer(base, recordingHttp().http)!
    const first = await renew()
    expect(first).toMatchObject({ accessToken: 'renewed-token-1', expiresInSeconds: 600, source: 'exchange' })
    expect(written).toContain('Exchanged client credentials for a fresh token, expires in 10 min\n')
    expect((await renew()).accessToken).toBe('renewed-token-2')
    expect(written).toContain('Exchanged client credentials for a fresh token (its lifetime is not stated)\n')
  })
})
