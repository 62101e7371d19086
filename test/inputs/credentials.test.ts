import { generateKeyPairSync } from 'node:crypto'
import { basicCredentials } from '../../src/auth/client-secret.js'
import { readCredentials } from '../../src/inputs/credentials.js'
import { captureStdout, setInputs } from '../helpers.js'

const VALID: Record<string, string> = {
  'client-id': 'client-1',
  'auth-url': 'https://tenant.idp.test/',
  audience: 'https://tenant.idp.test/api/v2/'
}
const written = captureStdout()
const warnings = () => written.filter(l => l.startsWith('::warning::'))
const OR_TOKEN = ' (or give a pre-issued token in the token input)'

describe('readCredentials', () => {
  it('reads client_secret_post with a JSON body to {auth-url}/oauth/token by default', () => {
    setInputs({ ...VALID, scope: '' })
    const credentials = readCredentials('secret-1', '')
    expect(credentials).toMatchObject({
      clientId: 'client-1',
      audience: 'https://tenant.idp.test/api/v2/',
      scope: undefined,
      tokenUrlFrom: 'auth-url',
      bodyFormat: 'json',
      auth: { method: 'post' }
    })
    expect(credentials.tokenUrl.href).toBe('https://tenant.idp.test/oauth/token')
    expect(credentials.auth.keyMaterial()?.toString()).toBe('secret-1')
    expect(warnings()).toEqual([])
  })

  it('reads client_secret_basic with a form body, scope and no audience', () => {
    setInputs({ ...VALID, 'client-auth': 'Basic', 'token-request-format': 'FORM', audience: ' ', scope: 'read' })
    expect(readCredentials('secret-2', '')).toMatchObject({
      audience: undefined,
      scope: 'read',
      bodyFormat: 'form',
      auth: { method: 'basic' }
    })
  })

  it('keeps the client id and audience byte for byte', () => {
    setInputs({ ...VALID, 'client-id': ' id ', audience: ' aud ' })
    expect(readCredentials('secret-3', '')).toMatchObject({ clientId: ' id ', audience: ' aud ' })
  })

  it('masks the Basic forms of id:secret for post too: a server may echo them', () => {
    setInputs({ ...VALID, 'client-id': 'client-4' })
    readCredentials('s e+c/4', '')
    expect(written).toContain(`::add-mask::${basicCredentials('client-4', 's e+c/4')}\n`)
    expect(written).toContain(`::add-mask::${Buffer.from('client-4:s e+c/4').toString('base64')}\n`)
  })

  it.each([
    ['client-id', { 'client-id': ' client-5' }, 'secret-5'],
    ['client-secret', { 'client-id': 'client-5' }, 'secret-5\n']
  ])('warns of whitespace around %s, which is sent as it is', (name, inputs, secret) => {
    setInputs({ ...VALID, ...inputs })
    readCredentials(secret, '')
    expect(warnings()).toEqual([
      `::warning::Input ${name} has leading or trailing whitespace, which is sent as it is: if it was pasted with a space or newline, remove it from the secret\n`
    ])
  })

  it('takes token-url as given, query included, and says so when auth-url is set too', () => {
    setInputs({ ...VALID, 'auth-url': '', 'token-url': 'https://login.test/t/token?p=policy' })
    const alone = readCredentials('secret-6', '')
    expect(alone.tokenUrl.href).toBe('https://login.test/t/token?p=policy')
    expect(alone.tokenUrlFrom).toBe('token-url')
    expect(warnings()).toEqual([])
    setInputs({ ...VALID, 'token-url': 'https://login.test/t/token' })
    expect(readCredentials('secret-6', '').tokenUrl.href).toBe('https://login.test/t/token')
    expect(warnings()).toEqual([
      '::warning::Inputs token-url and auth-url are both set: token-url is used, and auth-url is not\n'
    ])
  })

  it.each<[string, Record<string, string>, string, string]>([
    ['no client-id', { 'client-id': '' }, 'secret', `Input required and not supplied: client-id${OR_TOKEN}`],
    ['a blank client-id', { 'client-id': '  ' }, 'secret', `Input required and not supplied: client-id${OR_TOKEN}`],
    [
      'a blank audience with a JSON body',
      { audience: '  ' },
      'secret',
      `Input required and not supplied: audience${OR_TOKEN}; it is optional only with token-request-format: form`
    ],
    ['a blank secret', {}, ' ', `Input required and not supplied: client-secret${OR_TOKEN}`],
    [
      'no secret with basic',
      { 'client-auth': 'basic' },
      '',
      `Input required and not supplied: client-secret${OR_TOKEN}`
    ],
    [
      'no auth-url',
      { 'auth-url': '' },
      'secret',
      'Input required and not supplied: auth-url (the identity provider (or set token-url))'
    ],
    [
      'an auth-url naming the token endpoint',
      { 'auth-url': 'https://idp.test/t1/OAuth/Token/' },
      'secret',
      "Input auth-url ends in /oauth/token, which the action appends itself: give the identity provider's base URL (https://idp.test/t1), or the whole endpoint as token-url"
    ],
    [
      'an auth-url naming the token endpoint twice',
      { 'auth-url': 'https://idp.test/oauth/token/x/oauth/token' },
      'secret',
      "Input auth-url ends in /oauth/token, which the action appends itself: give the identity provider's base URL (https://idp.test/oauth/token/x), or the whole endpoint as token-url"
    ],
    [
      'an auth-url with a query',
      { 'auth-url': 'https://idp.test/?x=1' },
      'secret',
      'Input auth-url must not have a ?query'
    ],
    [
      'an unknown client-auth',
      { 'client-auth': 'mtls' },
      'secret',
      'Input client-auth must be one of post, basic, private-key-jwt, github-oidc, got "mtls"'
    ],
    [
      'an unknown body format',
      { 'token-request-format': 'xml' },
      'secret',
      'Input token-request-format must be one of json, form, got "xml"'
    ]
  ])('refuses %s', (_what, inputs, secret, message) => {
    setInputs({ ...VALID, ...inputs })
    expect(() => readCredentials(secret, '')).toThrow(message)
  })

  it('accepts an auth-url whose path only contains oauth/token', () => {
    setInputs({ ...VALID, 'auth-url': 'https://idp.test/oauth/tokens' })
    expect(readCredentials('secret-7', '').tokenUrl.href).toBe('https://idp.test/oauth/tokens/oauth/token')
  })

  describe('github-oidc', () => {
    const env = { ACTIONS_ID_TOKEN_REQUEST_URL: 'https://runner.test/id', ACTIONS_ID_TOKEN_REQUEST_TOKEN: 'req-8' }
    beforeEach(() => Object.assign(process.env, env))
    afterEach(() => {
      for (const name of Object.keys(env)) delete process.env[name]
    })

    it('needs no secret, and asks for an ID token for Entra ID by default', () => {
      setInputs({ ...VALID, 'client-auth': 'github-oidc', 'oidc-audience': '' })
      const { auth } = readCredentials('', '')
      expect(auth.bound).toEqual({ audience: 'api://AzureADTokenExchange', method: 'github-oidc' })
      expect(written).toContain('::add-mask::req-8\n')
    })

    it('asks for the oidc-audience given', () => {
      setInputs({ ...VALID, 'client-auth': 'github-oidc', 'oidc-audience': 'https://keycloak.test/realms/x' })
      expect(readCredentials('', '').auth.bound.audience).toBe('https://keycloak.test/realms/x')
    })

    it('fails before any request when the job has no id-token permission', () => {
      for (const name of Object.keys(env)) delete process.env[name]
      setInputs({ ...VALID, 'client-auth': 'github-oidc' })
      expect(() => readCredentials('', '')).toThrow('add "permissions: id-token: write" to the job')
    })
  })

  describe('private-key-jwt', () => {
    const pem = (type: 'rsa' | 'ec', curve?: string) =>
      (type === 'rsa'
        ? generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey
        : generateKeyPairSync('ec', { namedCurve: curve! }).privateKey
      ).export({ type: 'pkcs8', format: 'pem' }) as string
    const rsa = pem('rsa')

    it.each([
      ['an RSA key for RS256', rsa, 'RS256'],
      ['a P-256 key for ES256', pem('ec', 'prime256v1'), 'ES256']
    ])('signs with %s, needing no secret', (_what, key, algorithm) => {
      setInputs({ ...VALID, 'client-auth': 'private-key-jwt', 'private-key-id': 'kid-9' })
      expect(readCredentials('', key).auth.bound).toEqual({ method: 'private-key-jwt', algorithm, keyId: 'kid-9' })
    })

    it('sends no key id when none is given', () => {
      setInputs({ ...VALID, 'client-auth': 'private-key-jwt' })
      expect(readCredentials('', rsa).auth.bound.keyId).toBeUndefined()
    })

    it.each([
      ['no key', '', 'Input required and not supplied: private-key (client-auth: private-key-jwt signs with it)'],
      [
        'text that is no PEM',
        'BEGIN PRIVATE KEY',
        'Input private-key is not a PEM private key: give the whole "-----BEGIN … PRIVATE KEY-----" block'
      ],
      [
        'an encrypted key',
        '-----BEGIN ENCRYPTED PRIVATE KEY-----\nAAAA\n-----END ENCRYPTED PRIVATE KEY-----',
        "Input private-key is encrypted: store the key unencrypted in a secret (its secrecy is the secret's)"
      ],
      [
        'a damaged PEM',
        '-----BEGIN RSA PRIVATE KEY-----\nAAAA\n-----END RSA PRIVATE KEY-----',
        'Input private-key could not be read as a PEM private key (PKCS#8, PKCS#1 RSA or SEC1 EC)'
      ],
      [
        'a P-384 key',
        pem('ec', 'secp384r1'),
        'Input private-key is a EC secp384r1 key; only RSA (RS256) and P-256 EC (ES256) keys are supported'
      ],
      [
        'an Ed25519 key',
        generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
        'Input private-key is a ed25519 key; only RSA (RS256) and P-256 EC (ES256) keys are supported'
      ]
    ])('refuses %s', (_what, key, message) => {
      setInputs({ ...VALID, 'client-auth': 'private-key-jwt' })
      expect(() => readCredentials('', key)).toThrow(new Error(message))
    })
  })
})
