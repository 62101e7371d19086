import { ChildProcess } from 'node:child_process'
import { appendFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { ServerResponse } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
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

// The routine's record: kept through failure, stops and cancellation; a re-run does what is left.
let idp: TestServer
let api: TestServer
let targets: unknown[]
let listing: (res: ServerResponse) => void
let answer: (req: Received, res: ServerResponse, n: number) => void
const hanging: ServerResponse[] = []

beforeAll(async () => {
  idp = await startServer((_req, res) =>
    json(res, 200, { access_token: TOKEN, expires_in: 86400, token_type: 'Bearer' })
  )
  api = await startServer((req, res) => {
    if (req.url === '/v1/targets') return listing(res)
    answer(req, res, calls().length)
  })
})
afterAll(async () => {
  for (const res of hanging) res.destroy()
  await Promise.all([idp.close(), api.close()])
})
beforeEach(() => {
  idp.requests.length = 0
  api.requests.length = 0
  listing = res => json(res, 200, targets)
  answer = (_req, res) => json(res, 200, { ok: true })
})
afterEach(() => {
  for (const res of hanging.splice(0)) res.destroy()
})

const RUN = { GITHUB_RUN_ID: '4242', GITHUB_RUN_ATTEMPT: '1' }
const inputs = (extra: Record<string, string>) => clientInputs(idp.url, api.url, extra)
const calls = () => api.requests.filter(r => r.url !== '/v1/targets')
const ids = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `t${String(i).padStart(2, '0')}` }))
const idOf = (r: Received) => decodeURIComponent(r.url.split('/')[3] ?? '')
const hang = (res: ServerResponse) => void hanging.push(res)
/** Resolves once `count` calls have reached the service. */
const untilCalls = (count: number) =>
  new Promise<void>(resolve => {
    const check = () => (calls().length >= count ? resolve() : setTimeout(check, 5))
    check()
  })

describe('a routine that fails keeps its record', () => {
  it('sets every output, writes a line per target and the failures table, then fails', async () => {
    targets = ids(50)
    const failing = new Set(['t03', 't07', 't11', 't19', 't23', 't31', 't42'])
    answer = (req, res) =>
      failing.has(idOf(req)) ? json(res, 500, { error: `scan of ${idOf(req)} broke` }) : json(res, 200, { ok: 1 })
    const run = await runAction(inputs({ call: 'POST /v1/t/{id}/scan', 'call-concurrency': '8' }), { env: RUN })
    try {
      expectRoutineFailure(
        run,
        /^::error::Failed to call POST \/v1\/t\/\{id\}\/scan for 50 targets: 43 succeeded, 7 failed \(HTTP 500: 7\); first: /
      )
      expect(run.outputs).toMatchObject({
        'calls-succeeded': '43',
        'calls-failed': '7',
        'calls-unknown': '0',
        'calls-skipped': '0',
        'calls-not-made': '0',
        'target-count': '50'
      })
      const lines = resultLines(run.outputs['results-file'])
      expect(lines).toHaveLength(50)
      expect(new Set(lines.map(l => l.key))).toEqual(new Set(targets.map(t => (t as { id: string }).id)))
      expect(
        lines
          .filter(l => l.outcome === 'failed')
          .map(l => l.key)
          .sort()
      ).toEqual([...failing].sort())
      expect(new Set(lines.map(l => l.call)).size).toBe(1)
      expect(lines[0]).toMatchObject({ runAttempt: 1, shard: null })
      expect(run.summary).toMatch(/^## POST \/v1\/t\/\{id\}\/scan: 7 of 50 targets not done/)
      expect(run.summary).toContain('| target | status | what the service said |')
      // The service's message as a person reads it, the target by its key as in the report.
      expect(run.summary).toContain('| t03 | HTTP 500 | scan of t03 broke |')
      expectOneTally(run)
      // The targets follow the outcome, folded, their columns named as the target's.
      expect(run.summary.indexOf('<details>')).toBeGreaterThan(run.summary.indexOf('what the service said'))
    } finally {
      run.cleanup()
    }
  })

  it('still leaves nothing when it fails before the first call', async () => {
    targets = [{ id: 'a' }, { name: 'no id' }]
    const run = await runAction(inputs({ call: 'DELETE /v1/t/{id}' }), { env: RUN })
    try {
      expectFailure(run, /^::error::Input call: 1 of 2 targets cannot fill its placeholders/)
      expect(calls()).toHaveLength(0)
    } finally {
      run.cleanup()
    }
  })
})

describe('cancellation drains', () => {
  /** A routine of 60 targets, 8 at a time, whose service answers 20 calls and then holds the rest. */
  const held = async () => {
    targets = ids(60)
    answer = (_req, res, n) => (n <= 20 ? json(res, 200, { ok: n }) : hang(res))
    let child: ChildProcess | undefined
    const running = runAction(inputs({ call: 'POST /v1/t/{id}/scan', 'call-concurrency': '8' }), {
      env: RUN,
      onChild: c => (child = c)
    })
    await untilCalls(28)
    return { running, child: child! }
  }

  const cancelled = async (signal: NodeJS.Signals) => {
    const { running, child } = await held()
    const seenAtSignal = calls().length
    child.kill(signal)
    return { run: await running, seenAtSignal }
  }

  // How long the drain takes is measured by `npm run bench` (bench/parts/cancel.js) and held to the 5 s
  // grace with a fake clock in test/routine/routine.test.ts: a wall-clock bound here would fail on
  // a busy machine. These tests hold what the drain does.
  it.each(['SIGINT', 'SIGTERM'] as const)(
    'on %s starts no call, records every call sent, and writes the record',
    async signal => {
      const { run, seenAtSignal } = await cancelled(signal)
      try {
        expect(seenAtSignal).toBe(28)
        expect(calls()).toHaveLength(28) // nothing started after the signal
        expectRoutineFailure(
          run,
          /^::error::The step was cancelled after 28 calls to POST \/v1\/t\/\{id\}\/scan, of 60 targets: 20 succeeded, 8 unknown, 32 not made/
        )
        const text = readFileSync(run.outputs['results-file'], 'utf8')
        expect(text.endsWith('\n')).toBe(true)
        const lines = resultLines(run.outputs['results-file'])
        expect(lines).toHaveLength(60)
        const by = (o: string) => lines.filter(l => l.outcome === o).map(l => l.key)
        expect(by('succeeded')).toHaveLength(20)
        expect(by('unknown')).toHaveLength(8)
        expect(by('not-made')).toHaveLength(32)
        expect(new Set(by('succeeded').concat(by('unknown')))).toEqual(new Set(calls().map(idOf)))
        expect(run.outputs).toMatchObject({ 'calls-succeeded': '20', 'calls-unknown': '8', 'calls-not-made': '32' })
        expect(run.summary).toMatch(
          /^## POST \/v1\/t\/\{id\}\/scan: cancelled, 40 of 60 targets not done\n\n\*\*20 succeeded, 8 unknown, 32 not made\*\*; 28 calls in /
        )
        // Not "Calls: 60 of 60 (100 %), 8 failed": the progress line gives the error's counts.
        expect(expectOneTally(run).progress).toMatch(
          /^Calls: 60 of 60 targets \(100 %\): 20 succeeded, 8 unknown, 32 not made; .*cancelled after 28 calls$/
        )
      } finally {
        run.cleanup()
      }
    },
    30_000
  )

  it('bounds the drain when the signal comes after every target was sent', async () => {
    targets = ids(6)
    answer = (_req, res, n) => (n <= 2 ? json(res, 200, { ok: n }) : hang(res))
    let child: ChildProcess | undefined
    const running = runAction(inputs({ call: 'POST /v1/t/{id}/scan', 'call-concurrency': '8' }), {
      env: RUN,
      onChild: c => (child = c)
    })
    await untilCalls(6) // every target sent: the routine is only draining now
    child!.kill('SIGTERM')
    const run = await running
    try {
      expectRoutineFailure(
        run,
        /^::error::The step was cancelled after 6 calls to POST \/v1\/t\/\{id\}\/scan, of 6 targets: 2 succeeded, 4 unknown;/
      )
      const lines = resultLines(run.outputs['results-file'])
      expect(lines.map(l => l.outcome).sort()).toEqual([
        'succeeded',
        'succeeded',
        'unknown',
        'unknown',
        'unknown',
        'unknown'
      ])
      expect(run.outputs).toMatchObject({ 'calls-succeeded': '2', 'calls-unknown': '4', 'calls-not-made': '0' })
      expectOneTally(run)
    } finally {
      run.cleanup()
    }
  }, 30_000)

  it('flushes and exits at once on a second signal', async () => {
    const { running, child } = await held()
    child.kill('SIGINT')
    await new Promise(resolve => setTimeout(resolve, 200))
    child.kill('SIGTERM')
    const run = await running
    try {
      // The second signal's own way out: no output, the file as it stood (bench/parts/cancel.js times it).
      expect(run.code).toBe(1)
      const errors = run.stdout.split('\n').filter(l => l.startsWith('::error::'))
      expect(errors).toEqual([
        '::error::The step was cancelled again (SIGTERM): its results file was flushed as it stood, no output was set'
      ])
      const [file] = readdirSync(run.runnerTemp).filter(f => f.startsWith('results-'))
      const text = readFileSync(join(run.runnerTemp, file), 'utf8')
      expect(text.endsWith('\n')).toBe(true)
      const lines = resultLines(join(run.runnerTemp, file))
      expect(lines.filter(l => l.outcome === 'succeeded')).toHaveLength(20)
      expect(calls()).toHaveLength(28)
    } finally {
      run.cleanup()
    }
  }, 30_000)

  it('ends during the listing, leaving no file and no output', async () => {
    targets = ids(5)
    listing = res => hang(res)
    let child: ChildProcess | undefined
    const running = runAction(inputs({ call: 'POST /v1/t/{id}/scan' }), { env: RUN, onChild: c => (child = c) })
    await new Promise<void>(resolve => {
      const check = () => (api.requests.some(r => r.url === '/v1/targets') ? resolve() : setTimeout(check, 5))
      check()
    })
    child!.kill('SIGINT')
    const run = await running
    try {
      expectFailure(
        run,
        /^::error::The step was cancelled \(SIGINT\) before any call was made: no output was set and no file kept$/
      )
      expect(calls()).toHaveLength(0)
    } finally {
      run.cleanup()
    }
  })
})

describe('a re-run does only what is left', () => {
  let folder: string
  beforeEach(() => {
    folder = mkdtempSync(join(tmpdir(), 'm2m-earlier-'))
  })
  afterEach(() => rmSync(folder, { recursive: true, force: true }))

  /** Lays the file out as actions/download-artifact does for several artifacts: one folder each. */
  const asArtifact = (name: string, file: string): string => {
    mkdirSync(join(folder, name), { recursive: true })
    const to = join(folder, name, 'results.jsonl')
    writeFileSync(to, readFileSync(file))
    return to
  }

  it('calls exactly the failed, unknown and not-made targets again, with the same keys', async () => {
    targets = ids(30)
    // Attempt 1: two 500s, one call that times out (unknown), then call-max-failures stops the rest.
    answer = (req, res) => {
      const id = idOf(req)
      if (id === 't02' || id === 't05') return json(res, 500, { error: 'boom' })
      if (id === 't08') return hang(res)
      json(res, 201, { ok: id })
    }
    const first = await runAction(
      inputs({
        call: 'POST /v1/t/{id}',
        'call-concurrency': '1',
        'call-max-failures': '3',
        'timeout-seconds': '1',
        'max-attempts': '1'
      }),
      { env: RUN }
    )
    const firstKeys = new Map(calls().map(r => [idOf(r), r.headers['idempotency-key']]))
    try {
      expectRoutineFailure(first, /for 30 targets: 6 succeeded, 2 failed \(HTTP 500: 2\), 1 unknown, 21 not made;/)
      expect(first.outputs).toMatchObject({ 'calls-failed': '2', 'calls-unknown': '1', 'calls-not-made': '21' })
      // A stop says how many calls will not be made, in the error's own words.
      expect(expectOneTally(first).progress).toMatch(
        /: 6 succeeded, 2 failed, 1 unknown, 21 not made; .*stopped after 9 calls$/
      )
      asArtifact('results-1-1', first.outputs['results-file'])
    } finally {
      first.cleanup()
    }
    // Another routine's lines in the same folder, and a torn last line, as a killed writer leaves.
    writeFileSync(
      join(folder, 'results-1-1', 'other.jsonl'),
      '{"key":"t00","call":"ffffffffffffffff","outcome":"failed","status":500,"runAttempt":1,"shard":null,"index":0}\n' +
        '{"key":"t01","call":"ffffffffffffffff","outcome":"succeeded","status":200,"runAttempt":1,"shard":null,"index":1}\n'
    )
    appendFileSync(join(folder, 'results-1-1', 'results.jsonl'), '{"key":"t29","call":"')
    api.requests.length = 0
    answer = (req, res) => json(res, 201, { ok: idOf(req) })
    const second = await runAction(
      inputs({ call: 'POST /v1/t/{id}', 'call-concurrency': '4', 'call-resume-from': folder }),
      {
        env: { ...RUN, GITHUB_RUN_ATTEMPT: '2' }
      }
    )
    try {
      expect(second.code).toBe(0)
      const again = calls().map(idOf).sort()
      expect(again).toEqual(
        [
          't02',
          't05',
          't08',
          ...ids(30)
            .slice(9)
            .map(t => t.id)
        ].sort()
      )
      for (const r of calls()) {
        if (firstKeys.has(idOf(r))) expect(r.headers['idempotency-key']).toBe(firstKeys.get(idOf(r)))
      }
      expect(second.outputs).toMatchObject({ 'calls-succeeded': '24', 'calls-skipped': '6', 'calls-failed': '0' })
      expect(second.stdout).toMatch(
        /^Calling POST \/v1\/t\/\{id\} for 24 of 30 targets \(6 done in an earlier attempt are skipped\), 4 at a time/m
      )
      expect(expectOneTally(second).progress).toMatch(
        /^Calls: 30 of 30 targets \(100 %\): 24 succeeded, 6 skipped \(done in an earlier attempt\)(;|$)/
      )
      expect(second.summary).toMatch(/^## POST \/v1\/t\/\{id\}: all 30 targets done\n/)
      const lines = resultLines(second.outputs['results-file'])
      expect(lines).toHaveLength(30)
      expect(lines.filter(l => l.outcome === 'skipped')).toEqual(
        expect.arrayContaining([expect.objectContaining({ key: 't00', status: 201, runAttempt: 2 })])
      )
      // Unsigned lines (format 1, as an earlier version wrote them) are not evidence for a step that
      // holds the run's record key: the file is set aside, and its targets would be called again.
      expect(second.stdout).toMatch(
        /^::warning::1 results file was not counted \(call-resume-from\), being unsigned by the run’s record key: ".*other\.jsonl" \(unsigned \(format 1, written before records were signed\)\); their targets are called again\./m
      )
      expect(second.stdout).toMatch(/^::warning::".*results\.jsonl" ends in a torn line/m)
    } finally {
      second.cleanup()
    }
  }, 60_000)

  it('refuses a garbage line before any call, naming the file and line', async () => {
    targets = ids(3)
    writeFileSync(
      join(folder, 'results.jsonl'),
      '{"key":"t00","call":"0000000000000000","outcome":"succeeded","status":200,"runAttempt":1,"shard":null}\nnot json\n{}\n'
    )
    // With a token and no client secret the step holds no record key, and reads unsigned files.
    const run = await runAction(
      { token: TOKEN, 'base-url': api.url, call: 'POST /v1/t/{id}', 'call-resume-from': folder },
      { env: RUN }
    )
    try {
      expectFailure(
        run,
        /^::error::Input call-resume-from: ".*results\.jsonl" line 2 is not a result line of this action/
      )
      expect(calls()).toHaveLength(0)
    } finally {
      run.cleanup()
    }
  })

  it('treats a missing or empty folder as a first attempt', async () => {
    targets = ids(2)
    const run = await runAction(inputs({ call: 'PUT /v1/t/{id}', 'call-resume-from': join(folder, 'none') }), {
      env: RUN
    })
    try {
      expect(run.code).toBe(0)
      expect(run.stdout).toMatch(/No earlier results in .* \(call-resume-from\): a first attempt/)
      expect(calls()).toHaveLength(2)
    } finally {
      run.cleanup()
    }
  })

  it('gives another body another Idempotency-Key, in the same run', async () => {
    targets = ids(1)
    for (const action of ['start', 'stop']) {
      const run = await runAction(inputs({ call: 'POST /v1/t/{id}', 'call-body': `{"action":"${action}"}` }), {
        env: RUN
      })
      run.cleanup()
    }
    const [start, stop] = calls()
    expect(start.headers['idempotency-key']).toMatch(/^[0-9a-f]{32}$/)
    expect(stop.headers['idempotency-key']).not.toBe(start.headers['idempotency-key'])
  })
})
