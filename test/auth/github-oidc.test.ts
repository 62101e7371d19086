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

describe('github-oidc: each rule', () => {
  const written = captureStdout()
  const SOURCE = { url: 'https://runner.test/idtoken?api-version=2.0', requestToken: 'req-tok-2' }
  const answering = (status: number, body: string, sent: HttpRequest[] = []): Transport => ({
    send: async r => {
      sent.push(r)
      return { status, headers: {}, body: Buffer.from(body), attempts: 1 }
    }
  })
  const idToken = (transport: Transport) =>
    githubOidc(SOURCE, 'api://aud')
      .proof('client-1', new URL('https://idp.test/token'), transport)
      .then(proof => proof.fields(0).client_assertion)
  const permission = 'add "permissions: id-token: write" to the job (or the workflow)'

  it.each([
    [{ ACTIONS_ID_TOKEN_REQUEST_URL: 'https://runner.test/idtoken' }],
    [{ ACTIONS_ID_TOKEN_REQUEST_TOKEN: 'req-tok-2' }],
    [{ ACTIONS_ID_TOKEN_REQUEST_URL: '', ACTIONS_ID_TOKEN_REQUEST_TOKEN: 'req-tok-2' }]
  ])('refuses an environment without both the URL and the request token (%j), masking nothing', env => {
    expect(() => idTokenSource(env)).toThrow(
      new Error(
        `Input client-auth is github-oidc, but the job cannot get an OIDC ID token from GitHub: ${permission}. ` +
          'It works only in a GitHub Actions job.'
      )
    )
    expect(written).toEqual([])
  })

  it('reads process.env by default', () => {
    const saved = { ...process.env }
    process.env.ACTIONS_ID_TOKEN_REQUEST_URL = SOURCE.url
    process.env.ACTIONS_ID_TOKEN_REQUEST_TOKEN = SOURCE.requestToken
    try {
      expect(idTokenSource()).toEqual(SOURCE)
    } finally {
      delete process.env.ACTIONS_ID_TOKEN_REQUEST_URL
      delete process.env.ACTIONS_ID_TOKEN_REQUEST_TOKEN
      Object.assign(process.env, saved)
    }
  })

  it('sends one GET asking for JSON, capped at 64 KiB, named in retry lines', async () => {
    const sent: HttpRequest[] = []
    await expect(idToken(answering(200, '{"value":"a.b.c"}', sent))).resolves.toBe('a.b.c')
    expect(sent).toEqual([
      {
        method: 'GET',
        url: new URL('https://runner.test/idtoken?api-version=2.0&audience=api%3A%2F%2Faud'),
        headers: { Accept: 'application/json', Authorization: 'Bearer req-tok-2' },
        maxBytes: 64 * 1024,
        label: 'ID token request'
      }
    ])
  })

  it('proves the client by the assertion alone: no header, and says which inputs prove it', async () => {
    const auth = githubOidc(SOURCE, 'api://aud')
    const proof = await auth.proof('client-1', new URL('https://idp.test/token'), answering(200, '{"value":"a.b.c"}'))
    expect(proof.headers).toEqual({})
    expect(auth.method).toBe('github-oidc')
    expect(auth.proofInputs).toBe(
      "the client-id and oidc-audience (api://aud) inputs, and the identity provider's federated credential (issuer, subject, audience)"
    )
  })

  it('needs a transport to fetch the ID token', async () => {
    await expect(githubOidc(SOURCE, 'api://aud').proof('client-1', new URL('https://idp.test/token'))).rejects.toThrow(
      'github-oidc needs a transport to fetch the ID token'
    )
  })

  it.each([
    [401, `The runner refused the request token: ${permission}.`],
    [403, `The runner refused the request token: ${permission}.`],
    [404, 'The runner failed to issue an ID token: re-run the job.'],
    [500, 'The runner failed to issue an ID token: re-run the job.']
  ])('advises on HTTP %i', async (status, advice) => {
    const failed = idToken(answering(status, ''))
    await expect(failed).rejects.toThrow("Failed to get the job's OIDC ID token from GitHub: runner.test answered HTTP")
    await expect(failed).rejects.toThrow(new RegExp(`\\. ${advice.replace(/[.()"]/g, '\\$&')}$`))
  })

  it('refuses a redirect, saying why the request token is not sent on', async () => {
    const { RequestError } = await import('../../src/http/errors.js')
    const redirected: Transport = {
      send: async () => {
        throw new RequestError({ kind: 'redirect', status: 302, location: 'https://elsewhere.test/' }, 1)
      }
    }
    await expect(idToken(redirected)).rejects.toThrow(
      "to https://elsewhere.test/; the runner's request token is never sent elsewhere."
    )
  })

  it.each(['{}', '{"value":7}', '{"value":"a.b"}', '{"value":"a.b.c.d"}', '[]', 'not json'])(
    'refuses an answer without a JWT in value (%s), masking nothing',
    async body => {
      await expect(idToken(answering(200, body))).rejects.toThrow(
        "Failed to get the job's OIDC ID token from GitHub: the runner's response has no ID token (a JWT in value: three base64url parts)"
      )
      expect(written).toEqual([])
    }
  )
})
