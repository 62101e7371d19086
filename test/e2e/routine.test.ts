import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { ServerResponse } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import {
  clientInputs,
  expectFailure,
  expectOneTally,
  expectRoutineFailure,
  json,
  Received,
  resultLines,
  runAction,
  startServer,
  TestServer,
  TOKEN
} from './harness.js'

// The routine: one operation for every target, run by dist/index.js against a loopback service.
let idp: TestServer
let api: TestServer
let targets: unknown[]
let answer: (req: Received, res: ServerResponse, n: number) => void
let inFlight = 0
let maxInFlight = 0

beforeAll(async () => {
  idp = await startServer((_req, res) =>
    json(res, 200, { access_token: TOKEN, expires_in: 86400, token_type: 'Bearer' })
  )
  api = await startServer((req, res) => {
    if (req.url === '/v1/targets') return json(res, 200, targets)
    // 1-based: this request is already recorded
    const n = api.requests.filter(r => r.url !== '/v1/targets').length
    inFlight++
    maxInFlight = Math.max(maxInFlight, inFlight)
    res.on('finish', () => inFlight--)
    answer(req, res, n)
  })
})
afterAll(async () => {
  await Promise.all([idp.close(), api.close()])
})
beforeEach(() => {
  idp.requests.length = 0
  api.requests.length = 0
  inFlight = 0
  maxInFlight = 0
  answer = (_req, res) => json(res, 200, { ok: true })
})

const inputs = (extra: Record<string, string>) => clientInputs(idp.url, api.url, extra)
const calls = () => api.requests.filter(r => r.url !== '/v1/targets')
const results = resultLines

describe('call: the routine over every target', () => {
  it('calls once per target, each value one encoded segment, and records every result', async () => {
    targets = [
      { id: 'a/b' },
      { id: '..' },
      { id: '?x' },
      { id: '#frag' },
      { id: '%2F' },
      { id: '//evil.example' },
      { id: 9007199254740993n.toString() },
      { id: 'plain', nested: { key: 'k 1' } }
    ].map(t => ({ nested: null, ...t }))
    const run = await runAction(
      inputs({ call: 'POST /v1/targets/x{id}/scans', 'call-body': '{"target":"{id}","raw":"{nested}","lit":"{{ok}}"}' })
    )
    expect(run.stdout.split('\n').filter(l => l.startsWith('::error'))).toEqual([])
    try {
      expect(run.code).toBe(0)
      const paths = calls().map(r => r.url)
      expect(paths).toEqual(
        expect.arrayContaining([
          '/v1/targets/xa%2Fb/scans',
          '/v1/targets/x%2E%2E/scans',
          '/v1/targets/x%3Fx/scans',
          '/v1/targets/x%23frag/scans',
          '/v1/targets/x%252F/scans',
          '/v1/targets/x%2F%2Fevil%2Eexample/scans'
        ])
      )
      expect(calls()).toHaveLength(8)
      const plain = calls().find(r => r.url === '/v1/targets/xplain/scans')!
      expect(JSON.parse(plain.body)).toEqual({ target: 'plain', raw: { key: 'k 1' }, lit: '{ok}' })
      expect(plain.headers['content-type']).toBe('application/json')
      expect(plain.headers['idempotency-key']).toMatch(/^[0-9a-f]{32}$/)
      expect(run.outputs['calls-succeeded']).toBe('8')
      expect(run.outputs['calls-failed']).toBe('0')
      expect(statSync(run.outputs['results-file']).mode & 0o777).toBe(0o600)
      const lines = results(run.outputs['results-file'])
      expect(lines).toHaveLength(8)
      expect(lines[0]).toMatchObject({ status: 200, attempts: 1, body: { ok: true } })
      expect(run.summary).toContain('## POST /v1/targets/x{id}/scans: all 8 targets done')
      expect(run.summary).toContain('**8 succeeded**; 8 calls in')
    } finally {
      run.cleanup()
    }
  })

  it.each([
    [
      [{ id: 'a' }, { ID: 'b' }, { id: { x: 1 } }],
      'POST /v1/t/{id}',
      /2 of 3 targets cannot fill its placeholders, so no call was made: target #2 lacks \{id\}; target #3 holds an object or array in \{id\}/
    ],
    [[{ id: '.' }], 'GET /v1/t/{id}', /target "\." gives a path segment of \. or \.\./],
    [
      [{ id: 'a', name: 'n' }],
      'POST /v1/t/{ID}',
      /target "a" lacks \{ID\}\. Check the placeholders of call "POST \/v1\/t\/\{ID\}" against the targets' fields \(they are case-sensitive\): target "a" has id, name\.$/
    ]
  ])('checks every target before the first call: %j with %s', async (list, call, message) => {
    targets = list
    const run = await runAction(inputs({ call }))
    try {
      expectFailure(run, message)
      expect(calls()).toHaveLength(0)
    } finally {
      run.cleanup()
    }
  })

  it.each([
    [
      'GET https://evil.example/x',
      /Input call has a full URL, "https:\/\/evil\.example\/x": base-url gives the scheme and host, and call the path below it\. Write call: "GET \/x" with base-url: "https:\/\/evil\.example"$/
    ],
    [
      'POST https://bot:hunter2-e2e@api.example/v1/x',
      /full URL, "https:\/\/\*\*\*@api\.example\/v1\/x": .*"POST \/v1\/x" with base-url: "https:\/\/api\.example" \(credentials go in their own inputs, never in a URL\)$/
    ],
    ['GET //evil.example/x', /Input call has a full URL, "\/\/evil\.example\/x"/],
    [
      'POST v1/x',
      /Input call has the path "v1\/x", which does not start with \/: the path is below base-url, so write "POST \/v1\/x"$/
    ],
    ['GET /v1/../admin', /must not have a \. or \.\. segment/],
    ['GET /v1\\x', /Input call must have a path/],
    ['FETCH /v1/x', /Input call must be METHOD \/path/],
    ['GET /v1/{id', /has "\{" that is not a placeholder/]
  ])('refuses %s before any request', async (call, message) => {
    targets = [{ id: 'a' }]
    const run = await runAction(inputs({ call }))
    try {
      expectFailure(run, message)
      expect(idp.requests).toHaveLength(0)
      expect(`${run.stdout}${run.stderr}`).not.toContain('hunter2')
    } finally {
      run.cleanup()
    }
  })

  it('refuses a call-body that is not JSON before any request, saying where and how to write it', async () => {
    targets = [{ id: 'a' }]
    const run = await runAction(inputs({ call: 'POST /v1/t/{id}', 'call-body': '{\n  "id": {id},\n  "n": 1\n}' }))
    try {
      expectFailure(
        run,
        /^::error::Input call-body is not valid JSON: Expected property name or '}' at line 2, column 10 \(" {2}\\"id\\": \{‸id\}, ?"\): a placeholder goes inside a JSON string: write "\{id\}"/
      )
      expect(idp.requests).toHaveLength(0)
    } finally {
      run.cleanup()
    }
  })

  it('never has more calls in flight than call-concurrency, and reaches it', async () => {
    targets = Array.from({ length: 24 }, (_, i) => ({ id: `t${i}` }))
    const held: ServerResponse[] = []
    // Each answer waits until 6 are held: only a client that keeps 6 in flight can finish.
    answer = (_req, res) => {
      held.push(res)
      if (held.length % 6 === 0) for (const r of held.splice(0)) json(r, 204, '')
    }
    const run = await runAction(inputs({ call: 'PUT /v1/t/{id}', 'call-concurrency': '6' }))
    try {
      expect(run.code).toBe(0)
      expect(maxInFlight).toBe(6)
      expect(calls()).toHaveLength(24)
    } finally {
      run.cleanup()
    }
  })

  it('pauses every call when one meets a 429, and repeats that POST with the same Idempotency-Key', async () => {
    targets = Array.from({ length: 4 }, (_, i) => ({ id: `t${i}` }))
    let limited = false
    const starts: number[] = []
    answer = (req, res) => {
      starts.push(Date.now())
      if (!limited && req.url === '/v1/t/t0') {
        limited = true
        return json(res, 429, { error: 'slow down' }, { 'Retry-After': '1' })
      }
      json(res, 201, { ok: true })
    }
    const run = await runAction(inputs({ call: 'POST /v1/t/{id}', 'call-concurrency': '1' }))
    try {
      expect(run.code).toBe(0)
      const t0 = calls().filter(r => r.url === '/v1/t/t0')
      expect(t0).toHaveLength(2)
      expect(t0[0].headers['idempotency-key']).toBe(t0[1].headers['idempotency-key'])
      // No call started during the pause the 429 asked for.
      expect(starts[1] - starts[0]).toBeGreaterThanOrEqual(950)
      expect(results(run.outputs['results-file'])[0]).toMatchObject({ status: 201, attempts: 2 })
    } finally {
      run.cleanup()
    }
  })

  it('never repeats a POST after a 500; repeats a PUT; call-accept turns a status into success', async () => {
    targets = [{ id: 'a' }, { id: 'b' }]
    answer = (req, res) =>
      req.url === '/v1/t/a' ? json(res, 500, { error: 'boom' }) : json(res, 404, { error: 'gone' })
    const post = await runAction(inputs({ call: 'POST /v1/t/{id}', 'call-accept': '404', 'max-attempts': '3' }))
    try {
      expectRoutineFailure(
        post,
        /^::error::Failed to call POST \/v1\/t\/\{id\} for 2 targets: 1 succeeded, 1 failed \(HTTP 500: 1\); first: a \(HTTP 500\)/
      )
      expect(post.outputs).toMatchObject({ 'calls-succeeded': '1', 'calls-failed': '1' })
      expect(calls().filter(r => r.url === '/v1/t/a')).toHaveLength(1)
    } finally {
      post.cleanup()
    }
    api.requests.length = 0
    answer = (_req, res, n) => (n === 1 ? json(res, 500, {}) : json(res, 200, {}))
    targets = [{ id: 'a' }]
    const put = await runAction(inputs({ call: 'PUT /v1/t/{id}', 'max-attempts': '2' }))
    try {
      expect(put.code).toBe(0)
      expect(calls()).toHaveLength(2)
    } finally {
      put.cleanup()
    }
  }, 60_000)

  it('stops starting calls at a 401, and at call-max-failures', async () => {
    targets = Array.from({ length: 50 }, (_, i) => ({ id: `t${i}` }))
    answer = (_req, res) => json(res, 401, { error: 'invalid_token' })
    const refused = await runAction(inputs({ call: 'DELETE /v1/t/{id}', 'call-concurrency': '1' }))
    try {
      expectRoutineFailure(
        refused,
        /the service refused the token \(HTTP 401\) at call #1 \(it expires \d{4}-.*\): no new call was started/
      )
      expect(calls()).toHaveLength(1)
      expect(refused.outputs).toMatchObject({ 'calls-failed': '1', 'calls-not-made': '49' })
      // The progress says how many calls will not be made, with the error's counts.
      expect(expectOneTally(refused).progress).toMatch(
        /^Calls: 50 of 50 targets \(100 %\): 1 failed, 49 not made; .*stopped after 1 call$/
      )
      expect(resultLines(refused.outputs['results-file'])).toHaveLength(50)
    } finally {
      refused.cleanup()
    }
    api.requests.length = 0
    answer = (_req, res) => json(res, 400, { error: 'bad body' })
    const capped = await runAction(
      inputs({ call: 'PATCH /v1/t/{id}', 'call-concurrency': '1', 'call-max-failures': '3' })
    )
    try {
      expectRoutineFailure(
        capped,
        /for 50 targets: 3 failed \(HTTP 400: 3\), 47 not made;.*call-max-failures \(3\): no new call was started/
      )
      expect(calls()).toHaveLength(3)
      expect(capped.outputs).toMatchObject({ 'calls-failed': '3', 'calls-not-made': '47' })
      expect(capped.summary).toContain('Stopped early: 3 calls failed, call-max-failures \\(3\\)')
    } finally {
      capped.cleanup()
    }
  })

  it('keeps hostile response bodies inert and the token out of the results file', async () => {
    targets = [{ id: 'x' }]
    answer = (_req, res) =>
      json(res, 200, {
        echo: `Bearer ${TOKEN}`,
        name: '::error title=pwned::fake\n::stop-commands::x',
        md: '<img src=x> [a](http://e)'
      })
    const run = await runAction(inputs({ call: 'GET /v1/t/{id}' }))
    try {
      expect(run.code).toBe(0)
      const text = readFileSync(run.outputs['results-file'], 'utf8')
      expect(text).not.toContain(TOKEN)
      expect(text).toContain('***')
      expect(run.stdout).not.toMatch(/^::error title=pwned/m)
      expect(run.stdout).not.toMatch(/^::stop-commands::/m)
    } finally {
      run.cleanup()
    }
  })

  it('makes exactly one call without targets, and gives its response', async () => {
    answer = (_req, res) => json(res, 200, { status: 'ready' })
    const run = await runAction(
      inputs({ 'list-targets': 'false', call: 'POST /v1/refresh', 'call-body': '{"all":true}' })
    )
    try {
      expect(run.code).toBe(0)
      expect(calls()).toHaveLength(1)
      expect(calls()[0].body).toBe('{"all":true}')
      expect(run.outputs.response).toBe('{"status":"ready"}')
    } finally {
      run.cleanup()
    }
    const refused = await runAction(inputs({ 'list-targets': 'false', call: 'POST /v1/t/{id}' }))
    try {
      expectFailure(refused, /Input call has \{id\}, but with list-targets: false there is no target to fill it/)
    } finally {
      refused.cleanup()
    }
  })
})

describe('the end of the step', () => {
  // A module preloaded into the step notes every process.exit() it makes. A step that ran a
  // routine ends when its loop is empty (src/ending.ts), so makes none: were anything left holding
  // its loop, it would make one 5 s on. A step that ran none ends with one as soon as it is done.
  let dir: string
  let exits: string
  let env: Record<string, string>
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'm2m-exit-probe-'))
    exits = join(dir, 'exits')
    const probe = join(dir, 'probe.mjs')
    writeFileSync(
      probe,
      `import { appendFileSync } from 'node:fs'\n` +
        `const exit = process.exit\n` +
        `process.exit = function (code) { appendFileSync(${JSON.stringify(exits)}, 'exit\\n'); return exit.call(process, code) }\n`
    )
    env = { NODE_OPTIONS: `--import=${pathToFileURL(probe).href}` }
  })
  afterEach(() => rmSync(dir, { recursive: true, force: true }))
  /** A step run to its end: its exit code, outputs, and the process.exit() calls it made. */
  const ended = async (given: Record<string, string>) => {
    rmSync(exits, { force: true })
    const run = await runAction(inputs(given), { env })
    try {
      const calls = existsSync(exits) ? readFileSync(exits, 'utf8').split('\n').filter(Boolean).length : 0
      return { code: run.code, outputs: run.outputs, exits: calls }
    } finally {
      run.cleanup()
    }
  }

  it('ends a step that ran a routine when its loop is empty, with its exit code, and one that ran none at once', async () => {
    targets = [{ id: 'a' }, { id: 'b' }, { id: 'c' }]
    expect(await ended({ call: 'POST /v1/t/{id}' })).toMatchObject({
      code: 0,
      outputs: { 'calls-succeeded': '3' },
      exits: 0
    })
    answer = (_req, res) => json(res, 500, { e: 1 })
    expect(await ended({ call: 'POST /v1/t/{id}', 'call-max-failures': '1' })).toMatchObject({
      code: 1,
      outputs: { 'calls-failed': expect.stringMatching(/^[1-9]\d*$/) },
      exits: 0
    })
    expect(await ended({})).toMatchObject({ code: 0, outputs: { 'target-count': '3' }, exits: 1 })
  })
})
