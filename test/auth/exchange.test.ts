import { generateKeyPairSync, verify } from 'node:crypto'
import nock from 'nock'
import { exchangeToken, parseTokenResponse, tokenRequestFields } from '../../src/auth/exchange.js'
import { Credentials } from '../../src/auth/credentials.js'
import { ResponseError } from '../../src/http/operation.js'
import { mask } from '../../src/secrets.js'
import { captureStdout, recordingHttp } from '../helpers.js'
import { clientSecretBasic, clientSecretPost } from '../../src/auth/client-secret.js'
import { privateKeyJwt } from '../../src/auth/private-key-jwt.js'
import { useNock } from '../nock.js'
import fc from 'fast-check'
import { jsonish, valueOrClearError } from '../helpers.js'

useNock()

const IDP = 'https://tenant.idp.test'
const SECRET = 's3cr"et\\ with spaces ✓ +/'
const credentials: Credentials = {
  clientId: 'client "one" \\ ü',
  auth: clientSecretPost(SECRET),
  audience: 'https://tenant.idp.test/api/v2/',
  tokenUrl: new URL(`${IDP}/oauth/token`),
  bodyFormat: 'json'
}
const TOKEN = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJib3QifQ.c2lnbmF0dXJl'

describe('exchangeToken', () => {
  it('posts exactly the four fields, byte for byte, as JSON', async () => {
    let received: unknown
    nock(IDP)
      .matchHeader('content-type', 'application/json')
      .post('/oauth/token', body => {
        received = body
        return true
      })
      .reply(200, { access_token: TOKEN, token_type: 'Bearer', expires_in: 86400, scope: 'read:client_grants' })
    const secrets: string[] = []
    const token = await exchangeToken(recordingHttp().http, credentials, s => secrets.push(s))
    expect(received).toStrictEqual({
      client_id: credentials.clientId,
      client_secret: SECRET,
      audience: credentials.audience,
      grant_type: 'client_credentials'
    })
    expect(token).toEqual({
      accessToken: TOKEN,
      tokenType: 'Bearer',
      expiresInSeconds: 86400,
      scope: 'read:client_grants'
    })
    expect(secrets).toEqual([TOKEN])
  })

  it('sends the same four fields form-encoded in form mode, as raw form text', async () => {
    const form = { ...credentials, bodyFormat: 'form' as const }
    const expected =
      'client_id=client+%22one%22+%5C+%C3%BC&client_secret=s3cr%22et%5C+with+spaces+%E2%9C%93+%2B%2F' +
      '&audience=https%3A%2F%2Ftenant.idp.test%2Fapi%2Fv2%2F&grant_type=client_credentials'
    // A string body matcher compares the raw text: a JSON body, or other field order, would not match.
    nock(IDP)
      .matchHeader('content-type', 'application/x-www-form-urlencoded')
      .post('/oauth/token', expected)
      .reply(200, { access_token: TOKEN, token_type: 'bearer' })
    await expect(exchangeToken(recordingHttp().http, form, () => undefined)).resolves.toMatchObject({
      accessToken: TOKEN
    })
    expect(Object.fromEntries(new URLSearchParams(expected))).toStrictEqual({
      client_id: credentials.clientId,
      client_secret: SECRET,
      audience: credentials.audience,
      grant_type: 'client_credentials'
    })
  })

  it('refuses to match a JSON body against the raw form text (the matcher above can fail)', async () => {
    nock(IDP).post('/oauth/token', 'client_id=x').reply(200, { access_token: TOKEN })
    nock(IDP).post('/oauth/token').reply(418, 'not the form')
    await expect(exchangeToken(recordingHttp().http, credentials, () => undefined)).rejects.toThrow(/HTTP 418/)
    nock.cleanAll()
  })

  it('sends HTTP Basic credentials, form-encoded before base64, and no secret in the body', async () => {
    let authorization: string | undefined
    let received: unknown
    nock(IDP, {
      reqheaders: {
        authorization: value => {
          authorization = value ?? undefined
          return true
        }
      }
    })
      .post('/oauth/token', body => {
        received = body
        return true
      })
      .reply(200, { access_token: TOKEN })
    const basic: Credentials = { ...credentials, auth: clientSecretBasic(SECRET), scope: 'read write' }
    await exchangeToken(recordingHttp().http, basic, () => undefined)
    const [id, secret] = Buffer.from(authorization!.replace(/^Basic /, ''), 'base64')
      .toString('utf8')
      .split(':')
    expect(decodeURIComponent(id.replace(/\+/g, ' '))).toBe(credentials.clientId)
    expect(decodeURIComponent(secret.replace(/\+/g, ' '))).toBe(SECRET)
    expect(secret).toBe('s3cr%22et%5C+with+spaces+%E2%9C%93+%2B%2F')
    expect(received).toStrictEqual({
      audience: credentials.audience,
      grant_type: 'client_credentials',
      scope: 'read write'
    })
  })

  it.each([
    ['rsa', 'RS256'],
    ['ec', 'ES256']
  ] as const)('signs a fresh client assertion (%s, %s) for every attempt', async (type, algorithm) => {
    const { privateKey, publicKey } =
      type === 'rsa'
        ? generateKeyPairSync('rsa', { modulusLength: 2048 })
        : generateKeyPairSync('ec', { namedCurve: 'prime256v1' })
    const jwt: Credentials = {
      ...credentials,
      auth: privateKeyJwt({ privateKey, algorithm, keyId: 'key-7' }),
      bodyFormat: 'form'
    }
    const bodies: Record<string, string>[] = []
    nock(IDP)
      .post('/oauth/token', body => {
        bodies.push(body as Record<string, string>)
        return true
      })
      .reply(503)
      .post('/oauth/token', body => {
        bodies.push(body as Record<string, string>)
        return true
      })
      .reply(200, { access_token: TOKEN })
    const before = Math.floor(Date.now() / 1000)
    await exchangeToken(recordingHttp().http, jwt, () => undefined)
    expect(bodies).toHaveLength(2)
    const assertions = bodies.map(b => b.client_assertion)
    expect(assertions[0]).not.toBe(assertions[1])
    for (const body of bodies) {
      expect(body).toMatchObject({
        client_id: credentials.clientId,
        client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
        grant_type: 'client_credentials'
      })
      expect(body.client_secret).toBeUndefined()
      const [h, c, sig] = body.client_assertion.split('.')
      expect(JSON.parse(Buffer.from(h, 'base64url').toString())).toEqual({ alg: algorithm, typ: 'JWT', kid: 'key-7' })
      const claims = JSON.parse(Buffer.from(c, 'base64url').toString())
      expect(claims).toMatchObject({ iss: credentials.clientId, sub: credentials.clientId, aud: `${IDP}/oauth/token` })
      expect(claims.jti).toMatch(/^[0-9a-f]{32}$/)
      expect(claims.iat).toBeGreaterThanOrEqual(before)
      expect(claims.exp - claims.iat).toBeLessThanOrEqual(300)
      const key = publicKey
      const ok = verify(
        'sha256',
        Buffer.from(`${h}.${c}`),
        type === 'ec' ? { key, dsaEncoding: 'ieee-p1363' } : key,
        Buffer.from(sig, 'base64url')
      )
      expect(ok).toBe(true)
    }
  })

  it('leaves out audience when none is given (form mode), and adds scope when one is', async () => {
    const form: Credentials = { ...credentials, audience: undefined, scope: 'api://x/.default', bodyFormat: 'form' }
    const fields = tokenRequestFields(form, await form.auth.proof(form.clientId, form.tokenUrl))
    expect(fields).toStrictEqual({
      client_id: credentials.clientId,
      client_secret: SECRET,
      grant_type: 'client_credentials',
      scope: 'api://x/.default'
    })
  })

  it('names the token endpoint by origin and path only: a query may hold a key', async () => {
    const withKey: Credentials = {
      ...credentials,
      tokenUrl: new URL(`${IDP}/oauth2/token?subscription-key=k3y-SECRET`)
    }
    nock(IDP).post('/oauth2/token').query(true).reply(404, 'no')
    const { http, debugs } = recordingHttp()
    const error = await exchangeToken(http, withKey, () => undefined).catch((e: Error) => e)
    expect((error as Error).message).toContain(`There is no token endpoint at ${IDP}/oauth2/token:`)
    expect((error as Error).message).not.toContain('k3y-SECRET')
    expect(debugs.join('\n')).not.toContain('k3y-SECRET')
  })

  it.each([
    [
      401,
      { error: 'access_denied', error_description: 'Unauthorized' },
      /answered HTTP 401 Unauthorized \(access_denied: Unauthorized\)\. Check the client-id and client-secret inputs .*, and that client-auth \(post\) is the method the client is registered for\./
    ],
    [
      403,
      { error: 'access_denied', error_description: 'Client has not been granted scopes' },
      /HTTP 403 Forbidden \(access_denied: Client has not been granted scopes\)\. The client has no grant for the audience "https:\/\/tenant\.idp\.test\/api\/v2\/"/
    ],
    [
      400,
      { error: 'invalid_request' },
      /HTTP 400 Bad Request \(invalid_request\)\. The identity provider rejected the request/
    ],
    [
      404,
      'Not Found',
      /HTTP 404 Not Found \(Not Found\)\. There is no token endpoint at https:\/\/tenant\.idp\.test\/oauth\/token: check auth-url/
    ],
    [500, 'oops', /after 3 attempts \(oops\)\. The identity provider failed: re-run later\./],
    [
      405,
      'no',
      /HTTP 405 Method Not Allowed \(no\)\. There is no token endpoint at https:\/\/tenant\.idp\.test\/oauth\/token: check auth-url \(the token endpoint is \{auth-url\}\/oauth\/token\) or set token-url\.$/
    ],
    [
      429,
      '{}',
      /HTTP 429 Too Many Requests after 3 attempts \(\{\}\)\. The identity provider is rate-limiting token requests: re-run later, and reuse one token per run \(see sealed-token\) to spend fewer\.$/
    ],
    [418, 'teapot', /HTTP 418 I'm a Teapot \(teapot\)\. Check the auth-url and client inputs\.$/]
  ])('turns HTTP %i into an error that says what to do', async (status, body, message) => {
    nock(IDP).post('/oauth/token').times(3).reply(status, body)
    await expect(exchangeToken(recordingHttp().http, credentials, () => undefined)).rejects.toThrow(message)
  })
})

describe('advice for a private-key-jwt client and a client with no audience', () => {
  it('names the key inputs on a 401 and the API on a 403', async () => {
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' })
    const jwt: Credentials = {
      ...credentials,
      audience: undefined,
      auth: privateKeyJwt({ privateKey, algorithm: 'ES256' })
    }
    nock(IDP).post('/oauth/token').reply(401, { error: 'invalid_client' })
    await expect(exchangeToken(recordingHttp().http, jwt, () => undefined)).rejects.toThrow(
      'Check the client-id, private-key and private-key-id inputs (the identity provider must hold the public key), and that client-auth (private-key-jwt) is the method the client is registered for.'
    )
    nock(IDP).post('/oauth/token').reply(403, { error: 'access_denied' })
    await expect(exchangeToken(recordingHttp().http, jwt, () => undefined)).rejects.toThrow(
      'The client has no grant for this API: authorize the application for that API in the identity provider, or check the audience and scope inputs.'
    )
  })
})

describe('parseTokenResponse', () => {
  const parse = (body: unknown) =>
    parseTokenResponse(typeof body === 'string' ? body : JSON.stringify(body), () => undefined)

  it.each([
    ['{"access_token": "eyJ', 'is not valid JSON'],
    ['[]', 'is not a JSON object'],
    ['null', 'is not a JSON object'],
    [{ token_type: 'Bearer' }, 'has no access_token'],
    [{ access_token: '' }, 'has an access_token that is not a non-empty string'],
    [{ access_token: 42 }, 'has an access_token that is not a non-empty string'],
    [{ access_token: TOKEN, token_type: 'mac' }, 'has token_type "mac"; only Bearer tokens are supported'],
    [{ access_token: TOKEN, expires_in: '3600' }, 'has an expires_in that is not a non-negative number'],
    [{ access_token: TOKEN, expires_in: -1 }, 'has an expires_in that is not a non-negative number'],
    [{ access_token: TOKEN, scope: ['a'] }, 'has a scope that is not a string']
  ])('names what is wrong with %j', (body, message) => {
    expect(() => parse(body)).toThrow(`the identity provider's response ${message}`)
    expect(() => parse(body)).toThrow(ResponseError)
  })

  it('never quotes the body, which may hold the token', () => {
    expect(() => parse(`{"access_token": "${TOKEN}", "token_type": 7}`)).toThrow(/token_type 7/)
    for (const body of [`{"access_token": "${TOKEN}", "token_type": 7}`, `{"access_token": "${TOKEN}`]) {
      const error = (() => {
        try {
          parse(body)
        } catch (err) {
          return err as Error
        }
        throw new Error('parse accepted a bad body')
      })()
      expect(error.message).not.toContain(TOKEN.slice(0, 10))
    }
  })

  it('accepts bearer in any case and an absent token_type, expires_in and scope', () => {
    expect(parse({ access_token: TOKEN, token_type: 'bEaReR' }).tokenType).toBe('Bearer')
    expect(parse({ access_token: TOKEN })).toEqual({ accessToken: TOKEN, tokenType: 'Bearer' })
  })

  it('hands over every secret in the response before validating the rest', () => {
    const seen: string[] = []
    expect(() =>
      parseTokenResponse(JSON.stringify({ access_token: TOKEN, refresh_token: 'refresh-1234', token_type: 'mac' }), s =>
        seen.push(s)
      )
    ).toThrow()
    expect(seen).toEqual([TOKEN, 'refresh-1234'])
  })
})

describe('under random input', () => {
  it('parseTokenResponse yields a Bearer token or a clear error, and hands every access_token to onSecret first', () => {
    fc.assert(
      fc.property(jsonish, text => {
        const secrets: string[] = []
        const ok = valueOrClearError(
          () => parseTokenResponse(text, s => secrets.push(s)),
          "the identity provider's response "
        )
        if (!ok) return false
        try {
          const token = parseTokenResponse(text, () => undefined)
          return token.tokenType === 'Bearer' && token.accessToken.trim() !== '' && secrets.includes(token.accessToken)
        } catch (err) {
          // Errors never carry the token.
          return secrets.every(s => s.length < 4 || !(err as Error).message.includes(s))
        }
      }),
      { numRuns: 2000 }
    )
  })
})

describe('parseTokenResponse, hostile fields', () => {
  captureStdout() // mask() writes ::add-mask:: lines
  it('redacts a token_type before cutting it, so no part of a secret shows', () => {
    mask('token-type-secret-0123456789-abcdefghijklmnop')
    const body = JSON.stringify({
      access_token: 'eyJ.a.b',
      token_type: 'token-type-secret-0123456789-abcdefghijklmnop'
    })
    expect(() => parseTokenResponse(body, () => undefined)).toThrow(/has token_type "\*\*\*"; only Bearer/)
  })

  it('refuses an expires_in past ten years, naming the field and its range', () => {
    const body = JSON.stringify({ access_token: 'eyJ.a.b', expires_in: 1e13 })
    expect(() => parseTokenResponse(body, () => undefined)).toThrow(
      "the identity provider's response has an expires_in of 10000000000000 seconds, more than ten years (315360000)"
    )
  })
})
