import { readFileSync } from 'node:fs'
import { jest } from '@jest/globals'
import fc from 'fast-check'
import { Http, HttpOptions } from '../src/http/client.js'
import { DEFAULTS } from '../src/inputs/read.js'
import { LineFields, resultLine } from '../src/routine/lines.js'
import { RecordHeader } from '../src/routine/record-format.js'
import { RoutineOptions } from '../src/routine/types.js'
import { parseCall } from '../src/service/call.js'

export interface Recorded {
  readonly http: Http
  readonly waits: number[]
  readonly infos: string[]
  readonly debugs: string[]
}

/** An Http whose sleeps return at once and are recorded, as are its log lines. */
export function recordingHttp(overrides: Partial<HttpOptions> = {}): Recorded {
  const waits: number[] = []
  const infos: string[] = []
  const debugs: string[] = []
  const http = new Http({
    timeoutMs: 2000,
    maxAttempts: 3,
    userAgent: 'test-agent',
    info: m => infos.push(m),
    debug: m => debugs.push(m),
    sleep: async ms => {
      waits.push(ms)
    },
    random: () => 0.5,
    ...overrides
  })
  return { http, waits, infos, debugs }
}

/** What the code under test writes to stdout (where @actions/core writes its commands), per test. */
export function captureStdout(): string[] {
  const written: string[] = []
  beforeEach(() => {
    written.length = 0
    jest.spyOn(process.stdout, 'write').mockImplementation(chunk => {
      written.push(String(chunk))
      return true
    })
  })
  afterEach(() => jest.restoreAllMocks())
  return written
}

/** The name=value pairs of a GITHUB_OUTPUT / GITHUB_ENV file as @actions/core writes them (name<<delimiter). */
export function readFileCommands(text: string): Record<string, string> {
  const values: Record<string, string> = {}
  const lines = text.split('\n')
  for (let i = 0; i < lines.length; i++) {
    const heredoc = /^([^=<]+)<<(.+)$/.exec(lines[i])
    if (!heredoc) continue
    const end = lines.indexOf(heredoc[2], i + 1)
    values[heredoc[1]] = lines.slice(i + 1, end).join('\n')
    i = end
  }
  return values
}

// Random input never crashes a parser: it yields a value or an Error with a message that says
// what failed. Anything else (a TypeError from deep inside, a non-Error throw) fails the property.
export function valueOrClearError<T>(parse: () => T, prefix: string): boolean {
  try {
    parse()
    return true
  } catch (err) {
    return err instanceof Error && err.message.startsWith(prefix) && !/undefined|\[object Object\]/.test(err.message)
  }
}

export const jsonish = fc.oneof(
  fc.string(),
  fc.json(),
  fc.jsonValue().map(v => JSON.stringify(v)),
  fc
    .record(
      {
        access_token: fc.oneof(fc.string(), fc.integer(), fc.constant(null)),
        token_type: fc.oneof(fc.constantFrom('Bearer', 'bearer', 'MAC', ''), fc.string(), fc.integer()),
        expires_in: fc.oneof(fc.integer(), fc.double(), fc.string()),
        scope: fc.oneof(fc.string(), fc.array(fc.string()))
      },
      { requiredKeys: [] }
    )
    .map(v => JSON.stringify(v))
)

/** Sets the step's inputs as the runner does (INPUT_<NAME>), the declared defaults under them. */
export function setInputs(inputs: Record<string, string>): void {
  for (const key of Object.keys(process.env)) if (key.startsWith('INPUT_')) delete process.env[key]
  for (const [name, value] of Object.entries({ ...DEFAULTS, ...inputs }))
    process.env[`INPUT_${name.toUpperCase()}`] = value
}

/** The fingerprint of the call the report tests' result lines belong to. */
export const FP = '0123456789abcdef'

export interface LineSpec {
  readonly attempt?: number
  readonly shard?: string
  /** The line's call fingerprint: FP unless another call's. */
  readonly call?: string
  readonly error?: string
  readonly body?: string
  /** What a person calls the target: failure lines carry it. */
  readonly name?: string
}

/** One result line as a routine writes it, for the target { id: key }. */
export const line = (
  key: string,
  outcome: LineFields['outcome'],
  status: number | null,
  { attempt = 1, shard, call = FP, error, body, name }: LineSpec = {}
): string =>
  resultLine(
    { fingerprint: call, runAttempt: attempt, shard },
    { key, outcome, status, index: 0, target: { id: key }, name, error, body }
  )

/** A results file's result lines as written: its header and its seals left out. */
export const resultTexts = (path: string): string[] =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter(l => l !== '' && !l.startsWith('{"m2m":'))

/** A results file's result lines, parsed. */
export const resultObjects = (path: string): Record<string, unknown>[] =>
  resultTexts(path).map(l => JSON.parse(l) as Record<string, unknown>)

/** A results file's header of run `run` that binds no shard, snapshot, plan or signer. */
export const plainHeader = (run: string): RecordHeader => ({
  run,
  attempt: 1,
  call: FP,
  shard: null,
  snapshot: null,
  listing: null,
  where: null,
  plan: null,
  canary: false,
  signer: null
})

/** A routine's options: a POST a target, results in `dir`, a token that never renews. */
export const routineOptions = (dir: string, overrides: Partial<RoutineOptions> = {}): RoutineOptions => ({
  spec: parseCall('POST /v1/t/{id}', ''),
  call: 'POST /v1/t/{id}',
  fingerprint: FP,
  runAttempt: 1,
  baseUrl: new URL('https://api.test/base'),
  bearer: {
    latest: { accessToken: 'tok-123456', tokenType: 'Bearer', source: 'input' },
    current: async () => 'tok-123456',
    recover: async () => undefined
  },
  concurrency: 2,
  accept: new Set(),
  maxFailures: { count: 100 },
  idempotent: false,
  runId: '42',
  resultsDir: dir,
  header: plainHeader('42'),
  info: () => undefined,
  ...overrides
})
