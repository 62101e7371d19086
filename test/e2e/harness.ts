import { ChildProcess } from 'node:child_process'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { createServer, IncomingMessage, RequestListener, Server, ServerResponse } from 'node:http'
import { createServer as createTlsServer } from 'node:https'
import { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { outcomeWords } from '../../src/routine/outcome-words.js'
import { echoedForms } from '../../src/secrets.js'
// @ts-expect-error: plain JavaScript, shared with npm run demo
import { runAction as run } from '../../demo/runner.js'

export interface Run {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
  readonly log: string
  readonly outputs: Record<string, string>
  readonly exported: Record<string, string>
  readonly summary: string
  readonly runnerTemp: string
  readonly cleanup: () => void
}

export interface RunOptions {
  readonly env?: Record<string, string>
  /** The action.yml to run through: the root one, or a door's (list, shard, report). */
  readonly door?: 'root' | 'list' | 'shard' | 'report'
  readonly debug?: boolean
  /** The action's process, as soon as it starts: a test cancels the step through it. */
  readonly onChild?: (child: ChildProcess) => void
}

const runDist = run as (inputs: Record<string, string>, options?: RunOptions) => Promise<Run>

/**
 * Runs the committed dist/index.js as a runner does (see demo/runner.js), then applies the leak
 * check to the run: for the client secret and the token inputs, the token output, and every value
 * the action itself registered with ::add-mask::.
 */
export async function runAction(inputs: Record<string, string>, options?: RunOptions): Promise<Run> {
  const result = await runDist(inputs, options)
  const masked = result.stdout
    .split('\n')
    .filter(line => line.startsWith('::add-mask::'))
    .map(line => line.slice('::add-mask::'.length).replace(/%0D/g, '\r').replace(/%0A/g, '\n').replace(/%25/g, '%'))
  const secrets = [inputs['client-secret'], inputs.token, result.outputs.token, ...masked]
  try {
    expectNoLeaks(
      result,
      [...new Set(secrets)].filter((s): s is string => !!s && s.trim().length >= 4),
      inputs['export-variable']
    )
  } catch (err) {
    result.cleanup()
    throw err
  }
  return result
}

export interface Received {
  readonly method: string
  readonly url: string
  readonly headers: IncomingMessage['headers']
  readonly body: string
  /** The client's port: requests on one kept-alive connection share it. */
  readonly remotePort?: number
}

export interface TestServer {
  readonly url: string
  readonly requests: Received[]
  readonly server: Server
  close(): Promise<void>
}

export type Handler = (req: Received, res: ServerResponse, index: number) => void

/** An HTTP(S) server on 127.0.0.1 that records every request and answers with `handler`. */
export async function startServer(handler: Handler, tls?: { key: string; cert: string }): Promise<TestServer> {
  const requests: Received[] = []
  const listener: RequestListener = (req, res) => {
    const chunks: Buffer[] = []
    req.on('data', c => chunks.push(c))
    req.on('end', () => {
      const received = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        remotePort: req.socket.remotePort
      }
      requests.push(received)
      handler(received, res, requests.length - 1)
    })
  }
  const server = tls ? createTlsServer(tls, listener) : createServer(listener)
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `${tls ? 'https' : 'http'}://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    server,
    close: () =>
      new Promise(resolve => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}

export function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'Content-Type': 'application/json', ...headers })
  res.end(typeof body === 'string' ? body : JSON.stringify(body))
}

/** An unsigned JWT-shaped token with these claims: the action reads claims, it never verifies. */
export function makeJwt(claims: Record<string, unknown>): string {
  const part = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url')
  return `${part({ alg: 'RS256', typ: 'JWT' })}.${part(claims)}.${Buffer.from(`sig-${Math.random()}`).toString('base64url')}`
}

/** The access token the e2e identity providers issue: valid for a day, with a subject to show. */
export const TOKEN = makeJwt({ sub: 'client-e2e@clients', exp: Math.floor(Date.now() / 1000) + 86400 })

export const CLIENT = {
  id: 'client-e2e',
  secret: 'e2e-S3cret "quoted" \\back ü-✓',
  audience: 'https://tenant.idp.test/api/v2/'
}

/** The test client's inputs against an identity provider and a service, with overrides. */
export function clientInputs(
  authUrl: string,
  baseUrl: string,
  extra: Record<string, string> = {}
): Record<string, string> {
  return {
    'client-id': CLIENT.id,
    'client-secret': CLIENT.secret,
    'auth-url': authUrl,
    audience: CLIENT.audience,
    'base-url': baseUrl,
    ...extra
  }
}

/** Everything a user can read after the step: files in RUNNER_TEMP included. */
function tempFiles(run: Run): string[] {
  return existsSync(run.runnerTemp)
    ? readdirSync(run.runnerTemp).map(f => readFileSync(join(run.runnerTemp, f), 'utf8'))
    : []
}

/**
 * The leak check: each secret appears in the log only on its own ::add-mask:: line (in every form
 * a server could echo it in), never in the summary, a file in RUNNER_TEMP, an output other
 * than `token`, or an exported variable other than the one asked for.
 */
export function expectNoLeaks(run: Run, secrets: string[], exportedAs?: string): void {
  for (const secret of secrets) {
    // Every form a server could echo it in, as src/secrets.ts lists them (base64, base64url,
    // JSON- and \u-escaped, percent- and form-encoded…), only those of 4 characters or more.
    const forms = echoedForms(secret).filter(form => form.length >= 4)
    const lines = `${run.stdout}\n${run.stderr}`.split('\n')
    for (const line of lines) {
      if (line.startsWith('::add-mask::')) continue
      for (const form of forms) expect({ line, leaks: line.includes(form) }).toEqual({ line, leaks: false })
    }
    for (const form of forms) {
      expect(run.summary.includes(form)).toBe(false)
      for (const text of tempFiles(run)) expect(text.includes(form)).toBe(false)
      for (const [name, value] of Object.entries(run.outputs)) {
        if (name !== 'token') expect({ name, leaks: value.includes(form) }).toEqual({ name, leaks: false })
      }
      for (const [name, value] of Object.entries(run.exported)) {
        if (name !== exportedAs) expect({ name, leaks: value.includes(form) }).toEqual({ name, leaks: false })
      }
    }
  }
}

/** A failed step: exit 1, one ::error:: line with no stack trace, no outputs, no files left. */
export function expectFailure(run: Run, message: string | RegExp): void {
  expect(run.code).toBe(1)
  const errors = run.stdout.split('\n').filter(l => l.startsWith('::error::'))
  expect(errors).toHaveLength(1)
  expect(errors[0]).toMatch(message)
  expect(`${run.stdout}${run.stderr}`).not.toMatch(/^\s+at .+:\d+:\d+\)?$/m)
  expect(run.outputs).toEqual({})
  expect(run.exported).toEqual({})
  expect(tempFiles(run)).toEqual([])
}

/**
 * A routine that failed after its first call: exit 1, one ::error:: line with no stack trace, and
 * its record kept: every calls-* output, the results file, and a summary that says so.
 */
export function expectRoutineFailure(run: Run, message: string | RegExp): void {
  expect(run.code).toBe(1)
  const errors = run.stdout.split('\n').filter(l => l.startsWith('::error::'))
  expect(errors).toHaveLength(1)
  expect(errors[0]).toMatch(message)
  expect(`${run.stdout}${run.stderr}`).not.toMatch(/^\s+at .+:\d+:\d+\)?$/m)
  for (const name of ['calls-succeeded', 'calls-failed', 'calls-unknown', 'calls-skipped', 'calls-not-made']) {
    expect(run.outputs[name]).toMatch(/^\d+$/)
  }
  expect(existsSync(run.outputs['results-file'])).toBe(true)
  expect(run.summary).not.toBe('')
}

/**
 * The step's last progress line, its error (when it failed) and its calls-* outputs say the same
 * counts: made from one tally. Returns the last progress line and the error line.
 */
export function expectOneTally(run: Run): { readonly progress: string; readonly error?: string } {
  const lines = run.stdout.split('\n')
  const progress = lines.filter(l => /^(Calls|Planned): /.test(l)).at(-1) ?? ''
  const counts = new Map(
    ['succeeded', 'failed', 'unknown', 'not-made', 'skipped', 'planned'].map(o => [
      o,
      Number(run.outputs[`calls-${o}`])
    ])
  )
  const words = outcomeWords(counts)
  expect(progress).toContain(`: ${words}`)
  const error = lines.find(l => l.startsWith('::error::'))
  // The error adds the failed calls by status: "3 failed (HTTP 500: 3)".
  if (error !== undefined) expect(error.replace(/ \((?:HTTP \d+|no response): [^)]*\)/g, '')).toContain(`: ${words}`)
  return { progress, error }
}

/** The result lines of a results file, parsed: its header and seals left out. */
export function resultLines(file: string): Record<string, unknown>[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(l => l !== '' && !l.startsWith('{"m2m":'))
    .map(l => JSON.parse(l) as Record<string, unknown>)
}
