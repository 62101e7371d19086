// Secrets a server echoes in hex, upper or lower case, are withheld from the log, the summary and
// the results file as their other forms are (issue 31: a token echoed in hex reached all three).
import { readFileSync } from 'node:fs'
import { ServerResponse } from 'node:http'
import {
  CLIENT,
  clientInputs,
  expectFailure,
  expectNoLeaks,
  expectRoutineFailure,
  json,
  Received,
  Run,
  runAction,
  startServer,
  TestServer,
  TOKEN
} from './harness.js'

let idp: TestServer
let api: TestServer
let idpReply: (req: Received, res: ServerResponse) => void
let apiReply: (req: Received, res: ServerResponse) => void

beforeAll(async () => {
  idp = await startServer((req, res) => idpReply(req, res))
  api = await startServer((req, res) => apiReply(req, res))
})
afterAll(async () => {
  await Promise.all([idp.close(), api.close()])
})
beforeEach(() => {
  idp.requests.length = 0
  api.requests.length = 0
  idpReply = (_req, res) => json(res, 200, { access_token: TOKEN, expires_in: 86400, token_type: 'Bearer' })
})

const inputs = (extra: Record<string, string> = {}) => clientInputs(idp.url, api.url, extra)
const hex = (secret: string) => Buffer.from(secret, 'utf8').toString('hex')
const HEX = (secret: string) => hex(secret).toUpperCase()
/** The hex a server echoed, whole, in either case: none of it may be readable anywhere. */
const echoes = (...secrets: string[]) => secrets.flatMap(s => [hex(s), HEX(s)])

/** Everything a user reads after the step, the results file included: all but the ::add-mask:: lines. */
function readable(run: Run): string {
  const file = run.outputs['results-file']
  const log = `${run.stdout}\n${run.stderr}`.split('\n').filter(line => !line.startsWith('::add-mask::'))
  return [...log, run.summary, file ? readFileSync(file, 'utf8') : ''].join('\n')
}

describe('hex echoes', () => {
  it('withholds the client secret an identity provider echoes in lower- and upper-case hex', async () => {
    idpReply = (req, res) => {
      const { client_secret: secret } = JSON.parse(req.body) as { client_secret: string }
      json(res, 401, { error: 'invalid_client', error_description: `got ${hex(secret)} or ${HEX(secret)}` })
    }
    const run = await runAction(inputs())
    try {
      expectFailure(run, /HTTP 401 Unauthorized \(invalid_client: got \*\*\* or \*\*\*\)/)
      for (const echoed of echoes(CLIENT.secret)) expect(readable(run)).not.toContain(echoed)
      expectNoLeaks(run, [CLIENT.secret])
    } finally {
      run.cleanup()
    }
  })

  it('withholds the token the listing echoes in hex', async () => {
    apiReply = (req, res) =>
      json(res, 403, { message: `token ${HEX(String(req.headers.authorization).slice(7))} lacks groups` })
    const run = await runAction(inputs())
    try {
      expectFailure(run, /HTTP 403 Forbidden \(token [0-9A-F]*\*\*\* lacks groups\)/)
      for (const echoed of echoes(TOKEN)) expect(readable(run)).not.toContain(echoed)
      expectNoLeaks(run, [CLIENT.secret, TOKEN])
    } finally {
      run.cleanup()
    }
  })

  it('withholds the client secret and the token a call echoes in hex, in the log, summary and results', async () => {
    apiReply = (req, res) => {
      if (req.url === '/v1/targets') return json(res, 200, [{ id: 'a' }, { id: 'b' }])
      const token = String(req.headers.authorization).slice(7)
      json(res, 400, {
        error: 'bad request',
        seen: { secret: hex(CLIENT.secret), SECRET: HEX(CLIENT.secret), token: hex(token), TOKEN: HEX(token) }
      })
    }
    const run = await runAction(inputs({ call: 'POST /v1/targets/{id}/scans' }))
    try {
      expectRoutineFailure(run, /for 2 targets: 2 failed \(HTTP 400: 2\)/)
      const text = readable(run)
      for (const echoed of echoes(CLIENT.secret, TOKEN)) expect(text).not.toContain(echoed)
      const lines = readFileSync(run.outputs['results-file'], 'utf8')
        .trim()
        .split('\n')
        .filter(l => !l.startsWith('{"m2m":'))
      expect(lines).toHaveLength(2)
      for (const line of lines) expect(line).toMatch(/"secret":"\*\*\*","SECRET":"\*\*\*","token":"[0-9a-f]*\*\*\*"/)
      // The log gives the body's message field; the body itself, redacted, is in the results file.
      expect(run.stdout).toMatch(/Call #\d for target "a" failed: HTTP 400 Bad Request \(bad request\)/)
      expect(run.summary).toContain('| a | HTTP 400 | bad request |')
      expectNoLeaks(run, [CLIENT.secret, TOKEN])
    } finally {
      run.cleanup()
    }
  })
})
