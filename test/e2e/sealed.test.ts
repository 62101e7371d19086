import { CLIENT, expectNoLeaks, json, makeJwt, runAction, startServer, TestServer, clientInputs } from './harness.js'

let idp: TestServer
let api: TestServer
let tokens: string[]
let expiresIn: number

beforeAll(async () => {
  idp = await startServer((_req, res) => {
    const token = makeJwt({ sub: 'client-e2e@clients', n: tokens.length })
    tokens.push(token)
    json(res, 200, { access_token: token, expires_in: expiresIn, token_type: 'Bearer', scope: 'read:targets' })
  })
  api = await startServer((_req, res) => json(res, 200, [{ id: 1 }]))
})
afterAll(async () => {
  await Promise.all([idp.close(), api.close()])
})
beforeEach(() => {
  tokens = []
  expiresIn = 86400
  idp.requests.length = 0
  api.requests.length = 0
})

const inputs = (extra: Record<string, string> = {}) => clientInputs(idp.url, api.url, extra)

async function mint(extra: Record<string, string> = {}, debug = false): Promise<string> {
  const run = await runAction(inputs({ 'seal-token': 'true', ...extra }), { debug })
  run.cleanup()
  expect(run.code).toBe(0)
  expect(run.outputs['token-source']).toBe('exchange')
  return run.outputs['sealed-token']
}

describe.each([false, true])('sealed tokens end to end (debug %s)', debug => {
  it('mints once and reuses the token with no request to the identity provider', async () => {
    const sealed = await mint()
    expect(sealed).toMatch(/^m2m3\.[\w-]+\.[\w-]+$/)
    expect(sealed).not.toContain(tokens[0].split('.')[1])
    const run = await runAction(inputs({ 'sealed-token': sealed }), { debug })
    try {
      expect(run.code).toBe(0)
      expect(idp.requests).toHaveLength(1) // only the mint
      expect(api.requests.at(-1)?.headers.authorization).toBe(`Bearer ${tokens[0]}`)
      expect(run.outputs).toMatchObject({
        token: tokens[0],
        'token-source': 'sealed',
        'sealed-token': sealed,
        scope: 'read:targets'
      })
      expect(Number(run.outputs['expires-in'])).toBeGreaterThan(86000)
      expect(run.log).toMatch(/Reused the sealed token, expires in (23 h 59 min|24 h); no token request made/)
      expect(run.stdout.split('\n').indexOf(`::add-mask::${tokens[0]}`)).toBeGreaterThan(-1)
      expect(run.stdout).not.toMatch(/^::warning::/m)
      expectNoLeaks(run, [CLIENT.secret, tokens[0]])
    } finally {
      run.cleanup()
    }
  })

  it.each([
    ['another client secret', { 'client-secret': `${CLIENT.secret}-rotated` }, /cannot be opened with these inputs/],
    ['another audience', { audience: 'https://other.audience/' }, /cannot be opened with these inputs/],
    ['another base-url', { 'base-url': `${'http://localhost'}:1` }, /cannot be opened with these inputs/]
  ])('exchanges afresh, with a warning, for %s', async (_name, override, reason) => {
    const sealed = await mint()
    const settings = inputs({ 'sealed-token': sealed, ...override, 'list-targets': 'false' })
    const run = await runAction(settings, { debug })
    try {
      expect(run.code).toBe(0)
      expect(idp.requests).toHaveLength(2)
      expect(run.outputs['token-source']).toBe('exchange')
      const warnings = run.stdout.split('\n').filter(l => l.startsWith('::warning::'))
      expect(warnings).toHaveLength(1)
      expect(warnings[0]).toMatch(reason)
      expect(warnings[0]).toContain('Exchanging client credentials instead.')
      expectNoLeaks(run, [settings['client-secret'], ...tokens])
    } finally {
      run.cleanup()
    }
  })

  it('exchanges afresh, with a warning, for a tampered sealed token', async () => {
    const sealed = await mint()
    const i = sealed.length - 10
    const tampered = sealed.slice(0, i) + (sealed[i] === 'A' ? 'B' : 'A') + sealed.slice(i + 1)
    const run = await runAction(inputs({ 'sealed-token': tampered }), { debug })
    try {
      expect(run.code).toBe(0)
      expect(run.outputs['token-source']).toBe('exchange')
      expect(run.stdout).toMatch(/^::warning::The sealed-token input was not used: it cannot be opened/m)
      expect(run.outputs['sealed-token']).not.toBe(sealed)
    } finally {
      run.cleanup()
    }
  })

  it('exchanges afresh when the sealed token expires within min-validity-seconds', async () => {
    expiresIn = 200
    const sealed = await mint()
    expiresIn = 86400
    const run = await runAction(inputs({ 'sealed-token': sealed }), { debug })
    try {
      expect(run.code).toBe(0)
      expect(idp.requests).toHaveLength(2)
      expect(run.stdout).toMatch(
        /^::warning::The sealed-token input expires in 3 min, less than min-validity-seconds \(300\)\. Exchanging/m
      )
      expect(run.outputs.token).toBe(tokens[1])
    } finally {
      run.cleanup()
    }
    const lenient = await runAction(inputs({ 'sealed-token': sealed, 'min-validity-seconds': '60' }), { debug })
    try {
      expect(lenient.outputs['token-source']).toBe('sealed')
      expect(idp.requests).toHaveLength(2)
    } finally {
      lenient.cleanup()
    }
  })

  it('leaves sealed-token empty when the token input is used', async () => {
    const run = await runAction({ token: makeJwt({ sub: 'user' }), 'base-url': api.url }, { debug })
    try {
      expect(run.outputs).toMatchObject({ 'token-source': 'input', 'sealed-token': '' })
    } finally {
      run.cleanup()
    }
  })
})

describe.each([false, true])('any OAuth 2.0 identity provider (debug %s)', debug => {
  it('sends a form body to token-url in form mode', async () => {
    const run = await runAction(
      inputs({ 'auth-url': '', 'token-url': `${idp.url}/custom/token?tenant=t1`, 'token-request-format': 'form' }),
      { debug }
    )
    try {
      expect(run.code).toBe(0)
      expect(idp.requests[0].url).toBe('/custom/token?tenant=t1')
      expect(idp.requests[0].headers['content-type']).toBe('application/x-www-form-urlencoded')
      expect(Object.fromEntries(new URLSearchParams(idp.requests[0].body))).toEqual({
        client_id: CLIENT.id,
        client_secret: CLIENT.secret,
        audience: CLIENT.audience,
        grant_type: 'client_credentials'
      })
      expectNoLeaks(run, [CLIENT.secret, tokens[0]])
    } finally {
      run.cleanup()
    }
  })
})

describe('a sealed token the service refuses (revoked or rotated since the listing job)', () => {
  const revoked = new Set<string>()
  let revokeAll = false
  beforeAll(() => {
    api.server.removeAllListeners('request')
    api.server.on('request', (req, res) => {
      req.resume()
      req.on('end', () => {
        api.requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: '' })
        const token = (req.headers.authorization ?? '').replace(/^Bearer /, '')
        if (revokeAll || revoked.has(token)) return json(res, 401, { error: 'invalid_token' })
        json(res, 200, [{ id: 1 }])
      })
    })
  })

  it('makes one fresh exchange and one retry, with a warning', async () => {
    const sealed = await mint()
    revoked.add(tokens[0])
    api.requests.length = 0
    const run = await runAction(inputs({ 'sealed-token': sealed, call: 'PUT /v1/t/{id}' }))
    try {
      expect(run.code).toBe(0)
      expect(idp.requests).toHaveLength(2) // the mint, and one recovery
      expect(run.stdout).toContain('::warning::The service refused the sealed token (HTTP 401)')
      expect(api.requests.map(r => r.headers.authorization)).toEqual([
        `Bearer ${tokens[0]}`, // the listing, refused
        `Bearer ${tokens[1]}`, // the listing again, with the fresh token
        `Bearer ${tokens[1]}` // the call
      ])
      expect(run.outputs.token).toBe(tokens[1])
    } finally {
      run.cleanup()
    }
  })

  it('fails as before on a second 401', async () => {
    const sealed = await mint()
    revokeAll = true
    const run = await runAction(inputs({ 'sealed-token': sealed }))
    try {
      expect(run.code).toBe(1)
      expect(run.stdout).toMatch(/^::error::Failed to list targets: .* answered HTTP 401 Unauthorized/m)
      expect(idp.requests).toHaveLength(2)
    } finally {
      revokeAll = false
      run.cleanup()
    }
  })
})
