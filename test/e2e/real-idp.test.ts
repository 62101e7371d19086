import { ChildProcess, execFileSync, spawn } from 'node:child_process'
import { createInterface } from 'node:readline'
import { join } from 'node:path'
import { expectFailure, expectNoLeaks, json, runAction, startServer, TestServer } from './harness.js'

// Real OAuth 2.0 servers, not our mocks. django-oauth-toolkit comes from Debian
// (python3-django-oauth-toolkit), which .ci/run installs; on a machine without it these tests are
// skipped with a note, unless REQUIRE_REAL_IDPS=1 (as in CI) makes its absence a failure.
const CLIENT_ID = 'real-idp-client'
const CLIENT_SECRET = 'real "secret" \\ ü-✓'
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
if (!haveDot) {
  // eslint-disable-next-line no-console
  console.warn('Skipping the django-oauth-toolkit tests: apt-get install python3-django-oauth-toolkit to run them')
}

describe.each([
  ['json', false],
  ['form', true]
])('django-oauth-toolkit, %s body (debug %s)', (format, debug) => {
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

describe.each([false, true])('oidc-provider (standards-only) through token-url (debug %s)', debug => {
  // oidc-provider refuses client metadata whose secret holds quotes or non-ASCII characters.
  const secret = 'oidc-provider-secret_0123456789'
  let op: RealServer
  beforeAll(async () => {
    op = await startReal(process.execPath, [join(REAL, 'oidc_server.js'), CLIENT_ID, secret])
  })
  afterAll(() => op.child.kill())

  it('issues a token for a form body', async () => {
    const run = await runAction(
      inputs({ 'token-url': `${op.url}/token`, 'token-request-format': 'form', 'client-secret': secret }),
      { debug }
    )
    try {
      expect(run.code).toBe(0)
      expect(run.outputs).toMatchObject({ 'token-source': 'exchange', 'token-type': 'Bearer', 'expires-in': '600' })
      expect(api.requests.at(-1)?.headers.authorization).toBe(`Bearer ${run.outputs.token}`)
      expectNoLeaks(run, [secret, run.outputs.token])
    } finally {
      run.cleanup()
    }
  })

  it('refuses a JSON body with 400 invalid_request, and the error says so', async () => {
    const run = await runAction(inputs({ 'token-url': `${op.url}/token`, 'client-secret': secret }), { debug })
    try {
      expectFailure(
        run,
        /answered HTTP 400 Bad Request \(invalid_request: only application\/x-www-form-urlencoded content-type bodies are supported on POST \/token\)\. The identity provider rejected the request: check the client-id, audience and token-request-format inputs\./
      )
    } finally {
      run.cleanup()
    }
  })

  it('surfaces a wrong secret as 401 invalid_client', async () => {
    const run = await runAction(
      inputs({ 'token-url': `${op.url}/token`, 'token-request-format': 'form', 'client-secret': 'wrong-secret' }),
      { debug }
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
