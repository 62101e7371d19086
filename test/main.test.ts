import { jest } from '@jest/globals'
import { EventEmitter } from 'node:events'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import nock from 'nock'
import { DEFAULTS } from '../src/inputs.js'
import { run } from '../src/main.js'
import { callFingerprint } from '../src/routine/fingerprint.js'
import { resultLine } from '../src/routine/lines.js'
import { planDigest } from '../src/routine/plan.js'
import { captureStdout, readFileCommands } from './helpers.js'
import { useNock } from './nock.js'

useNock()

const IDP = 'https://tenant.idp.test'
const API = 'https://api.service.test'
const SECRET = 'main-test-secret-value'
const TOKEN = `e30.${Buffer.from(JSON.stringify({ sub: 'bot@clients' })).toString('base64url')}.sig`

describe('run', () => {
  const written = captureStdout()
  const saved = { ...process.env }
  let dir: string

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'm2m-main-'))
    for (const key of Object.keys(process.env)) if (key.startsWith('INPUT_')) delete process.env[key]
    const inputs = {
      ...DEFAULTS,
      'client-id': 'client-1',
      'client-secret': SECRET,
      'auth-url': IDP,
      audience: 'https://tenant.idp.test/api/v2/',
      'base-url': API,
      'max-attempts': '1'
    }
    for (const [name, value] of Object.entries(inputs)) process.env[`INPUT_${name.toUpperCase()}`] = value
    for (const name of ['GITHUB_OUTPUT', 'GITHUB_ENV', 'GITHUB_STEP_SUMMARY']) {
      process.env[name] = join(dir, name)
      writeFileSync(join(dir, name), '')
    }
    process.env.RUNNER_TEMP = join(dir, 'temp')
    mkdirSync(process.env.RUNNER_TEMP)
  })
  afterEach(() => {
    process.env = { ...saved }
    process.exitCode = undefined
    rmSync(dir, { recursive: true, force: true })
  })

  const outputs = () => readFileCommands(readFileSync(join(dir, 'GITHUB_OUTPUT'), 'utf8'))
  const errors = () => written.filter(l => l.startsWith('::error::'))
  const warnings = () => written.filter(l => l.startsWith('::warning::'))
  const tempFiles = () => readdirSync(join(dir, 'temp'))
  const token = () => nock(IDP).post('/oauth/token').reply(200, { access_token: TOKEN, expires_in: 3600 })

  it('exchanges, lists, and sets every output and the summary', async () => {
    token()
    nock(API)
      .get('/v1/targets')
      .reply(200, [{ id: 'a' }], { Link: '</v1/targets?page=2>; rel="next"' })
      .get('/v1/targets?page=2')
      .reply(200, { data: [{ id: 'b' }] })
    await expect(run()).resolves.toBe('exit')
    expect(process.exitCode).toBeUndefined()
    expect(errors()).toEqual([])
    expect(outputs()).toMatchObject({
      token: TOKEN,
      'token-source': 'exchange',
      targets: '[{"id":"a"},{"id":"b"}]',
      'target-count': '2',
      shards: '["1/1"]'
    })
    // Nothing is handed on: no scrypt, no sealed token, no record key.
    expect(outputs()['sealed-token']).toBe('')
    expect(outputs()['record-key']).toBeUndefined()
    expect(JSON.parse(readFileSync(outputs()['targets-file'], 'utf8'))).toEqual([{ id: 'a' }, { id: 'b' }])
    expect(written).toContain('::group::Listing targets page by page\n')
    expect(written).toContain('Page 2: 1 targets (2 so far)\n')
    expect(written).toContain('::endgroup::\n')
    expect(written).toContain('Listed 2 targets\n')
    expect(readFileSync(join(dir, 'GITHUB_STEP_SUMMARY'), 'utf8')).toContain('- **Targets**: 2 from')
  })

  it.each([
    ['seal-token', 'true'],
    ['shard-size', '50']
  ])('seals the token and gives the record key with %s %s', async (name, value) => {
    process.env[`INPUT_${name.toUpperCase()}`] = value
    token()
    nock(API)
      .get('/v1/targets')
      .reply(200, [{ id: 'a' }])
    await run()
    expect(errors()).toEqual([])
    expect(outputs()['sealed-token']).toMatch(/^m2m3\./)
    expect(outputs()['record-key']).toMatch(/^m2mrk1\./)
  })

  it('fails on a seal-token that is not true or false, before any request', async () => {
    process.env['INPUT_SEAL-TOKEN'] = 'yes'
    await run()
    expect(errors()).toEqual(['::error::Input seal-token must be true or false, got "yes"\n'])
  })

  it('logs no page group for a one-page list', async () => {
    token()
    nock(API)
      .get('/v1/targets')
      .reply(200, [{ id: 'a' }])
    await run()
    expect(written).toContain('Listed 1 target\n')
    expect(written.some(l => l.startsWith('::group::'))).toBe(false)
  })

  it('keeps only its shard and names it', async () => {
    process.env.INPUT_SHARD = '2/2'
    token()
    nock(API)
      .get('/v1/targets')
      .reply(
        200,
        Array.from({ length: 40 }, (_, i) => ({ id: `t${i}` }))
      )
    await run()
    const count = Number(outputs()['target-count'])
    expect(count).toBeGreaterThan(0)
    expect(count).toBeLessThan(40)
    expect(written).toContain(`Listed 40 targets; shard 2 of 2 holds ${count} target${count === 1 ? '' : 's'}\n`)
  })

  it('caps the shards at 256 and says why in the log', async () => {
    process.env['INPUT_SHARD-SIZE'] = '1'
    token()
    nock(API)
      .get('/v1/targets')
      .reply(
        200,
        Array.from({ length: 300 }, (_, i) => ({ id: `t${i}` }))
      )
    await run()
    expect(JSON.parse(outputs().shards)).toHaveLength(256)
    expect(written).toContain(
      'The shards output has 256 shards, not 300: a matrix runs at most 256 jobs, so each shard holds about 2 targets, more than shard-size (1).\n'
    )
  })

  it('says nothing of a cap at exactly 256 shards', async () => {
    process.env['INPUT_SHARD-SIZE'] = '1'
    token()
    nock(API)
      .get('/v1/targets')
      .reply(
        200,
        Array.from({ length: 256 }, (_, i) => ({ id: `t${i}` }))
      )
    await run()
    expect(JSON.parse(outputs().shards)).toHaveLength(256)
    expect(written.some(l => l.includes('The shards output has'))).toBe(false)
  })

  it('fails with one redacted error, no outputs and no targets file when a later page fails', async () => {
    token()
    nock(API)
      .get('/v1/targets')
      .reply(200, [{ id: 'a' }], { Link: '</v1/targets?page=2>; rel="next"' })
      .get('/v1/targets?page=2')
      .reply(401, { message: `bad token ${TOKEN}` })
    await run()
    expect(process.exitCode).toBe(1)
    expect(errors()).toEqual([
      expect.stringMatching(
        /^::error::Failed to list targets: api\.service\.test answered HTTP 401 Unauthorized \(bad token \*\*\*\)/
      )
    ])
    expect(outputs()).toEqual({})
    expect(tempFiles()).toEqual([])
    expect(readFileSync(join(dir, 'GITHUB_STEP_SUMMARY'), 'utf8')).toBe('')
    expect(written.some(l => l.startsWith('::endgroup::'))).toBe(true)
  })

  it('redacts the client secret from an identity provider error', async () => {
    nock(IDP)
      .post('/oauth/token')
      .reply(401, { error: 'invalid_client', error_description: `got ${SECRET}` })
    await run()
    expect(errors()).toEqual([expect.stringContaining('(invalid_client: got ***)')])
    expect(written.filter(l => !l.startsWith('::add-mask::')).join('')).not.toContain(SECRET)
  })

  it('creates no targets file with list-targets: false', async () => {
    process.env['INPUT_LIST-TARGETS'] = 'false'
    token()
    await run()
    expect(process.exitCode).toBeUndefined()
    expect(tempFiles()).toEqual([])
    expect(outputs().targets).toBeUndefined()
  })

  it('still succeeds, with a warning, when the summary cannot be written', async () => {
    delete process.env.GITHUB_STEP_SUMMARY
    token()
    nock(API).get('/v1/targets').reply(200, [])
    await run()
    expect(process.exitCode).toBeUndefined()
    expect(written).toContain('::warning::The job summary was not written: GITHUB_STEP_SUMMARY is not set\n')
    expect(outputs()['target-count']).toBe('0')
  })

  it('writes no summary with summary: false', async () => {
    process.env.INPUT_SUMMARY = 'false'
    token()
    nock(API).get('/v1/targets').reply(200, [])
    await run()
    expect(readFileSync(join(dir, 'GITHUB_STEP_SUMMARY'), 'utf8')).toBe('')
  })

  it('keeps its files in RUNNER_TEMP, warns of nothing and writes the summary once', async () => {
    token()
    nock(API)
      .get('/v1/targets')
      .reply(200, [{ id: 'a' }])
    await run()
    expect(errors()).toEqual([])
    expect(warnings()).toEqual([])
    expect(dirname(outputs()['targets-file'])).toBe(join(dir, 'temp'))
    expect(readFileSync(join(dir, 'GITHUB_STEP_SUMMARY'), 'utf8').match(/^## /gm)).toHaveLength(1)
  })

  it('warns a shard job that exchanges for its own token, naming sealed-token', async () => {
    process.env.INPUT_SHARD = '1/1'
    token()
    nock(API)
      .get('/v1/targets')
      .reply(200, [{ id: 'a' }])
    await run()
    expect(warnings()).toEqual([
      expect.stringMatching(/^::warning::This shard job exchanges client credentials for its own token: .*sealed-token/)
    ])
  })

  it('waits up to timeout-seconds for an answer', async () => {
    process.env['INPUT_TIMEOUT-SECONDS'] = '5'
    nock(IDP).post('/oauth/token').delay(50).reply(200, { access_token: TOKEN, expires_in: 3600 })
    nock(API).get('/v1/targets').delay(50).reply(200, [])
    await run()
    expect(errors()).toEqual([])
    expect(outputs()['target-count']).toBe('0')
  })

  it('fails with the message of a bad input, and resolves', async () => {
    process.env['INPUT_MAX-ATTEMPTS'] = 'lots'
    await expect(run()).resolves.toBe('exit')
    expect(process.exitCode).toBe(1)
    expect(errors()).toEqual(['::error::Input max-attempts must be a whole number from 1 to 10, got "lots"\n'])
    expect(outputs()).toEqual({})
  })

  it('verifies TLS even when the job sets NODE_TLS_REJECT_UNAUTHORIZED=0, and says so', async () => {
    process.env.NODE_TLS_REJECT_UNAUTHORIZED = '0'
    token()
    nock(API).get('/v1/targets').reply(200, [])
    await run()
    expect(process.env.NODE_TLS_REJECT_UNAUTHORIZED).toBeUndefined()
    expect(warnings()).toEqual([expect.stringMatching(/^::warning::NODE_TLS_REJECT_UNAUTHORIZED=0 is set in the job/)])
  })

  it('makes a report with report-from, with no request', async () => {
    const results = join(dir, 'results')
    mkdirSync(results)
    const identity = { method: 'POST', path: '/v1/t/{id}', body: '', baseUrl: new URL(API) }
    const line = resultLine(
      { fingerprint: callFingerprint(identity), runAttempt: 1, shard: '1/1' },
      { key: 'a', outcome: 'succeeded', status: 200, index: 0, target: { id: 'a' } }
    )
    writeFileSync(join(results, 'a.jsonl'), `${line}\n`)
    process.env['INPUT_REPORT-FROM'] = results
    process.env.INPUT_CALL = 'POST /v1/t/{id}'
    for (const name of ['CLIENT-ID', 'CLIENT-SECRET']) delete process.env[`INPUT_${name}`]
    await expect(run()).resolves.toBe('exit')
    expect(errors()).toEqual([])
    expect(outputs()).toMatchObject({ 'report-targets': '1', 'report-succeeded': '1', 'report-failed': '0' })
    expect(readFileSync(join(dir, 'GITHUB_STEP_SUMMARY'), 'utf8')).toMatch(/^## /)
  })

  describe('with a call', () => {
    const identity = (path: string) => ({ method: 'POST', path, body: '', baseUrl: new URL(API) })
    const summary = () => readFileSync(join(dir, 'GITHUB_STEP_SUMMARY'), 'utf8')
    const snapshot = (targets: unknown[]) => {
      const path = join(dir, 'snapshot.json')
      writeFileSync(path, `[\n${targets.map(t => JSON.stringify(t)).join(',\n')}\n]\n`)
      return path
    }
    /** run() with signals from an emitter, and the exit codes it asked for instead of exiting. */
    const running = () => {
      const source = new EventEmitter()
      const exits: number[] = []
      return { source, exits, done: run({ signals: source, exit: code => exits.push(code) }) }
    }

    it('binds plan-digest to the listing and the call, and calls every target', async () => {
      process.env.INPUT_CALL = 'POST /v1/t/{id}'
      token()
      nock(API)
        .get('/v1/targets')
        .reply(200, [{ id: 'a' }, { id: 'b' }])
      nock(API).post('/v1/t/a').reply(200, {}).post('/v1/t/b').reply(200, {})
      const { exits, done } = running()
      await done
      expect(errors()).toEqual([])
      expect(exits).toEqual([])
      const set = outputs()
      expect(set['targets-digest']).toMatch(/^sha256:[0-9a-f]{64}$/)
      expect(set['plan-digest']).toBe(planDigest(set['targets-digest'], identity('/v1/t/{id}')))
      expect(set).toMatchObject({ 'calls-succeeded': '2', 'calls-failed': '0' })
      expect(summary()).toMatch(/^## POST \/v1\/t\/\{id\}: all 2 targets done\n/)
      expect(summary()).toContain('- **Targets**: 2 from https\\://api.service.test\n')
    })

    it('plans the one call of a step without a listing', async () => {
      process.env['INPUT_LIST-TARGETS'] = 'false'
      process.env.INPUT_CALL = 'POST /v1/ping'
      process.env['INPUT_CALL-DRY-RUN'] = 'true'
      token()
      await run()
      expect(errors()).toEqual([])
      expect(outputs()['plan-digest']).toMatch(/^plan2\.1\./)
      expect(outputs()['plan-digest']).not.toBe(planDigest('', identity('/v1/ping')))
    })

    it('reads targets-from, before the token, and names it in the summary', async () => {
      process.env['INPUT_TARGETS-FROM'] = snapshot([{ id: 'a' }, { id: 'b' }, { id: 'c' }])
      process.env.INPUT_CALL = 'POST /v1/t/{id}'
      process.env['INPUT_CALL-DRY-RUN'] = 'true'
      token()
      await run()
      expect(errors()).toEqual([])
      expect(outputs()).toMatchObject({ 'target-count': '3', 'calls-planned': '3' })
      expect(outputs()).not.toHaveProperty('targets-digest')
      expect(summary()).toContain('- **Targets**: 3 from targets-from')
    })

    it('checks every listed target against the call before any call', async () => {
      process.env.INPUT_CALL = 'POST /v1/t/{id}'
      token()
      nock(API)
        .get('/v1/targets')
        .reply(200, [{ id: 'a' }, { name: 'no-id' }])
      // No call was made: nothing to drain, the step ends at once.
      await expect(run()).resolves.toBe('exit')
      expect(errors()).toEqual([
        expect.stringMatching(
          /^::error::Input call: 1 of 2 targets cannot fill its placeholders, so no call was made: /
        )
      ])
      expect(outputs()).toEqual({})
      expect(tempFiles()).toEqual([])
    })

    it('writes the summary and fails the step when calls fail', async () => {
      process.env.INPUT_CALL = 'POST /v1/t/{id}'
      token()
      nock(API)
        .get('/v1/targets')
        .reply(200, [{ id: 'a' }, { id: 'b' }])
      nock(API).post('/v1/t/a').reply(200, {}).post('/v1/t/b').reply(500, { e: 1 })
      await expect(run()).resolves.toBe('drain')
      expect(process.exitCode).toBe(1)
      expect(errors()).toEqual([
        expect.stringMatching(
          /^::error::Failed to call POST \/v1\/t\/\{id\} for 2 targets: 1 succeeded, 1 failed \(HTTP 500: 1\)/
        )
      ])
      expect(outputs()).toMatchObject({ 'calls-succeeded': '1', 'calls-failed': '1' })
      expect(summary()).toMatch(/^## POST \/v1\/t\/\{id\}: 1 of 2 targets not done\n/)
      expect(summary().match(/^## /gm)).toHaveLength(1)
    })

    it('discards the targets file and fails when cancelled before any call', async () => {
      process.env['INPUT_TARGETS-FROM'] = snapshot([{ id: 'a' }])
      process.env.INPUT_CALL = 'POST /v1/t/{id}'
      const { source, exits, done } = running()
      const atSignal: number[] = []
      nock(IDP)
        .post('/oauth/token')
        .reply(() => {
          source.emit('SIGTERM', 'SIGTERM')
          atSignal.push(...exits)
          return [200, { access_token: TOKEN, expires_in: 3600 }]
        })
      nock(API).post('/v1/t/a').reply(200, {})
      await done
      expect(atSignal).toEqual([1])
      expect(exits[0]).toBe(1)
      expect(errors()[0]).toBe(
        '::error::The step was cancelled (SIGTERM) before any call was made: no output was set and no file kept\n'
      )
      expect(tempFiles().filter(f => f.startsWith('targets-'))).toEqual([])
    })

    it('exits the process at a signal before any call when given no exit', async () => {
      process.env['INPUT_TARGETS-FROM'] = snapshot([{ id: 'a' }])
      process.env.INPUT_CALL = 'POST /v1/t/{id}'
      process.env['INPUT_CALL-DRY-RUN'] = 'true'
      const exit = jest.spyOn(process, 'exit').mockImplementation((() => undefined) as () => never)
      const source = new EventEmitter()
      nock(IDP)
        .post('/oauth/token')
        .reply(() => {
          source.emit('SIGINT', 'SIGINT')
          return [200, { access_token: TOKEN, expires_in: 3600 }]
        })
      await run({ signals: source })
      expect(exit).toHaveBeenCalledWith(1)
    })

    it('stops listening for signals once done', async () => {
      process.env['INPUT_TARGETS-FROM'] = snapshot([{ id: 'a' }])
      process.env.INPUT_CALL = 'POST /v1/t/{id}'
      process.env['INPUT_CALL-DRY-RUN'] = 'true'
      token()
      const { source, done } = running()
      expect(source.listenerCount('SIGINT') + source.listenerCount('SIGTERM')).toBe(2)
      await done
      expect(errors()).toEqual([])
      expect(source.listenerCount('SIGINT') + source.listenerCount('SIGTERM')).toBe(0)
    })

    it('keeps the targets and results files when a failure comes after the calls began', async () => {
      process.env.INPUT_CALL = 'POST /v1/t/{id}'
      process.env.GITHUB_OUTPUT = join(dir, 'missing', 'GITHUB_OUTPUT')
      token()
      nock(API)
        .get('/v1/targets')
        .reply(200, [{ id: 'a' }])
      nock(API).post('/v1/t/a').reply(200, {})
      // A step that ran a routine ends when its loop is empty, failed or not (ending.ts).
      await expect(run()).resolves.toBe('drain')
      expect(errors()).toEqual([expect.stringContaining('GITHUB_OUTPUT')])
      expect(tempFiles().filter(f => f.startsWith('targets-'))).toHaveLength(1)
      expect(tempFiles().filter(f => !f.startsWith('targets-'))).toHaveLength(1)
    })

    it('drains at a first signal during the calls, and ends the step once the record is written', async () => {
      process.env.INPUT_CALL = 'POST /v1/t/{id}'
      process.env['INPUT_CALL-CONCURRENCY'] = '1'
      token()
      nock(API)
        .get('/v1/targets')
        .reply(200, [{ id: 'a' }, { id: 'b' }])
      const { source, exits, done } = running()
      nock(API)
        .post('/v1/t/a')
        .reply(() => {
          source.emit('SIGINT', 'SIGINT')
          return [200, {}]
        })
      await done
      expect(exits).toEqual([1])
      expect(errors()).toEqual([
        expect.stringMatching(
          /^::error::The step was cancelled after 1 call to POST \S+, of 2 targets: 1 succeeded, 1 not made\./
        )
      ])
      expect(outputs()).toMatchObject({ 'calls-succeeded': '1', 'calls-not-made': '1' })
    })

    it('stops at once at a second signal during the calls, saying so', async () => {
      process.env.INPUT_CALL = 'POST /v1/t/{id}'
      process.env['INPUT_CALL-CONCURRENCY'] = '1'
      token()
      nock(API)
        .get('/v1/targets')
        .reply(200, [{ id: 'a' }, { id: 'b' }])
      const { source, exits, done } = running()
      nock(API)
        .post('/v1/t/a')
        .reply(() => {
          source.emit('SIGINT', 'SIGINT')
          source.emit('SIGTERM', 'SIGTERM')
          return [200, {}]
        })
      await done
      expect(exits).toEqual([1, 1])
      expect(errors()[0]).toBe(
        '::error::The step was cancelled again (SIGTERM): its results file was flushed as it stood, no output was set\n'
      )
      expect(errors().filter(e => e.includes('cancelled again'))).toHaveLength(1)
    })
  })
})
