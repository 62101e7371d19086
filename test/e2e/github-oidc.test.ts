import { createPublicKey, generateKeyPairSync, sign, verify } from 'node:crypto'
import { clientInputs, expectFailure, json, runAction, startServer, TestServer, TOKEN } from './harness.js'

// client-auth: github-oidc end to end: a loopback stand-in for GitHub's OIDC issuer (signing key,
// JWKS, the request token check, the audience parameter) and a loopback identity provider that
// verifies the assertion against that JWKS (signature, iss, aud, exp, sub) before issuing a token.
const ISSUER = 'https://token.actions.githubusercontent.com'
const SUBJECT = 'repo:m2m-org/scans:ref:refs/heads/main'
const REQUEST_TOKEN = 'runner-request-token-0123456789'
const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 })
const jwk = { ...publicKey.export({ format: 'jwk' }), kid: 'gh-1', alg: 'RS256', use: 'sig' }
const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url')
let issued: string[] = []

function idToken(audience: string): string {
  const now = Math.floor(Date.now() / 1000)
  const input = `${b64({ alg: 'RS256', typ: 'JWT', kid: 'gh-1' })}.${b64({ iss: ISSUER, sub: SUBJECT, aud: audience, iat: now, exp: now + 300 })}`
  return `${input}.${sign('sha256', Buffer.from(input), privateKey).toString('base64url')}`
}

/** What a federating identity provider checks, with the issuer's JWKS. */
function verifyAssertion(assertion: string, clientId: string): string | undefined {
  const [h, c, s] = assertion.split('.')
  const header = JSON.parse(Buffer.from(h, 'base64url').toString())
  const claims = JSON.parse(Buffer.from(c, 'base64url').toString())
  const key = createPublicKey({ key: { ...jwk, kid: header.kid } as never, format: 'jwk' })
  if (!verify('sha256', Buffer.from(`${h}.${c}`), key, Buffer.from(s, 'base64url'))) return 'bad signature'
  if (claims.iss !== ISSUER) return 'bad issuer'
  if (claims.aud !== 'api://AzureADTokenExchange') return 'bad audience'
  if (claims.exp * 1000 < Date.now()) return 'expired'
  if (claims.sub !== SUBJECT) return 'bad subject'
  if (clientId !== 'client-e2e') return 'unknown client'
  return undefined
}

let github: TestServer
let idp: TestServer
let api: TestServer
beforeAll(async () => {
  github = await startServer((req, res) => {
    if (req.headers.authorization !== `Bearer ${REQUEST_TOKEN}`) return json(res, 401, { message: 'Bad credentials' })
    const audience = new URL(req.url, 'http://x').searchParams.get('audience') ?? ''
    const token = idToken(audience)
    issued.push(token)
    json(res, 200, { value: token })
  })
  idp = await startServer((req, res) => {
    const form = new URLSearchParams(req.body)
    const problem =
      form.get('client_assertion_type') !== 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer'
        ? 'no assertion'
        : verifyAssertion(form.get('client_assertion') ?? '', form.get('client_id') ?? '')
    if (problem) return json(res, 401, { error: 'invalid_client', error_description: problem })
    json(res, 200, { access_token: TOKEN, expires_in: 3600, token_type: 'Bearer' })
  })
  api = await startServer((_req, res) => json(res, 200, [{ id: 'a' }]))
})
afterAll(async () => {
  await Promise.all([github.close(), idp.close(), api.close()])
})
beforeEach(() => {
  issued = []
  for (const s of [github, idp, api]) s.requests.length = 0
})

const inputs = (extra: Record<string, string> = {}) => {
  const base = clientInputs(idp.url, api.url, {
    'client-auth': 'github-oidc',
    'token-request-format': 'form',
    ...extra
  })
  delete base['client-secret']
  delete base.audience
  return base
}
const runnerEnv = { ACTIONS_ID_TOKEN_REQUEST_URL: '', ACTIONS_ID_TOKEN_REQUEST_TOKEN: REQUEST_TOKEN }

describe('client-auth: github-oidc', () => {
  it('sends the job ID token as a client assertion, which the provider verifies against the JWKS', async () => {
    const run = await runAction(inputs({ 'seal-token': 'true' }), {
      env: { ...runnerEnv, ACTIONS_ID_TOKEN_REQUEST_URL: `${github.url}/token?api-version=2.0` }
    })
    try {
      expect(run.code).toBe(0)
      expect(run.outputs.token).toBe(TOKEN)
      expect(github.requests[0].url).toBe('/token?api-version=2.0&audience=api%3A%2F%2FAzureADTokenExchange')
      const form = new URLSearchParams(idp.requests[0].body)
      expect([...form.keys()]).toEqual(['client_id', 'client_assertion_type', 'client_assertion', 'grant_type'])
      expect(form.get('client_assertion')).toBe(issued[0])
      expect(form.get('client_secret')).toBeNull()
      // The ID token and the runner's request token are masked; nothing is sealed without a secret.
      expect(run.stdout).toContain(`::add-mask::${REQUEST_TOKEN}\n`)
      expect(run.stdout).toContain(`::add-mask::${issued[0]}\n`)
      expect(run.outputs['sealed-token']).toBe('')
      expect(run.stdout).toContain('No sealed-token output: client-auth github-oidc holds no secret to seal with')
    } finally {
      run.cleanup()
    }
  })

  it('fails before any request when the job has no id-token permission, naming it', async () => {
    const run = await runAction(inputs(), { env: { ACTIONS_ID_TOKEN_REQUEST_TOKEN: '' } })
    try {
      expectFailure(
        run,
        /^::error::Input client-auth is github-oidc, but the job cannot get an OIDC ID token from GitHub: add "permissions: id-token: write"/
      )
      expect(github.requests).toHaveLength(0)
      expect(idp.requests).toHaveLength(0)
    } finally {
      run.cleanup()
    }
  })

  it('is refused by the provider for another audience, with advice that names the federation', async () => {
    const run = await runAction(inputs({ 'oidc-audience': 'api://other' }), {
      env: { ...runnerEnv, ACTIONS_ID_TOKEN_REQUEST_URL: `${github.url}/token?api-version=2.0` }
    })
    try {
      expectFailure(
        run,
        /HTTP 401 Unauthorized \(invalid_client: bad audience\)\. Check the client-id and oidc-audience \(api:\/\/other\) inputs/
      )
    } finally {
      run.cleanup()
    }
  })
})
