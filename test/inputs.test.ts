import { generateKeyPairSync } from 'node:crypto'
import { getInputs as getInputsWith, Inputs, readInputs, reportMode } from '../src/inputs.js'
import { call } from '../src/inputs/call.js'
import { basicCredentials, clientSecretBasic } from '../src/auth/client-secret.js'
import { Credentials } from '../src/auth/credentials.js'
import { encodeHandoff, settingsOf } from '../src/auth/handoff.js'
import { captureStdout, setInputs } from './helpers.js'

/** getInputs with the call inputs' reader, as readInputs gives it to a step with a call. */
const getInputs = (door?: Parameters<typeof getInputsWith>[0]): Inputs => getInputsWith(door, call)

const VALID: Record<string, string> = {
  'client-id': 'client-1',
  'client-secret': 'secret-1',
  'auth-url': 'https://tenant.idp.test/',
  audience: 'https://tenant.idp.test/api/v2/',
  'base-url': 'https://api.service.test'
}

const written = captureStdout()

describe('readInputs', () => {
  it('reads the call inputs with their reader when the step has a call', async () => {
    setInputs({ ...VALID, call: 'POST /v1/t/{id}/rotate', 'call-concurrency': '8' })
    expect((await readInputs()).call).toMatchObject({ text: 'POST /v1/t/{id}/rotate', concurrency: 8 })
  })

  it('reads a step without a call as getInputs does, with no call', async () => {
    setInputs({ ...VALID, 'max-attempts': '3' })
    const inputs = await readInputs()
    expect(inputs).toMatchObject({ maxAttempts: 3, listTargets: true, baseUrl: new URL('https://api.service.test') })
    expect(inputs.credentials).toMatchObject({ clientId: 'client-1', tokenUrlFrom: 'auth-url' })
    expect(inputs.call).toBeUndefined()
  })

  it('refuses a call it was given no reader for, rather than drop it', () => {
    setInputs({ ...VALID, call: 'POST /v1/t/{id}/rotate' })
    expect(() => getInputsWith()).toThrow('Input call was given, but its reader was not loaded')
  })
})

describe('getInputs', () => {
  it('reads valid inputs, normalises URLs and applies defaults', () => {
    setInputs(VALID)
    const inputs = getInputs()
    expect(inputs.credentials?.tokenUrl.href).toBe('https://tenant.idp.test/oauth/token')
    expect(inputs.baseUrl.href).toBe('https://api.service.test/')
    expect(inputs).toMatchObject({
      timeoutSeconds: 30,
      maxAttempts: 6,
      maxPages: 1000,
      shardSize: 100,
      listTargets: true,
      summary: true,
      minValiditySeconds: 300
    })
    expect(inputs.credentials).toMatchObject({ bodyFormat: 'json', auth: { method: 'post' } })
    expect(inputs.credentials?.auth.keyMaterial()?.toString()).toBe('secret-1')
  })

  it("applies action.yml's defaults when a workflow passes an empty value", () => {
    setInputs({ ...VALID, 'max-attempts': '', 'shard-size': '', 'client-auth': '', summary: '' })
    expect(getInputs()).toMatchObject({ maxAttempts: 6, shardSize: 100, summary: true })
    expect(getInputs().credentials?.auth.method).toBe('post')
  })

  it('names what auth-url is for when neither it nor token-url is given', () => {
    setInputs({ ...VALID, 'auth-url': '' })
    expect(() => getInputs()).toThrow(
      'Input required and not supplied: auth-url (the identity provider (or set token-url))'
    )
  })

  it('drops trailing slashes of a base URL, down to the root', () => {
    setInputs({ ...VALID, 'base-url': 'https://api.service.test/api///' })
    expect(getInputs().baseUrl.href).toBe('https://api.service.test/api')
    setInputs({ ...VALID, 'base-url': 'https://api.service.test///' })
    expect(getInputs().baseUrl.href).toBe('https://api.service.test/')
  })

  it('keeps audience and client id byte for byte, but trims the scope, token and URLs', () => {
    setInputs({ ...VALID, audience: ' aud ', scope: ' read ', 'private-key-id': ' k ' })
    expect(getInputs().credentials).toMatchObject({ audience: ' aud ', scope: 'read' })
  })

  it('masks the client secret as it reads it, before anything else is printed', () => {
    setInputs({ ...VALID, 'client-secret': 'hunter2-secret', 'max-attempts': 'lots' })
    expect(() => getInputs()).toThrow('max-attempts')
    expect(written[0]).toBe('::add-mask::hunter2-secret\n')
  })

  it('keeps the client credentials byte for byte, spaces and quotes included', () => {
    setInputs({ ...VALID, 'client-secret': ' a"b\\c ü ', 'client-id': 'id "x"' })
    expect(getInputs().credentials).toMatchObject({ clientId: 'id "x"' })
    expect(getInputs().credentials?.auth.keyMaterial()?.toString()).toBe(' a"b\\c ü ')
  })

  it('needs no client credentials with a token, and masks it', () => {
    setInputs({ token: 'user.jwt.value', 'base-url': 'https://api.service.test' })
    const inputs = getInputs()
    expect(inputs.credentials).toBeUndefined()
    expect(inputs.token).toBe('user.jwt.value')
    expect(written).toContain('::add-mask::user.jwt.value\n')
  })

  it('drops a Bearer scheme pasted with the token', () => {
    setInputs({ token: 'Bearer user.jwt.value', 'base-url': 'https://api.service.test' })
    expect(getInputs().token).toBe('user.jwt.value')
  })

  it('drops only a leading Bearer scheme, with all the spaces after it', () => {
    setInputs({ token: 'bearer \t  user.jwt.value', 'base-url': 'https://api.service.test' })
    expect(getInputs().token).toBe('user.jwt.value')
    setInputs({ token: 'user.bearer value', 'base-url': 'https://api.service.test' })
    expect(getInputs().token).toBe('user.bearer value')
  })

  it('reads sealed-token with the client credentials, and leaves it out when not given', () => {
    setInputs({ ...VALID, 'sealed-token': 'm2m2.sealed-value' })
    expect(getInputs().sealedToken).toBe('m2m2.sealed-value')
    setInputs(VALID)
    expect(getInputs()).toHaveProperty('sealedToken', undefined)
  })

  it('checks targets-from and call against list-targets', () => {
    const digest = `sha256:${'AB'.repeat(32)}`
    setInputs({ ...VALID, 'targets-from': 'snap/', 'targets-digest': digest, call: 'DELETE /v1/t/{id}' })
    expect(getInputs()).toMatchObject({
      targetsFrom: 'snap/',
      targetsDigest: digest.toLowerCase(),
      call: { text: 'DELETE /v1/t/{id}' }
    })
    setInputs({ ...VALID, 'targets-from': 'snap/', 'list-targets': 'false' })
    expect(() => getInputs()).toThrow('Input targets-from gives the targets: remove list-targets: false')
    setInputs({ ...VALID, call: 'DELETE /v1/t/{id}', 'list-targets': 'false' })
    expect(() => getInputs()).toThrow('Input call has {id}, but with list-targets: false there is no target to fill it')
  })

  it('takes token-url in place of auth-url, query included', () => {
    setInputs({
      ...VALID,
      'auth-url': '',
      'token-url': 'https://login.test/tenant/token?p=policy',
      'token-request-format': 'form'
    })
    expect(getInputs().credentials).toMatchObject({ bodyFormat: 'form' })
    expect(getInputs().credentials?.tokenUrl.href).toBe('https://login.test/tenant/token?p=policy')
  })

  it('accepts http for loopback hosts only', () => {
    for (const host of ['127.0.0.1:8080', '127.1.2.3', 'localhost', '[::1]:3000']) {
      setInputs({ ...VALID, 'base-url': `http://${host}` })
      expect(getInputs().baseUrl.protocol).toBe('http:')
    }
  })

  it.each(['idp.x.localhost', '127.0.0.1.evil.example', '128.0.0.1', '[::2]', 'localhost.evil.example'])(
    'refuses plain http to %s, which DNS or the network would resolve',
    host => {
      setInputs({ ...VALID, 'auth-url': `http://${host}` })
      expect(() => getInputs()).toThrow('Input auth-url must use https://')
    }
  )

  it.each(['PATH', 'BASH_ENV', 'LD_PRELOAD', 'NODE_OPTIONS', 'MAKEFLAGS', 'CC', 'KUBECONFIG', 'https_proxy'])(
    'refuses to export the token as %s, which does not end in _TOKEN',
    name => {
      setInputs({ ...VALID, 'export-variable': name })
      expect(() => getInputs()).toThrow(
        `Input export-variable cannot be ${name}: only a name that ends in _TOKEN (or TOKEN itself) is exported`
      )
    }
  )

  it.each(['GITHUB_TOKEN', 'github_token', 'ACTIONS_RUNTIME_TOKEN', 'GH_TOKEN', 'NODE_AUTH_TOKEN', 'VAULT_TOKEN'])(
    "refuses to export the token as %s, another program's credential",
    name => {
      setInputs({ ...VALID, 'export-variable': name })
      expect(() => getInputs()).toThrow(`Input export-variable cannot be ${name}: names that start with`)
    }
  )

  it.each(['SERVICE_TOKEN', 'M2M_TOKEN', 'API_TOKEN', 'TOKEN', 'MY_PATH_TOKEN'])('exports the token as %s', name => {
    setInputs({ ...VALID, 'export-variable': name })
    expect(getInputs().exportVariable).toBe(name)
  })

  it.each<[Record<string, string>, string]>([
    [{ 'client-id': '' }, 'Input required and not supplied: client-id'],
    [{ 'client-secret': '  ' }, 'Input required and not supplied: client-secret'],
    [{ audience: '' }, 'Input required and not supplied: audience'],
    [{ 'auth-url': '' }, 'Input required and not supplied: auth-url'],
    [{ 'base-url': '' }, 'Input required and not supplied: base-url'],
    [{ 'base-url': 'api.service.test' }, 'Input base-url is not a valid URL'],
    [{ 'base-url': 'http://api.service.test' }, 'Input base-url must use https://'],
    [{ 'auth-url': 'ftp://idp.test' }, 'Input auth-url must be an https:// URL'],
    [{ 'auth-url': 'https://user:pw@idp.test' }, 'Input auth-url must not contain credentials'],
    [{ 'base-url': 'https://api.test/?x=1' }, 'Input base-url must not have a ?query'],
    [{ 'base-url': 'https://api.test/#x' }, 'Input base-url must not have a #fragment'],
    [{ 'max-attempts': '0' }, 'Input max-attempts must be a whole number from 1 to 10, got "0"'],
    [{ 'max-attempts': '11' }, 'Input max-attempts must be a whole number from 1 to 10'],
    [{ 'max-attempts': '2.5' }, 'Input max-attempts must be a whole number'],
    [{ 'timeout-seconds': '0.5' }, 'Input timeout-seconds must be a number from 1 to 600'],
    [{ 'timeout-seconds': '601' }, 'Input timeout-seconds must be a number from 1 to 600'],
    [{ 'timeout-seconds': 'ten' }, 'Input timeout-seconds must be a number'],
    [{ 'max-pages': '0' }, 'Input max-pages must be a whole number from 1 to 100000'],
    [{ 'list-targets': 'yes' }, 'Input list-targets must be true or false, got "yes"'],
    [{ summary: '1' }, 'Input summary must be true or false'],
    [{ 'token-request-format': 'xml' }, 'Input token-request-format must be one of json, form'],
    [
      { 'client-auth': 'mtls' },
      'Input client-auth must be one of post, basic, private-key-jwt, github-oidc, got "mtls"'
    ],
    [{ 'client-auth': 'basic', 'client-secret': '' }, 'Input required and not supplied: client-secret'],
    [{ 'auth-url': 'https://user@idp.test' }, 'Input auth-url must not contain credentials'],
    [{ 'export-variable': 'MY-TOKEN' }, 'Input export-variable must be an environment variable name'],
    [{ 'export-variable': 'GITHUB_TOKEN' }, 'Input export-variable cannot be GITHUB_TOKEN: names that start with'],
    [{ 'min-validity-seconds': '-1' }, 'Input min-validity-seconds must be a whole number'],
    [{ 'shard-size': '0' }, 'Input shard-size must be a whole number from 1 to 100000, got "0"'],
    [{ 'shard-size': '100001' }, 'Input shard-size must be a whole number from 1 to 100000'],
    ...['0/5', '6/5', '3', '1/257', '257/257', '1/0', '-1/5', '1.5/5', 'a/b', '1/5/7'].map(
      (value): [Record<string, string>, string] => [{ shard: value }, 'Input shard must be K/N with 1 <= K <= N <= 256']
    ),
    [
      { shard: '2/3', 'list-targets': 'false' },
      'Input shard needs the targets listed: remove shard, or set list-targets to true'
    ]
  ])('rejects %j, naming the input', (override, message) => {
    setInputs({ ...VALID, ...override })
    expect(() => getInputs()).toThrow(message)
  })

  it('makes audience optional with a form body, and reads scope', () => {
    setInputs({ ...VALID, audience: '', 'token-request-format': 'form', scope: 'api://svc/.default' })
    expect(getInputs().credentials).toMatchObject({ audience: undefined, scope: 'api://svc/.default' })
    setInputs({ ...VALID, audience: '' })
    expect(() => getInputs()).toThrow(
      'Input required and not supplied: audience (or give a pre-issued token in the token input); it is optional only with token-request-format: form'
    )
  })

  it('masks the Basic credentials as sent with client-auth: basic', () => {
    setInputs({ ...VALID, 'client-auth': 'basic', 'client-secret': 'a b+c/d' })
    const { auth } = getInputs().credentials!
    expect(auth.method).toBe('basic')
    expect(auth.keyMaterial()?.toString()).toBe('a b+c/d')
    expect(written).toContain(`::add-mask::${basicCredentials('client-1', 'a b+c/d')}\n`)
  })

  describe('client-auth: private-key-jwt', () => {
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey
    const ec = generateKeyPairSync('ec', { namedCurve: 'prime256v1' }).privateKey
    const pem = (key: typeof rsa, type: 'pkcs8' | 'pkcs1' | 'sec1') => key.export({ type, format: 'pem' }) as string
    const jwtInputs = (key: string) => ({
      ...VALID,
      'client-secret': '',
      'client-auth': 'private-key-jwt',
      'private-key': key
    })

    it.each([
      ['PKCS#8 RSA', () => pem(rsa, 'pkcs8'), 'RS256'],
      ['PKCS#1 RSA', () => pem(rsa, 'pkcs1'), 'RS256'],
      ['PKCS#8 P-256', () => pem(ec, 'pkcs8'), 'ES256'],
      ['SEC1 P-256', () => pem(ec, 'sec1'), 'ES256']
    ])('reads a %s key for %s, with no client secret', (_what, key, algorithm) => {
      setInputs({ ...jwtInputs(key()), 'private-key-id': 'kid-1' })
      expect(getInputs().credentials?.auth.bound).toEqual({ method: 'private-key-jwt', algorithm, keyId: 'kid-1' })
    })

    it('masks the key and each line of it before anything else, but not its markers', () => {
      // A key of its own: a value is registered once per process, and other tests used theirs.
      const key = pem(generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey, 'pkcs8')
      setInputs({ ...jwtInputs(key), 'max-attempts': 'x' })
      expect(() => getInputs()).toThrow('max-attempts')
      const masks = written.filter(l => l.startsWith('::add-mask::'))
      const lines = key
        .trim()
        .split('\n')
        .filter(l => !l.startsWith('-----'))
      expect(written[0].startsWith('::add-mask::-----BEGIN PRIVATE KEY-----%0A')).toBe(true)
      for (const line of lines) expect(masks).toContain(`::add-mask::${line}\n`)
      expect(masks).not.toContain('::add-mask::-----BEGIN PRIVATE KEY-----\n')
    })

    it.each([
      ['no key', '', 'Input required and not supplied: private-key'],
      ['text that is no PEM', 'not a key', 'Input private-key is not a PEM private key'],
      [
        'a damaged PEM',
        '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----',
        'Input private-key could not be read'
      ],
      [
        'an encrypted key',
        '-----BEGIN ENCRYPTED PRIVATE KEY-----\nAAAA\n-----END ENCRYPTED PRIVATE KEY-----',
        'Input private-key is encrypted'
      ],
      [
        'an Ed25519 key',
        generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
        'Input private-key is a ed25519 key; only RSA (RS256) and P-256 EC (ES256) keys are supported'
      ],
      [
        'a P-384 key',
        generateKeyPairSync('ec', { namedCurve: 'secp384r1' }).privateKey.export({
          type: 'pkcs8',
          format: 'pem'
        }) as string,
        'Input private-key is a EC secp384r1 key'
      ]
    ])('fails on %s, naming the input', (_what, key, message) => {
      setInputs(jwtInputs(key))
      expect(() => getInputs()).toThrow(message)
    })
  })

  it.each([
    ['1/1', { index: 1, count: 1 }],
    ['3/20', { index: 3, count: 20 }],
    [' 256/256 ', { index: 256, count: 256 }]
  ])('reads shard %j', (value, shard) => {
    setInputs({ ...VALID, shard: value })
    expect(getInputs().shard).toEqual(shard)
  })

  it('accepts the bounds of every number', () => {
    setInputs({
      ...VALID,
      'max-attempts': '1',
      'timeout-seconds': '1',
      'max-pages': '1',
      'shard-size': '1',
      'min-validity-seconds': '0'
    })
    expect(getInputs()).toMatchObject({
      maxAttempts: 1,
      timeoutSeconds: 1,
      maxPages: 1,
      shardSize: 1,
      minValiditySeconds: 0
    })
    setInputs({
      ...VALID,
      'timeout-seconds': '600',
      'max-pages': '100000',
      'shard-size': '100000',
      'min-validity-seconds': '31536000'
    })
    expect(getInputs()).toMatchObject({
      timeoutSeconds: 600,
      maxPages: 100000,
      shardSize: 100000,
      minValiditySeconds: 31536000
    })
  })

  it('accepts true and false in any case and numbers in range', () => {
    setInputs({ ...VALID, 'list-targets': 'False', summary: 'TRUE', 'timeout-seconds': '2.5', 'max-attempts': '10' })
    expect(getInputs()).toMatchObject({ listTargets: false, summary: true, timeoutSeconds: 2.5, maxAttempts: 10 })
  })
})

describe('the first hour: common mistakes get the advice that fits', () => {
  const warnings = () => written.filter(l => l.startsWith('::warning::'))

  it('warns of whitespace around the client id or secret, which is sent as it is', () => {
    setInputs({ ...VALID, 'client-secret': 'secret-1\n' })
    getInputs()
    expect(warnings()).toEqual([
      '::warning::Input client-secret has leading or trailing whitespace, which is sent as it is: if it was pasted with a space or newline, remove it from the secret\n'
    ])
  })

  it('says which of token-url and auth-url is used when both are set', () => {
    setInputs({ ...VALID, 'token-url': 'https://idp.test/realms/x/token' })
    expect(getInputs().credentials?.tokenUrlFrom).toBe('token-url')
    expect(warnings()).toEqual([
      '::warning::Inputs token-url and auth-url are both set: token-url is used, and auth-url is not\n'
    ])
  })

  it('says the client credentials are not used when a token is given', () => {
    setInputs({ ...VALID, token: 'a.b.c' })
    getInputs()
    expect(warnings()[0]).toMatch(
      /^::warning::Input token is set, so no exchange is made and the client credentials inputs are not used/
    )
  })

  it('warns of any one client credential given with a token, and not of none', () => {
    const token = { token: 'a.b.c', 'base-url': 'https://api.service.test' }
    setInputs(token)
    getInputs()
    expect(warnings()).toEqual([])
    const credentials: Record<string, string>[] = [
      { 'client-id': 'client-1' },
      { 'client-secret': 'secret-1' },
      { 'private-key': 'k' }
    ]
    for (const credential of credentials) {
      written.length = 0
      setInputs({ ...token, ...credential })
      getInputs()
      expect(warnings()).toHaveLength(1)
      expect(warnings()[0]).toMatch(/^::warning::Input token is set, so no exchange is made/)
    }
  })

  it('refuses an auth-url that already ends in /oauth/token, saying what to give', () => {
    setInputs({ ...VALID, 'auth-url': 'https://tenant.idp.test/oauth/token/' })
    expect(() => getInputs()).toThrow(
      "Input auth-url ends in /oauth/token, which the action appends itself: give the identity provider's base URL (https://tenant.idp.test), or the whole endpoint as token-url"
    )
  })
})

describe('getInputs by door', () => {
  it('seals a token on the list door, and on the root one when seal-token or shard-size is given', () => {
    setInputs(VALID)
    expect([getInputs('list').sealToken, getInputs().sealToken, getInputs('root').sealToken]).toEqual([
      true,
      false,
      false
    ])
    setInputs({ ...VALID, 'seal-token': 'true' })
    expect(getInputs().sealToken).toBe(true)
    setInputs({ ...VALID, 'shard-size': '50' })
    expect([getInputs().sealToken, getInputs('report').sealToken]).toEqual([true, false])
  })

  it('hands the list on as a file only from the list door', () => {
    setInputs({ ...VALID, 'targets-output': 'true' })
    expect([getInputs('list').targetsOutput, getInputs().targetsOutput]).toEqual([false, true])
    setInputs({ ...VALID, 'targets-output': 'false' })
    expect(getInputs().targetsOutput).toBe(false)
  })

  it("takes a shard door's client and service from the sealed token, and no other door's", () => {
    const auth: Credentials = {
      clientId: 'client-9',
      auth: clientSecretBasic('s'),
      scope: 'read',
      tokenUrl: new URL('https://idp.test/t'),
      bodyFormat: 'form'
    }
    const sealed = encodeHandoff(settingsOf(auth, new URL('https://api.sealed.test/svc')), Buffer.alloc(48))
    setInputs({ ...VALID, 'sealed-token': sealed })
    const shard = getInputs('shard')
    expect(shard.baseUrl.href).toBe('https://api.sealed.test/svc')
    expect(shard.credentials).toMatchObject({ clientId: 'client-9', tokenUrl: new URL('https://idp.test/t') })
    expect(getInputs().baseUrl.href).toBe('https://api.service.test/')
  })
})

describe('routine inputs without a call', () => {
  const warnings = () => written.filter(l => l.startsWith('::warning::'))

  it('names one given without call in a warning', () => {
    setInputs({ ...VALID, 'call-body': '{}' })
    getInputs()
    expect(warnings()).toEqual([
      '::warning::Input call-body is for a routine, and this step has no call input: it is not used. Add call, or remove it.\n'
    ])
  })

  it('names several in one warning', () => {
    setInputs({ ...VALID, 'call-waves': '1, 100%', 'target-label': 'name' })
    getInputs()
    expect(warnings()).toEqual([
      '::warning::Inputs call-waves, target-label are for a routine, and this step has no call input: they are not used. Add call, or remove them.\n'
    ])
  })

  it('says nothing of them with a call, or of their defaults without one', () => {
    setInputs({ ...VALID, call: 'POST /v1/t/{id}', 'call-body': '{}' })
    getInputs()
    setInputs({ ...VALID, 'call-dry-run': 'false' })
    getInputs()
    expect(warnings()).toEqual([])
  })
})

describe('reportMode', () => {
  it('is the report door, or report-from given to the action (or to no door); never list/ or shard/', () => {
    setInputs({})
    expect([reportMode(), reportMode('root'), reportMode('list'), reportMode('shard'), reportMode('report')]).toEqual([
      false,
      false,
      false,
      false,
      true
    ])
    setInputs({ 'report-from': 'results' })
    expect([reportMode(), reportMode('root'), reportMode('list'), reportMode('shard'), reportMode('report')]).toEqual([
      true,
      true,
      false,
      false,
      true
    ])
  })
})
