// What the action sends for each client authentication, recorded, and how it treats what servers
// send back: hostile text stays inert, an endpoint's query stays out of messages, and a step whose
// outputs cannot all be written fails with none.
import { generateKeyPairSync, verify } from 'node:crypto'
import { ServerResponse } from 'node:http'
import {
  CLIENT,
  clientInputs,
  expectFailure,
  expectNoLeaks,
  json,
  runAction,
  startServer,
  TestServer,
  TOKEN
} from './harness.js'

let idp: TestServer
let api: TestServer
let apiReply: (res: ServerResponse) => void

beforeAll(async () => {
  idp = await startServer((req, res) =>
    req.url.includes('missing')
      ? json(res, 404, { error: 'not_found' })
      : json(res, 200, { access_token: TOKEN, expires_in: 86400, token_type: 'Bearer' })
  )
  api = await startServer((_req, res) => apiReply(res))
})
afterAll(async () => {
  await Promise.all([idp.close(), api.close()])
})
beforeEach(() => {
  idp.requests.length = 0
  api.requests.length = 0
  apiReply = res => json(res, 200, [{ id: 1 }])
})

const inputs = (extra: Record<string, string> = {}) => clientInputs(idp.url, api.url, extra)
const form = (body: string) => Object.fromEntries(new URLSearchParams(body))

describe('client authentication, as a recording server sees it', () => {
  it('post (the default): exactly the four JSON fields', async () => {
    const run = await runAction(inputs())
    run.cleanup()
    expect(run.code).toBe(0)
    expect(idp.requests[0].headers.authorization).toBeUndefined()
    expect(JSON.parse(idp.requests[0].body)).toStrictEqual({
      client_id: CLIENT.id,
      client_secret: CLIENT.secret,
      audience: CLIENT.audience,
      grant_type: 'client_credentials'
    })
  })

  it('basic: form-encoded id:secret in base64, no secret in the body', async () => {
    const run = await runAction(
      inputs({ 'client-auth': 'basic', 'token-request-format': 'form', audience: '', scope: 'read write' })
    )
    try {
      expect(run.code).toBe(0)
      const { authorization } = idp.requests[0].headers
      const [id, secret] = Buffer.from(String(authorization).replace(/^Basic /, ''), 'base64')
        .toString('utf8')
        .split(':')
        .map(part => decodeURIComponent(part.replace(/\+/g, ' ')))
      expect({ id, secret }).toEqual({ id: CLIENT.id, secret: CLIENT.secret })
      expect(form(idp.requests[0].body)).toStrictEqual({ grant_type: 'client_credentials', scope: 'read write' })
      expectNoLeaks(run, [CLIENT.secret, String(authorization).slice(6)])
    } finally {
      run.cleanup()
    }
  })

  it('private-key-jwt: a signed assertion for this endpoint, no secret at all', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' })
    const key = privateKey.export({ type: 'sec1', format: 'pem' }) as string
    const run = await runAction(
      inputs({
        'client-secret': '',
        'client-auth': 'private-key-jwt',
        'private-key': key,
        'private-key-id': 'ci-key'
      })
    )
    try {
      expect(run.code).toBe(0)
      const body = JSON.parse(idp.requests[0].body)
      expect(Object.keys(body)).toEqual([
        'client_id',
        'client_assertion_type',
        'client_assertion',
        'audience',
        'grant_type'
      ])
      const [h, c, s] = body.client_assertion.split('.')
      expect(JSON.parse(Buffer.from(h, 'base64url').toString())).toEqual({ alg: 'ES256', typ: 'JWT', kid: 'ci-key' })
      expect(JSON.parse(Buffer.from(c, 'base64url').toString())).toMatchObject({
        iss: CLIENT.id,
        sub: CLIENT.id,
        aud: `${idp.url}/oauth/token`
      })
      const signed = Buffer.from(`${h}.${c}`)
      expect(verify('sha256', signed, { key: publicKey, dsaEncoding: 'ieee-p1363' }, Buffer.from(s, 'base64url'))).toBe(
        true
      )
      expectNoLeaks(run, [key])
    } finally {
      run.cleanup()
    }
  })

  it.each([
    [{ 'client-auth': 'mutual-tls' }, /^::error::Input client-auth must be one of post, basic, private-key-jwt/],
    [{ 'client-auth': 'private-key-jwt' }, /^::error::Input required and not supplied: private-key/],
    [{ 'client-auth': 'private-key-jwt', 'private-key': 'hunter2' }, /^::error::Input private-key is not a PEM/]
  ])('fails on %j before any request', async (override, message) => {
    const run = await runAction(inputs(override))
    try {
      expectFailure(run, message)
      expect(idp.requests).toHaveLength(0)
    } finally {
      run.cleanup()
    }
  })
})

describe('hostile and sensitive data', () => {
  it('renders target names inert in the job summary: no link, image or emphasis', async () => {
    apiReply = res =>
      json(res, 200, [
        { id: 'a', name: '[Session expired](https://evil.example/login)' },
        { id: 'b', name: '![x](https://evil.example/pixel.png) **urgent**' },
        { id: 'c', name: '<a href="https://evil.example">click</a> www.evil.example' }
      ])
    const run = await runAction(inputs())
    try {
      expect(run.code).toBe(0)
      expect(run.summary).toContain('| a | \\[Session expired\\]\\(https\\://evil.example/login\\) |')
      expect(run.summary).toContain('| b | \\!\\[x\\]\\(https\\://evil.example/pixel.png\\) \\*\\*urgent\\*\\* |')
      expect(run.summary).toContain('\\<a href="https\\://evil.example"\\>click\\</a\\> www\\.evil.example')
      expect(run.summary).not.toMatch(/(^|[^\\])\[Session/)
    } finally {
      run.cleanup()
    }
  })

  it('names the token endpoint by origin and path only: its query may hold a key', async () => {
    const run = await runAction(
      inputs({ 'token-url': `${idp.url}/missing/token?subscription-key=k3y-0f-the-gateway` }),
      { debug: true }
    )
    try {
      // token-url was given, so the advice names it (it used to blame auth-url, which was not used)
      expectFailure(run, new RegExp(`There is no token endpoint at ${idp.url}/missing/token: check token-url\\.`))
      expect(run.stdout).toContain(
        '::warning::Inputs token-url and auth-url are both set: token-url is used, and auth-url is not'
      )
      expect(`${run.stdout}${run.stderr}`).not.toContain('k3y-0f-the-gateway')
      expect(idp.requests[0].url).toBe('/missing/token?subscription-key=k3y-0f-the-gateway')
    } finally {
      run.cleanup()
    }
  })
})

describe('all or nothing', () => {
  it('fails with no output and no file when GITHUB_ENV cannot be written (a full disk)', async () => {
    const run = await runAction(inputs({ 'export-variable': 'SERVICE_TOKEN' }), { env: { GITHUB_ENV: '/dev/full' } })
    try {
      expectFailure(
        run,
        /^::error::Failed to write the step's outputs to GITHUB_ENV: ENOSPC: no space left on device, write\. No output was set\.$/
      )
      expect(run.summary).toBe('')
      expectNoLeaks(run, [CLIENT.secret, TOKEN])
    } finally {
      run.cleanup()
    }
  })

  it('fails with no output and no file when GITHUB_OUTPUT is not set', async () => {
    const run = await runAction(inputs(), { env: { GITHUB_OUTPUT: '' } })
    try {
      expectFailure(run, /^::error::GITHUB_OUTPUT is not set, so the step's outputs cannot be written/)
      expectNoLeaks(run, [CLIENT.secret, TOKEN])
    } finally {
      run.cleanup()
    }
  })
})
