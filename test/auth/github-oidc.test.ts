import { githubOidc, idTokenSource } from '../../src/auth/github-oidc.js'
import { HttpRequest, HttpResponse, Transport } from '../../src/http/client.js'
import { captureStdout } from '../helpers.js'

describe('github-oidc', () => {
  const written = captureStdout()

  it('needs the runner’s ID token endpoint, naming the permission, and masks the request token', () => {
    expect(() => idTokenSource({})).toThrow('add "permissions: id-token: write" to the job')
    expect(
      idTokenSource({
        ACTIONS_ID_TOKEN_REQUEST_URL: 'https://r.test/t?x=1',
        ACTIONS_ID_TOKEN_REQUEST_TOKEN: 'req-tok-1'
      })
    ).toEqual({
      url: 'https://r.test/t?x=1',
      requestToken: 'req-tok-1'
    })
    expect(written).toContain('::add-mask::req-tok-1\n')
  })

  it('fetches the ID token for the audience and sends it as the client assertion; no key to seal with', async () => {
    const sent: HttpRequest[] = []
    const transport: Transport = {
      send: async r => {
        sent.push(r)
        return { status: 200, headers: {}, body: Buffer.from('{"value":"h.p.s"}'), attempts: 1 } as HttpResponse
      }
    }
    const auth = githubOidc({ url: 'https://r.test/t?x=1', requestToken: 'req-tok-1' }, 'api://aud')
    const proof = await auth.proof('client-1', new URL('https://idp.test/token'), transport)
    expect(sent[0].url.href).toBe('https://r.test/t?x=1&audience=api%3A%2F%2Faud')
    expect(sent[0].headers.Authorization).toBe('Bearer req-tok-1')
    expect(proof.fields(0)).toEqual({
      client_id: 'client-1',
      client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
      client_assertion: 'h.p.s'
    })
    expect(written).toContain('::add-mask::h.p.s\n')
    expect(auth.keyMaterial()).toBeUndefined()
    expect(auth.bound).toEqual({ audience: 'api://aud', method: 'github-oidc' })
  })

  it.each([
    ['a value with a line after it', 'h.p.s\nmore'],
    ['a value with a line break inside', 'h.p\n.s'],
    ['four parts', 'h.p.s.x'],
    ['an empty signature', 'h.p.'],
    ['padding', 'h.p=.s'],
    ['a space', 'h.p .s'],
    ['no value', undefined]
  ])('refuses an ID token that is not three base64url parts: %s', async (_what, value) => {
    const transport: Transport = {
      send: async () =>
        ({ status: 200, headers: {}, body: Buffer.from(JSON.stringify({ value })), attempts: 1 }) as HttpResponse
    }
    const auth = githubOidc({ url: 'https://r.test/t', requestToken: 'req-tok-1' }, 'api://aud')
    await expect(auth.proof('client-1', new URL('https://idp.test/token'), transport)).rejects.toThrow(
      "Failed to get the job's OIDC ID token from GitHub: the runner's response has no ID token (a JWT in value: three base64url parts)"
    )
  })
})
