// The token as later steps receive it is inert: exported only under a name of one's own, and only
// when every character is one a Bearer token may hold (issue 31: an identity provider answering
// `--eval=$(shell echo pwned)` had it exported as MAKEFLAGS, where a later `make` ran it).
import {
  clientInputs,
  expectFailure,
  json,
  makeJwt,
  Run,
  runAction,
  startServer,
  TestServer,
  TOKEN
} from './harness.js'

let idp: TestServer
let api: TestServer
let issued: string

beforeAll(async () => {
  idp = await startServer((_req, res) =>
    json(res, 200, { access_token: issued, expires_in: 86400, token_type: 'Bearer' })
  )
  api = await startServer((_req, res) => json(res, 200, [{ id: 1 }]))
})
afterAll(async () => {
  await Promise.all([idp.close(), api.close()])
})
beforeEach(() => {
  idp.requests.length = 0
  api.requests.length = 0
  issued = TOKEN
})

const inputs = (extra: Record<string, string> = {}) => clientInputs(idp.url, api.url, extra)

/** Every line of the log but the ::add-mask:: lines the runner hides, and the summary. */
function shown(run: Run): string {
  const log = `${run.stdout}\n${run.stderr}`.split('\n').filter(line => !line.startsWith('::add-mask::'))
  return `${log.join('\n')}\n${run.summary}`
}

describe('export-variable', () => {
  it.each(['MAKEFLAGS', 'CC', 'CFLAGS', 'KUBECONFIG', 'AWS_CONFIG_FILE', 'RUSTC_WRAPPER', 'PATH', 'LD_PRELOAD'])(
    'refuses %s before any request: it does not end in _TOKEN',
    async name => {
      const run = await runAction(inputs({ 'export-variable': name }))
      try {
        expectFailure(
          run,
          new RegExp(
            `^::error::Input export-variable cannot be ${name}: only a name that ends in _TOKEN \\(or TOKEN itself\\) ` +
              'is exported: tools read such a name as a credential, not as code or settings\\. ' +
              'Choose a name of your own, such as SERVICE_TOKEN\\.$'
          )
        )
        expect([idp.requests, api.requests]).toEqual([[], []])
      } finally {
        run.cleanup()
      }
    }
  )

  it.each([
    ['GITHUB_TOKEN', 'GITHUB_'],
    ['ACTIONS_RUNTIME_TOKEN', 'ACTIONS_'],
    ['GH_TOKEN', 'GH_'],
    ['NODE_AUTH_TOKEN', 'NODE_'],
    ['NPM_TOKEN', 'NPM_'],
    ['VAULT_TOKEN', 'VAULT_'],
    ['CODECOV_TOKEN', 'CODECOV_']
  ])("refuses %s before any request: another program's credential", async (name, prefix) => {
    const run = await runAction(inputs({ 'export-variable': name }))
    try {
      expectFailure(
        run,
        new RegExp(
          `^::error::Input export-variable cannot be ${name}: names that start with ${prefix} are taken by [^.]+\\. ` +
            'Choose a name of your own, such as SERVICE_TOKEN\\.$'
        )
      )
      expect([idp.requests, api.requests]).toEqual([[], []])
    } finally {
      run.cleanup()
    }
  })

  it('exports a token input copied with its scheme and a trailing newline, as the token alone', async () => {
    const token = makeJwt({ sub: 'auth0|user-1', exp: Math.floor(Date.now() / 1000) + 3600 })
    const run = await runAction({ token: `Bearer ${token}\n`, 'base-url': api.url, 'export-variable': 'M2M_TOKEN' })
    try {
      expect(run.code).toBe(0)
      expect(run.exported).toEqual({ M2M_TOKEN: token })
      expect(api.requests[0].headers.authorization).toBe(`Bearer ${token}`)
    } finally {
      run.cleanup()
    }
  })
})

describe('a token that is not inert text', () => {
  it.each([
    ['a make function', '--eval=$(shell echo pwned)', 'an = that is not trailing padding at character 7 of 26'],
    ['a line break', 'opaque-token-1\nMAKEFLAGS=--eval', 'a line break at character 15 of 31'],
    ['a space', 'opaque token-2', 'a space at character 7 of 14'],
    ['a ;', 'opaque-token-3;id', 'a punctuation character other than - \\. _ ~ \\+ / at character 15 of 17']
  ])(
    'fails the step with one error before any output, export or request, when the identity provider issues %s',
    async (_what, token, flaw) => {
      issued = token
      const run = await runAction(inputs({ 'export-variable': 'SERVICE_TOKEN' }))
      try {
        expectFailure(
          run,
          new RegExp(
            `^::error::The identity provider's access_token has ${flaw}, and a Bearer token may hold only ` +
              'letters, digits, - \\. _ ~ \\+ / and = as trailing padding \\(RFC 6750\\): it was not used, output or ' +
              'exported\\. Check that auth-url \\(or token-url\\) is your identity provider\\.$'
          )
        )
        expect(api.requests).toHaveLength(0)
        expect(run.summary).toBe('')
        // Masked as it arrived, like any token, and nowhere else: not even in the error.
        for (const piece of token.split(/[\s;]/).filter(p => p.length >= 6)) expect(shown(run)).not.toContain(piece)
      } finally {
        run.cleanup()
      }
    }
  )

  it('fails the step before any request when the token input holds one', async () => {
    const run = await runAction({ token: 'user-token;id', 'base-url': api.url, 'export-variable': 'SERVICE_TOKEN' })
    try {
      expectFailure(
        run,
        /^::error::The token input has a punctuation character other than - \. _ ~ \+ \/ at character 11 of 13, .* Give the token exactly as it was issued/
      )
      expect(api.requests).toHaveLength(0)
      expect(shown(run)).not.toContain('user-token')
    } finally {
      run.cleanup()
    }
  })
})
