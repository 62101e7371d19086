import nock from 'nock'
import { exchangeToken, parseTokenResponse } from '../../src/idp.js'
import { Credentials } from '../../src/inputs.js'
import { recordingHttp } from '../helpers.js'

const IDP = 'https://tenant.idp.test'
const credentials: Credentials = {
  clientId: 'client "one" \\ ü',
  clientSecret: 's3cr"et\\ with spaces ✓ ',
  audience: 'https://tenant.idp.test/api/v2/',
  tokenUrl: new URL(`${IDP}/oauth/token`),
  format: 'json'
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
      client_secret: credentials.clientSecret,
      audience: credentials.audience,
      grant_type: 'client_credentials'
    })
    expect(token).toEqual({ accessToken: TOKEN, tokenType: 'Bearer', expiresIn: 86400, scope: 'read:client_grants' })
    expect(secrets).toEqual([TOKEN])
  })

  it('sends the same four fields form-encoded in form mode', async () => {
    let received: unknown
    nock(IDP)
      .matchHeader('content-type', 'application/x-www-form-urlencoded')
      .post('/oauth/token', body => {
        received = body
        return true
      })
      .reply(200, { access_token: TOKEN, token_type: 'bearer' })
    await exchangeToken(recordingHttp().http, { ...credentials, format: 'form' }, () => undefined)
    expect({ ...(received as object) }).toStrictEqual({
      client_id: credentials.clientId,
      client_secret: credentials.clientSecret,
      audience: credentials.audience,
      grant_type: 'client_credentials'
    })
  })

  it.each([
    [
      401,
      { error: 'access_denied', error_description: 'Unauthorized' },
      /answered HTTP 401 Unauthorized \(access_denied: Unauthorized\)\. Check the client-id and client-secret inputs/
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
    [500, 'oops', /after 3 attempts \(oops\)\. The identity provider failed: re-run later\./]
  ])('turns HTTP %i into an error that says what to do', async (status, body, message) => {
    nock(IDP).post('/oauth/token').times(3).reply(status, body)
    await expect(exchangeToken(recordingHttp().http, credentials, () => undefined)).rejects.toThrow(message)
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
    expect(() => parse(body)).toThrow(
      `Failed to exchange client credentials for a token: the identity provider's response ${message}`
    )
  })

  it('never quotes the body, which may hold the token', () => {
    let message = ''
    try {
      parse(`{"access_token": "${TOKEN}", "token_type": 7}`)
    } catch (err) {
      message = (err as Error).message
    }
    expect(message).toContain('token_type 7')
    expect(message).not.toContain(TOKEN)
    try {
      parse(`{"access_token": "${TOKEN}`)
    } catch (err) {
      message = (err as Error).message
    }
    expect(message).not.toContain(TOKEN.slice(0, 10))
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
