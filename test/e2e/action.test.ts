import { createHash } from 'node:crypto'
import { statSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import {
  CLIENT,
  expectFailure,
  expectNoLeaks,
  json,
  makeJwt,
  runAction,
  startServer,
  TestServer,
  clientInputs,
  TOKEN
} from './harness.js'

const TARGETS = [
  { id: 't-1', name: 'alpha' },
  { id: 't-2', name: 'beta "two"' }
]

let idp: TestServer
let api: TestServer
let idpReply: (res: import('node:http').ServerResponse) => void
let apiReply: (res: import('node:http').ServerResponse) => void

beforeAll(async () => {
  idp = await startServer((_req, res) => idpReply(res))
  api = await startServer((_req, res) => apiReply(res))
})
afterAll(async () => {
  await idp.close()
  await api.close()
})
beforeEach(() => {
  idp.requests.length = 0
  api.requests.length = 0
  idpReply = res =>
    json(res, 200, { access_token: TOKEN, scope: 'read:client_grants', expires_in: 86400, token_type: 'Bearer' })
  apiReply = res => json(res, 200, TARGETS)
})

const inputs = (extra: Record<string, string> = {}) => clientInputs(`${idp.url}/`, `${api.url}/`, extra)

describe.each([false, true])('the action end to end (debug %s)', debug => {
  it('exchanges credentials, masks the token, lists targets and sets every output', async () => {
    const before = Date.now()
    const run = await runAction(inputs(), { debug })
    const after = Date.now()
    try {
      expect(run.code).toBe(0)
      expect(idp.requests).toHaveLength(1)
      const [tokenRequest] = idp.requests
      expect(tokenRequest.url).toBe('/oauth/token')
      expect(tokenRequest.headers['content-type']).toBe('application/json')
      expect(JSON.parse(tokenRequest.body)).toStrictEqual({
        client_id: CLIENT.id,
        client_secret: CLIENT.secret,
        audience: CLIENT.audience,
        grant_type: 'client_credentials'
      })
      expect(tokenRequest.body).toBe(
        JSON.stringify({
          client_id: CLIENT.id,
          client_secret: CLIENT.secret,
          audience: CLIENT.audience,
          grant_type: 'client_credentials'
        })
      )
      expect(api.requests).toEqual([
        expect.objectContaining({
          method: 'GET',
          url: '/v1/targets',
          headers: expect.objectContaining({ authorization: `Bearer ${TOKEN}`, accept: 'application/json' })
        })
      ])

      // Masks come first: the secret when read, the token the moment it arrives.
      const lines = run.stdout.split('\n')
      expect(lines.indexOf(`::add-mask::${CLIENT.secret}`)).toBe(0)
      expect(lines.indexOf(`::add-mask::${TOKEN}`)).toBeGreaterThan(0)
      expect(lines.indexOf(`::add-mask::${TOKEN}`)).toBeLessThan(lines.findIndex(l => l.startsWith('Exchanged')))
      expect(run.log).toContain('Exchanged client credentials for a token, expires in 24 h')
      expect(run.log).toContain('Listed 2 targets')
      expect(run.log.includes('::debug::')).toBe(debug)

      expect(run.outputs).toEqual({
        token: TOKEN,
        'token-type': 'Bearer',
        'token-source': 'exchange',
        'expires-in': '86400',
        'expires-at': expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
        scope: 'read:client_grants',
        // A step that hands nothing on seals nothing: no sealed token, no record key.
        'sealed-token': '',
        targets: JSON.stringify(TARGETS),
        'target-count': '2',
        'targets-file': expect.stringContaining(run.runnerTemp),
        'targets-digest': expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
        shards: '["1/1"]'
      })
      const written = readFileSync(run.outputs['targets-file'])
      expect(run.outputs['targets-digest']).toBe(`sha256:${createHash('sha256').update(written).digest('hex')}`)
      // expires_in counted from when the token came: between the step's start and its end, to the second.
      const expiresAt = Date.parse(run.outputs['expires-at'])
      expect(expiresAt).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000 + 86_400_000)
      expect(expiresAt).toBeLessThanOrEqual(after + 86_400_000)
      expect(JSON.parse(readFileSync(run.outputs['targets-file'], 'utf8'))).toEqual(TARGETS)
      expect(statSync(run.outputs['targets-file']).mode & 0o777).toBe(0o600)
      expect(run.summary).toContain('- **Targets**: 2 from')
      expect(run.summary).toContain('| t-2 | beta "two" |')
      expect(run.summary).toContain('subject client-e2e\\@clients')
      expect(run.exported).toEqual({})
      expectNoLeaks(run, [CLIENT.secret, TOKEN])
    } finally {
      run.cleanup()
    }
  })

  it('exports the token to a variable for later steps when asked', async () => {
    const run = await runAction(
      inputs({ 'export-variable': 'SERVICE_TOKEN', 'list-targets': 'false', summary: 'false' }),
      { debug }
    )
    try {
      expect(run.code).toBe(0)
      expect(run.exported).toEqual({ SERVICE_TOKEN: TOKEN })
      expect(api.requests).toHaveLength(0)
      expect(run.outputs.targets).toBeUndefined()
      expect(run.outputs['target-count']).toBeUndefined()
      expect(run.summary).toBe('')
      expectNoLeaks(run, [CLIENT.secret, TOKEN], 'SERVICE_TOKEN')
    } finally {
      run.cleanup()
    }
  })

  it('warns but succeeds when the job summary cannot be written', async () => {
    const run = await runAction(inputs(), { debug, env: { GITHUB_STEP_SUMMARY: tmpdir() } })
    try {
      expect(run.code).toBe(0)
      expect(run.stdout).toMatch(/^::warning::The job summary was not written: EISDIR/m)
      expect(run.outputs['target-count']).toBe('2')
    } finally {
      run.cleanup()
    }
  })

  it('uses a given token without any exchange, masked, with its expiry from the JWT', async () => {
    const exp = Math.floor(Date.now() / 1000) + 3600
    const userToken = makeJwt({ sub: 'auth0|user-1', exp })
    const run = await runAction({ token: userToken, 'base-url': api.url }, { debug })
    try {
      expect(run.code).toBe(0)
      expect(idp.requests).toHaveLength(0)
      expect(api.requests[0].headers.authorization).toBe(`Bearer ${userToken}`)
      expect(run.stdout.split('\n')[0]).toBe(`::add-mask::${userToken}`)
      expect(run.outputs).toMatchObject({
        'token-source': 'input',
        'expires-at': new Date(exp * 1000).toISOString().replace('.000Z', 'Z'),
        'sealed-token': ''
      })
      expect(run.log).toMatch(/Using the token from the token input, expires in (59 min|1 h); no exchange made/)
      expectNoLeaks(run, [userToken])
    } finally {
      run.cleanup()
    }
  })

  it('fails before any request when the token input has expired', async () => {
    const expired = makeJwt({ sub: 'auth0|user-1', exp: Math.floor(Date.now() / 1000) - 60 })
    const run = await runAction({ token: expired, 'base-url': api.url }, { debug })
    try {
      expectFailure(run, /^::error::The token input expired at \d{4}-\d\d-\d\dT[\d:.]+Z: give a fresh token\.$/)
      expect(api.requests).toHaveLength(0)
    } finally {
      run.cleanup()
    }
  })

  it.each([
    ['an array', TARGETS],
    ['an object with data', { data: TARGETS, total: 2 }],
    ['an object with items', { items: TARGETS }],
    ['an object with results', { results: TARGETS }]
  ])('reads a targets body that is %s', async (_shape, body) => {
    apiReply = res => json(res, 200, body)
    const run = await runAction(inputs(), { debug })
    try {
      expect(run.code).toBe(0)
      expect(JSON.parse(run.outputs.targets)).toEqual(TARGETS)
    } finally {
      run.cleanup()
    }
  })

  it.each([
    [
      'IdP 401',
      () => (idpReply = res => json(res, 401, { error: 'access_denied', error_description: 'Unauthorized' })),
      /^::error::Failed to exchange client credentials for a token: 127\.0\.0\.1:\d+ answered HTTP 401 Unauthorized \(access_denied: Unauthorized\)\. Check the client-id and client-secret inputs/
    ],
    [
      'IdP 403',
      () =>
        (idpReply = res =>
          json(res, 403, { error: 'access_denied', error_description: 'Client has not been granted scopes' })),
      /HTTP 403 Forbidden \(access_denied: Client has not been granted scopes\)\. The client has no grant for the audience/
    ],
    [
      'a junk token response',
      () => (idpReply = res => json(res, 200, '<html>hi</html>')),
      /the identity provider's response is not valid JSON/
    ],
    [
      'a token response without access_token',
      () => (idpReply = res => json(res, 200, { token_type: 'Bearer' })),
      /the identity provider's response has no access_token/
    ],
    [
      'a non-Bearer token',
      () => (idpReply = res => json(res, 200, { access_token: TOKEN, token_type: 'MAC' })),
      /has token_type "MAC"; only Bearer tokens are supported/
    ],
    [
      'service 401',
      () => (apiReply = res => json(res, 401, { message: 'jwt expired' })),
      /Failed to list targets: 127\.0\.0\.1:\d+ answered HTTP 401 Unauthorized \(jwt expired\)\. The service refused the token/
    ],
    [
      'service 403',
      () => (apiReply = res => json(res, 403, { message: 'Forbidden' })),
      /HTTP 403 Forbidden \(Forbidden\)\. The token is valid but the organisation's bot user may not list targets: add the bot user to a group/
    ],
    [
      'service 404',
      () => (apiReply = res => json(res, 404, { message: 'Not found' })),
      /HTTP 404 Not Found \(Not found\)\. Check base-url/
    ],
    [
      'service 500',
      () => (apiReply = res => json(res, 500, 'boom', { 'Retry-After': '0' })),
      /HTTP 500 Internal Server Error after 6 attempts \(boom\)\. The service failed: re-run later/
    ],
    [
      'an unreadable targets body',
      () => (apiReply = res => json(res, 200, { count: 0 })),
      /the service's response is a JSON object without a targets, data, items, results array \(its keys: count\)/
    ]
  ])('fails cleanly on %s', async (_name, arrange, message) => {
    arrange()
    const run = await runAction(inputs({ 'export-variable': 'SERVICE_TOKEN' }), { debug })
    try {
      expectFailure(run, message)
      expectNoLeaks(run, [CLIENT.secret, TOKEN])
    } finally {
      run.cleanup()
    }
  })

  it.each([
    [{ 'max-attempts': '0' }, /^::error::Input max-attempts must be a whole number from 1 to 10/],
    [{ 'base-url': 'http://api.service.example' }, /^::error::Input base-url must use https:\/\//],
    [{ 'client-secret': '' }, /^::error::Input required and not supplied: client-secret/],
    [{ 'auth-url': 'https://u:p@idp.test' }, /^::error::Input auth-url must not contain credentials/]
  ])('validates inputs before any request: %j', async (override, message) => {
    const run = await runAction(inputs(override), { debug })
    try {
      expectFailure(run, message)
      expect(idp.requests).toHaveLength(0)
      expect(api.requests).toHaveLength(0)
      expectNoLeaks(run, [CLIENT.secret])
    } finally {
      run.cleanup()
    }
  })
})
