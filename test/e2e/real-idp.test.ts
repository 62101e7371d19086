import { ChildProcess, execFileSync, spawn } from 'node:child_process'
import { generateKeyPairSync, KeyObject } from 'node:crypto'
import { createInterface } from 'node:readline'
import { join } from 'node:path'
import { expectFailure, expectNoLeaks, json, runAction, startServer, TestServer } from './harness.js'

// Real OAuth 2.0 servers, not our mocks. django-oauth-toolkit comes from Debian
// (python3-django-oauth-toolkit), which .ci/run installs; on a machine without it these tests are
// skipped, their names saying why, unless REQUIRE_REAL_IDPS=1 (as in CI) makes its absence a failure.
const CLIENT_ID = 'real-idp-client'
const CLIENT_SECRET = 'real "secret" \\ ü-✓ +/x'
const PYTHON = '/usr/bin/python3'
const REAL = join(process.cwd(), 'test', 'real')

function hasDjangoOAuthToolkit(): boolean {
  try {
    execFileSync(PYTHON, ['-c', 'import oauth2_provider'], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
}

interface RealServer {
  readonly url: string
  readonly child: ChildProcess
}

/** Starts a server script that prints {"port": N} on stdout once it listens. */
function startReal(command: string, args: string[]): Promise<RealServer> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] })
    let stderr = ''
    child.stderr?.on('data', d => (stderr += d))
    child.on('exit', code => reject(new Error(`${command} ${args[0]} exited ${code}: ${stderr}`)))
    createInterface({ input: child.stdout! }).on('line', line => {
      if (line.startsWith('{')) resolve({ url: `http://127.0.0.1:${JSON.parse(line).port}`, child })
    })
  })
}

let api: TestServer
beforeAll(async () => {
  api = await startServer((_req, res) => json(res, 200, [{ id: 'from-real-idp' }]))
})
afterAll(() => api.close())

const inputs = (extra: Record<string, string>) => ({
  'client-id': CLIENT_ID,
  'client-secret': CLIENT_SECRET,
  audience: 'https://service.api/',
  'base-url': api.url,
  ...extra
})

const haveDot = hasDjangoOAuthToolkit()
if (!haveDot && process.env.REQUIRE_REAL_IDPS === '1') {
  throw new Error('REQUIRE_REAL_IDPS=1 but python3-django-oauth-toolkit is not installed')
}
// Without it the tests are skipped, and their names say why: no console output.
const DOT_TITLE = haveDot
  ? 'django-oauth-toolkit, %s body (debug %s)'
  : 'django-oauth-toolkit, %s body (debug %s): skipped, python3-django-oauth-toolkit is not installed (apt-get install python3-django-oauth-toolkit)'

describe.each([
  ['json', false],
  ['form', true]
])(DOT_TITLE, (format, debug) => {
  const maybe = haveDot ? it : it.skip
  let dot: RealServer
  beforeAll(async () => {
    if (haveDot) dot = await startReal(PYTHON, [join(REAL, 'dot_server.py'), format, CLIENT_ID, CLIENT_SECRET])
  })
  afterAll(() => dot?.child.kill())

  maybe('issues a token that the action uses', async () => {
    const run = await runAction(inputs({ 'auth-url': dot.url, 'token-request-format': format }), { debug })
    try {
      expect(run.code).toBe(0)
      expect(run.outputs).toMatchObject({
        'token-source': 'exchange',
        'token-type': 'Bearer',
        'expires-in': '3600',
        scope: 'read'
      })
      expect(run.outputs.token).toMatch(/^\w{20,}$/)
      expect(api.requests.at(-1)?.headers.authorization).toBe(`Bearer ${run.outputs.token}`)
      expect(run.log).toContain('Exchanged client credentials for a token, expires in 1 h')
      expectNoLeaks(run, [CLIENT_SECRET, run.outputs.token])
    } finally {
      run.cleanup()
    }
  })

  maybe('issues a token for HTTP Basic client authentication, the secret form-encoded', async () => {
    const run = await runAction(
      inputs({ 'auth-url': dot.url, 'token-request-format': format, 'client-auth': 'basic' }),
      { debug }
    )
    try {
      expect(run.code).toBe(0)
      expect(run.outputs).toMatchObject({ 'token-source': 'exchange', 'expires-in': '3600' })
      expect(api.requests.at(-1)?.headers.authorization).toBe(`Bearer ${run.outputs.token}`)
      expectNoLeaks(run, [CLIENT_SECRET, run.outputs.token])
    } finally {
      run.cleanup()
    }
  })

  maybe('surfaces a wrong secret as 401 invalid_client', async () => {
    const run = await runAction(
      inputs({ 'auth-url': dot.url, 'token-request-format': format, 'client-secret': 'wrong-secret' }),
      { debug }
    )
    try {
      expectFailure(
        run,
        /answered HTTP 401 Unauthorized \(invalid_client\)\. Check the client-id and client-secret inputs/
      )
      expectNoLeaks(run, ['wrong-secret'])
    } finally {
      run.cleanup()
    }
  })
})

const pem = (key: KeyObject) => key.export({ type: 'pkcs8', format: 'pem' }) as string
const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 })
const ec = generateKeyPairSync('ec', { namedCurve: 'prime256v1' })
const stranger = generateKeyPairSync('ec', { namedCurve: 'prime256v1' })
const jwk = (key: KeyObject, kid: string) => ({ ...key.export({ format: 'jwk' }), kid, use: 'sig' })
// oidc-provider refuses client metadata whose secret holds quotes or non-ASCII characters.
const OP_SECRET = 'oidc-provider-secret_0123456789+/'
const OP_CLIENTS = [
  {
    client_id: 'op-post',
    client_secret: OP_SECRET,
    token_endpoint_auth_method: 'client_secret_post',
    scope: 'api:read'
  },
  {
    client_id: 'op-basic',
    client_secret: OP_SECRET,
    token_endpoint_auth_method: 'client_secret_basic',
    scope: 'api:read'
  },
  {
    client_id: 'op-jwt-rs256',
    token_endpoint_auth_method: 'private_key_jwt',
    jwks: { keys: [jwk(rsa.publicKey, 'rsa-1')] },
    scope: 'api:read'
  },
  {
    client_id: 'op-jwt-es256',
    token_endpoint_auth_method: 'private_key_jwt',
    jwks: { keys: [jwk(ec.publicKey, 'ec-1')] },
    scope: 'api:read'
  }
]

describe.each([false, true])('oidc-provider (standards-only) through token-url (debug %s)', debug => {
  let op: RealServer
  beforeAll(async () => {
    op = await startReal(process.execPath, [join(REAL, 'oidc_server.js'), JSON.stringify(OP_CLIENTS)])
  })
  afterAll(() => op.child.kill())

  const opInputs = (extra: Record<string, string>) =>
    inputs({
      'token-url': `${op.url}/token`,
      'token-request-format': 'form',
      audience: '',
      scope: 'api:read',
      ...extra
    })

  it.each<[string, Record<string, string>]>([
    ['client_secret_post', { 'client-id': 'op-post', 'client-secret': OP_SECRET }],
    ['client_secret_basic', { 'client-id': 'op-basic', 'client-secret': OP_SECRET, 'client-auth': 'basic' }],
    [
      'private_key_jwt with an RSA key (RS256)',
      {
        'client-id': 'op-jwt-rs256',
        'client-secret': '',
        'client-auth': 'private-key-jwt',
        'private-key': pem(rsa.privateKey),
        'private-key-id': 'rsa-1'
      }
    ],
    [
      'private_key_jwt with a P-256 key (ES256)',
      {
        'client-id': 'op-jwt-es256',
        'client-secret': '',
        'client-auth': 'private-key-jwt',
        'private-key': pem(ec.privateKey),
        'private-key-id': 'ec-1'
      }
    ]
  ])('issues a token for %s with a scope', async (_method, extra) => {
    const run = await runAction({ ...opInputs(extra), 'seal-token': 'true' }, { debug })
    try {
      expect(run.code).toBe(0)
      expect(run.outputs).toMatchObject({
        'token-source': 'exchange',
        'token-type': 'Bearer',
        'expires-in': '600',
        scope: 'api:read'
      })
      expect(run.outputs['sealed-token']).toMatch(/^m2m3\./)
      expect(api.requests.at(-1)?.headers.authorization).toBe(`Bearer ${run.outputs.token}`)
      expectNoLeaks(run, [OP_SECRET, run.outputs.token, ...(extra['private-key'] ? [extra['private-key']] : [])])
    } finally {
      run.cleanup()
    }
  })

  it('refuses a key it does not know with 401 invalid_client, and the error says so', async () => {
    const run = await runAction(
      opInputs({
        'client-id': 'op-jwt-es256',
        'client-secret': '',
        'client-auth': 'private-key-jwt',
        'private-key': pem(stranger.privateKey),
        'private-key-id': 'ec-1'
      }),
      { debug }
    )
    try {
      expectFailure(
        run,
        /answered HTTP 401 Unauthorized \(invalid_client: client authentication failed\)\. Check the client-id, private-key and private-key-id inputs/
      )
    } finally {
      run.cleanup()
    }
  })

  it('refuses a JSON body with 400 invalid_request, and the error says so', async () => {
    const run = await runAction(
      inputs({ 'token-url': `${op.url}/token`, 'client-id': 'op-post', 'client-secret': OP_SECRET }),
      { debug }
    )
    try {
      expectFailure(
        run,
        /answered HTTP 400 Bad Request \(invalid_request: only application\/x-www-form-urlencoded content-type bodies are supported on POST \/token\)\. The identity provider rejected the request: check the client-id, audience, scope, client-auth and token-request-format inputs\./
      )
    } finally {
      run.cleanup()
    }
  })

  it('surfaces a wrong secret as 401 invalid_client', async () => {
    const run = await runAction(
      opInputs({ 'client-id': 'op-basic', 'client-auth': 'basic', 'client-secret': 'wrong-secret' }),
      {
        debug
      }
    )
    try {
      expectFailure(
        run,
        /answered HTTP 401 Unauthorized \(invalid_client: client authentication failed\)\. Check the client-id and client-secret/
      )
      expectNoLeaks(run, ['wrong-secret'])
    } finally {
      run.cleanup()
    }
  })
})
