import { createHash, createPrivateKey, generateKeyPairSync } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { ClientAuth, Credentials } from '../../src/auth/credentials.js'
import { encodeHandoff, settingsOf } from '../../src/auth/handoff.js'
import { binding, PREFIX, runSalt, runSealKey, SCRYPT, Sealer, unseal } from '../../src/auth/sealed.js'
import { clientSecretBasic, clientSecretPost } from '../../src/auth/client-secret.js'
import { privateKeyJwt } from '../../src/auth/private-key-jwt.js'

const credentials: Credentials = {
  clientId: 'client-1',
  auth: clientSecretPost('secret-1'),
  audience: 'https://idp.test/api/v2/',
  scope: 'read:targets',
  tokenUrl: new URL('https://idp.test/oauth/token'),
  bodyFormat: 'json'
}
const baseUrl = new URL('https://api.test/')
const contents = {
  accessToken: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJib3QifQ.sig',
  scope: 'read',
  expiresAtMs: 1_800_000_000_000
}
const seal = (c: Credentials = credentials, base: URL = baseUrl) => new Sealer(c, base).seal(contents)
/** A client-auth that holds no secret to seal or open with (github-oidc). */
const noSecret: Credentials = {
  ...credentials,
  auth: {
    method: 'github-oidc',
    proof: async () => ({ headers: {}, fields: () => ({}) }),
    keyMaterial: () => undefined,
    bound: { method: 'github-oidc' },
    proofInputs: 'none'
  } satisfies ClientAuth
}

describe('sealed tokens', () => {
  it('round-trips with the same secret and settings', async () => {
    await expect(unseal(await seal(), credentials, baseUrl)).resolves.toEqual(contents)
  })

  it('reveals nothing of the token and differs every time', async () => {
    const [a, b] = await Promise.all([seal(), seal()])
    expect(a).not.toBe(b)
    expect(a).toMatch(/^m2m3\.[\w-]+\.[\w-]+$/)
    for (const part of contents.accessToken.split('.')) {
      expect(a).not.toContain(part)
      expect(Buffer.from(a.slice(PREFIX.length), 'base64url').toString('latin1')).not.toContain(part)
    }
  })

  it('derives its key with scrypt (N = 2^15, r = 8), not a fast KDF', () => {
    expect(SCRYPT).toMatchObject({ N: 32768, r: 8, p: 1 })
  })

  // Every field of the credentials but the secrets is bound, whatever fields Credentials has.
  const changed: Record<string, unknown> = {
    clientId: 'client-2',
    audience: 'https://other/',
    scope: 'write:targets',
    tokenUrl: new URL('https://idp2.test/oauth/token'),
    bodyFormat: 'form',
    auth: clientSecretBasic('secret-1')
  }
  it.each(Object.keys(credentials))('cannot be opened when %s differs', async field => {
    expect(changed).toHaveProperty(field) // a new field of Credentials needs a row here
    const other = { ...credentials, [field]: changed[field] } as Credentials
    expect(binding(other, baseUrl).equals(binding(credentials, baseUrl))).toBe(false)
    await expect(unseal(await seal(), other, baseUrl)).resolves.toEqual({
      reason: expect.stringContaining('cannot be opened')
    })
  })

  it.each([
    ['another client secret', { ...credentials, auth: clientSecretPost('secret-2') }, baseUrl],
    ['no scope', { ...credentials, scope: undefined }, baseUrl],
    ['another base URL', credentials, new URL('https://api2.test/')]
  ] as [string, Credentials, URL][])('cannot be opened with %s', async (_what, other, otherBase) => {
    await expect(unseal(await seal(), other, otherBase)).resolves.toEqual({
      reason: expect.stringContaining('cannot be opened')
    })
  })

  it('binds the client-auth settings by name, whatever their order', () => {
    const bound = (b: Record<string, string>): Credentials => ({
      ...credentials,
      auth: { ...credentials.auth, bound: b }
    })
    const sorted = binding(bound({ algorithm: 'ES256', keyId: 'k1', method: 'private-key-jwt' }), baseUrl)
    const shuffled = binding(bound({ method: 'private-key-jwt', keyId: 'k1', algorithm: 'ES256' }), baseUrl)
    expect(shuffled.toString()).toBe(sorted.toString())
    expect(Object.keys(JSON.parse(shuffled.toString())[1].auth)).toEqual(['algorithm', 'keyId', 'method'])
  })

  it('keys a private-key-jwt client by its private key, and binds its key id', async () => {
    const key = (k: ReturnType<typeof generateKeyPairSync>['privateKey'], keyId = 'k1'): Credentials => ({
      ...credentials,
      auth: privateKeyJwt({ privateKey: k, algorithm: 'ES256', keyId })
    })
    const one = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey
    const two = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey
    const sealed = await seal(key(one))
    await expect(unseal(sealed, key(one), baseUrl)).resolves.toEqual(contents)
    await expect(unseal(sealed, key(two), baseUrl)).resolves.toHaveProperty('reason')
    await expect(unseal(sealed, key(one, 'k2'), baseUrl)).resolves.toHaveProperty('reason')
  })

  it('detects tampering in every part: salt, IV, tag and ciphertext', async () => {
    const sealed = await seal()
    const raw = Buffer.from(sealed.slice(PREFIX.length), 'base64url')
    // Each opening costs a scrypt: the first, a middle and the last byte of each part (16, 12, 16, rest).
    const parts = [0, 8, 15, 16, 21, 27, 28, 35, 43, 44, (44 + raw.length) >> 1, raw.length - 1]
    const results = await Promise.all(
      parts.map(i => {
        const bad = Buffer.from(raw)
        bad[i] ^= 1 << (i % 8)
        return unseal(`${PREFIX}${bad.toString('base64url')}`, credentials, baseUrl)
      })
    )
    expect(results.every(r => 'reason' in r)).toBe(true)
  })

  it('opens values sealed by the released m2m2. format (golden values, made before the binding was named)', async () => {
    const golden = JSON.parse(readFileSync(new URL('../fixtures/sealed-golden.json', import.meta.url), 'utf8'))
    const key = createPrivateKey(readFileSync(new URL('../fixtures/golden-ec.pem', import.meta.url), 'utf8'))
    const token = { accessToken: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJnb2xkZW4ifQ.sig', expiresAtMs: 4_102_444_800_000 }
    const base = new URL('https://api.test/svc')
    const post: Credentials = {
      clientId: 'golden-client',
      auth: clientSecretPost('golden-secret'),
      audience: 'https://idp.test/api/v2/',
      scope: 'read:targets',
      tokenUrl: new URL('https://idp.test/oauth/token'),
      bodyFormat: 'json'
    }
    const basic: Credentials = {
      clientId: 'golden-client',
      auth: clientSecretBasic('golden-secret'),
      tokenUrl: new URL('https://idp.test/realms/x/token?tenant=1'),
      bodyFormat: 'form'
    }
    const jwt: Credentials = {
      clientId: 'golden-client',
      auth: privateKeyJwt({ privateKey: key, algorithm: 'ES256', keyId: 'kid-1' }),
      audience: 'api://golden',
      tokenUrl: new URL('https://idp.test/oauth2/v2.0/token'),
      bodyFormat: 'form'
    }
    await expect(unseal(golden.post, post, base)).resolves.toEqual({ ...token, scope: 'read:targets' })
    await expect(unseal(golden.basic, basic, base)).resolves.toEqual({ ...token, scope: undefined })
    await expect(unseal(golden.jwt, jwt, base)).resolves.toEqual({ ...token, scope: 'read:targets' })
    // and each only with its own settings
    await expect(unseal(golden.post, { ...post, scope: undefined }, base)).resolves.toHaveProperty('reason')
  })

  it('says what may differ when it cannot be opened', async () => {
    await expect(unseal(await seal(), credentials, new URL('https://api2.test/'))).resolves.toEqual({
      reason:
        'it cannot be opened with these inputs (another client secret or private key, other client-id, client-auth, ' +
        'audience, scope, token URL, token-request-format or base-url, or it was altered)'
    })
  })

  it('reads a value one byte past the header as a sealed token, not a truncated one', async () => {
    const shortest = `${PREFIX}${Buffer.alloc(16 + 12 + 16 + 1).toString('base64url')}`
    await expect(unseal(shortest, credentials, baseUrl)).resolves.toEqual({
      reason: expect.stringContaining('cannot be opened')
    })
    const oneShort = `${PREFIX}${Buffer.alloc(16 + 12 + 16).toString('base64url')}`
    await expect(unseal(oneShort, credentials, baseUrl)).resolves.toEqual({ reason: 'it is truncated' })
  })

  it.each([
    ['', 'it is not a sealed token of this action'],
    ['m2m0.abc', 'it is not a sealed token of this action'],
    ['m2m2.abc', 'it is truncated']
  ])('explains why %j is unusable', async (sealed, reason) => {
    await expect(unseal(sealed, credentials, baseUrl)).resolves.toEqual({ reason })
  })
})

describe('sealed tokens without a secret, or with bad contents', () => {
  it('refuses to seal with a client-auth that holds no secret', async () => {
    await expect(new Sealer(noSecret, baseUrl).seal(contents)).rejects.toThrow(
      'client-auth github-oidc holds no secret to seal with'
    )
  })

  it('cannot open a sealed token with a client-auth that holds no secret', async () => {
    expect(await unseal(await seal(), noSecret, baseUrl)).toEqual({
      reason: 'client-auth github-oidc holds no secret to open it with'
    })
  })

  it('leaves no unhandled rejection when no secret is held and seal() is never called', async () => {
    const rejections: unknown[] = []
    const listener = (reason: unknown) => void rejections.push(reason)
    process.on('unhandledRejection', listener)
    try {
      new Sealer(noSecret, baseUrl)
      await new Promise(resolve => setTimeout(resolve, 20))
    } finally {
      process.off('unhandledRejection', listener)
    }
    expect(rejections).toEqual([])
  })

  it.each([
    ['a token that is not a string', { accessToken: 42 }],
    ['no expiry', { expiresAtMs: undefined }],
    ['an expiry that is not a number', { expiresAtMs: '1800000000000' }]
  ])('says the contents are malformed when they hold %s', async (_what, change) => {
    const sealed = await new Sealer(credentials, baseUrl).seal({ ...contents, ...change } as unknown as typeof contents)
    expect(await unseal(sealed, credentials, baseUrl)).toEqual({ reason: 'its contents are malformed' })
  })

  it('drops a scope that is not a string', async () => {
    const sealed = await new Sealer(credentials, baseUrl).seal({ ...contents, scope: null as unknown as string })
    expect(await unseal(sealed, credentials, baseUrl)).toEqual({ ...contents, scope: undefined })
  })

  it('says the contents are malformed when they hold no token', async () => {
    const empty = await new Sealer(credentials, baseUrl).seal({ ...contents, accessToken: '' })
    expect(await unseal(empty, credentials, baseUrl)).toEqual({ reason: 'its contents are malformed' })
  })
})

describe("a run's seal key", () => {
  /** The salt a seal starts with (after the m2m3. settings and a dot). */
  const saltOf = (sealed: string) => Buffer.from(sealed.split('.')[2], 'base64url').subarray(0, 16)

  it('salts with the run and every setting, the same in every job of the run', () => {
    const salt = runSalt('4242', credentials, baseUrl)
    const expected = createHash('sha256')
      .update(`m2m run salt 1\n4242\n`)
      .update(binding(credentials, baseUrl))
      .digest()
      .subarray(0, 16)
    expect(salt.equals(expected)).toBe(true)
    expect(runSalt('4242', credentials, baseUrl).equals(salt)).toBe(true)
    expect(runSalt('4243', credentials, baseUrl).equals(salt)).toBe(false)
    expect(runSalt('4242', credentials, new URL('https://api2.test/')).equals(salt)).toBe(false)
  })

  it("seals with the run's salt given a run id, and a random one without", async () => {
    const [a, b] = await Promise.all([
      new Sealer(credentials, baseUrl, '4242').seal(contents),
      new Sealer(credentials, baseUrl, '4242').seal(contents)
    ])
    expect(saltOf(a).equals(runSalt('4242', credentials, baseUrl))).toBe(true)
    expect(saltOf(b).equals(saltOf(a))).toBe(true)
    expect(saltOf(await seal()).equals(saltOf(a))).toBe(false)
  })

  it("is the sealed token's key when it opens, told to onKey; else the run's own", async () => {
    const listing = new Sealer(credentials, baseUrl, 'listing-run')
    const sealed = await listing.seal(contents)
    const told: Buffer[] = []
    await unseal(sealed, credentials, baseUrl, key => told.push(key))
    expect(told).toEqual([await listing.key])
    expect(await runSealKey(credentials, baseUrl, 'shard-run', sealed)).toEqual(await listing.key)

    const own = await new Sealer(credentials, baseUrl, 'shard-run').key
    expect(await runSealKey(credentials, baseUrl, 'shard-run')).toEqual(own)
    const other = { ...credentials, auth: clientSecretPost('secret-2') }
    const untold: Buffer[] = []
    await unseal(sealed, other, baseUrl, key => untold.push(key))
    expect(untold).toHaveLength(0)
    expect(await runSealKey(other, baseUrl, 'shard-run', sealed)).toEqual(
      await new Sealer(other, baseUrl, 'shard-run').key
    )
  })
})

describe('sealed tokens that hold nothing to open', () => {
  it('has no run key without a secret', async () => {
    expect(await runSealKey(noSecret, baseUrl, '4242', await seal())).toBeUndefined()
  })

  it("says a listing job's handoff holds no token when it had no secret to seal one with", async () => {
    const empty = encodeHandoff(settingsOf(credentials, baseUrl))
    expect(await unseal(empty, credentials, baseUrl)).toEqual({
      reason: 'it holds no token: the listing job had no secret to seal one with'
    })
  })

  it('says why text that is no sealed token cannot be read, secret or not', async () => {
    const reason = { reason: 'it is not a sealed token of this action' }
    expect(await unseal('not-a-sealed-token', noSecret, baseUrl)).toEqual(reason)
    expect(await unseal(`x${PREFIX}`, noSecret, baseUrl)).toEqual(reason)
  })
})
