import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { MergedReport } from '../../src/report/merge.js'
import { callOutputs, ENV_VALUE_BYTES, publish, publishReport } from '../../src/report/outputs.js'
import { Outcome } from '../../src/routine/lines.js'
import { RoutineResult } from '../../src/routine/routine.js'
import { Listing, MAX_OUTPUT_BYTES } from '../../src/targets/file.js'
import { Token } from '../../src/auth/token.js'
import { captureStdout, readFileCommands } from '../helpers.js'
import { mask } from '../../src/secrets.js'

const token: Token = {
  accessToken: 'header.payload.sig',
  tokenType: 'Bearer',
  expiresAtMs: Date.parse('2026-11-23T06:00:00Z'),
  expiresInSeconds: 86400,
  scope: 'read:targets',
  source: 'exchange'
}
const sealed = 'm2m2.sealed'

function listing(json: string | undefined, bytes: number, count = 3): Listing {
  return {
    file: '/runner/temp/targets-abc.json',
    listed: count,
    selected: count,
    count,
    bytes,
    json,
    preview: [],
    digest: `sha256:${'ab'.repeat(32)}`,
    withoutId: 0
  }
}

const written = captureStdout()
let dir: string
const saved = { ...process.env }
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'm2m-outputs-'))
  for (const name of ['GITHUB_OUTPUT', 'GITHUB_ENV']) {
    process.env[name] = join(dir, name)
    writeFileSync(process.env[name] as string, '')
  }
})
afterEach(() => {
  process.env = { ...saved }
  rmSync(dir, { recursive: true, force: true })
})
const outputs = () => readFileCommands(readFileSync(join(dir, 'GITHUB_OUTPUT'), 'utf8'))
const warnings = () => written.filter(line => line.startsWith('::warning::'))

describe('publish', () => {
  it('sets the token outputs and, with a listing, the targets, count, file and shards', () => {
    publish({
      token,
      sealed,
      targets: { listing: listing('[1,2,3]', 7), shardCount: 2, from: 'listing', digest: 'sha256:00' }
    })
    expect(outputs()).toEqual({
      token: 'header.payload.sig',
      'token-type': 'Bearer',
      'token-source': 'exchange',
      'expires-in': '86400',
      'expires-at': '2026-11-23T06:00:00Z',
      scope: 'read:targets',
      'sealed-token': 'm2m2.sealed',
      targets: '[1,2,3]',
      'target-count': '3',
      'targets-file': '/runner/temp/targets-abc.json',
      'targets-digest': `sha256:${'ab'.repeat(32)}`,
      shards: '["1/2","2/2"]'
    })
    expect(warnings()).toEqual([])
  })

  it('says how many targets a selection kept of how many, only with targets-where', () => {
    const selected = { ...listing('[1]', 3, 1), listed: 9, selected: 4, where: 'a == 1' }
    publish({ token, targets: { listing: selected, shardCount: 1, from: 'listing', digest: 'sha256:00' } })
    expect(outputs()).toMatchObject({ 'target-count': '1', 'targets-listed': '9', 'targets-selected': '4' })
  })

  it('sets no targets-digest for targets read from a snapshot, and no targets output when told not to', () => {
    const big = `[${'"x",'.repeat(70_000)}"x"]`
    const read = { listing: listing(big, big.length), shardCount: 2, from: 'snapshot' as const, digest: 'sha256:00' }
    publish({ token, sealed, targets: read, targetsOutput: false })
    expect(outputs()).not.toHaveProperty('targets-digest')
    expect(outputs()).not.toHaveProperty('targets')
    expect(outputs()['target-count']).toBe('3')
    expect(warnings()).toEqual([])
  })

  it('sets shards to [] for an empty listing, so a workflow can skip its matrix', () => {
    publish({
      token,
      sealed,
      targets: { listing: listing('[]', 2, 0), shardCount: 0, from: 'listing', digest: 'sha256:00' }
    })
    expect(outputs()).toMatchObject({ shards: '[]', targets: '[]', 'target-count': '0' })
  })

  it('sets no target outputs when targets were not listed', () => {
    publish({ token, sealed })
    expect(Object.keys(outputs())).not.toContain('targets')
    expect(Object.keys(outputs())).not.toContain('shards')
  })

  it('warns over 128 KiB, naming the env limit, and still sets targets', () => {
    const json = `[${'1,'.repeat(ENV_VALUE_BYTES / 2)}1]`
    publish({
      token,
      sealed,
      targets: { listing: listing(json, Buffer.byteLength(json)), shardCount: 1, from: 'listing', digest: 'sha256:00' }
    })
    expect(outputs().targets).toBe(json)
    expect(warnings()).toEqual([
      expect.stringMatching(
        /^::warning::The targets output is 128 KiB: an env value over 128 KiB makes the next step fail \("Argument list too long"\).*targets-file.*shards/
      )
    ])
  })

  it('does not warn at exactly 128 KiB', () => {
    publish({
      token,
      sealed,
      targets: { listing: listing('[]', ENV_VALUE_BYTES), shardCount: 1, from: 'listing', digest: 'sha256:00' }
    })
    expect(warnings()).toEqual([])
  })

  it('leaves targets unset over 1 MiB and says so, keeping the count, file and shards', () => {
    publish({
      token,
      sealed,
      targets: {
        listing: listing(undefined, MAX_OUTPUT_BYTES + 1, 9000),
        shardCount: 90,
        from: 'listing',
        digest: 'sha256:00'
      }
    })
    const set = outputs()
    expect(set.targets).toBeUndefined()
    expect(set).toMatchObject({ 'target-count': '9000', 'targets-file': '/runner/temp/targets-abc.json' })
    expect(JSON.parse(set.shards)).toHaveLength(90)
    expect(warnings()).toEqual([expect.stringMatching(/^::warning::The targets output was not set: the list is 1 MiB/)])
  })

  it('exports the token only under the name asked for', () => {
    publish({ token, sealed, exportVariable: 'SERVICE_TOKEN' })
    expect(readFileCommands(readFileSync(join(dir, 'GITHUB_ENV'), 'utf8'))).toEqual({
      SERVICE_TOKEN: 'header.payload.sig'
    })
  })

  it('fails, printing nothing, when GITHUB_OUTPUT is missing', () => {
    delete process.env.GITHUB_OUTPUT
    expect(() => publish({ token, sealed })).toThrow(
      "GITHUB_OUTPUT is not set, so the step's outputs cannot be written (run it on a runner)"
    )
    expect(written.join('')).not.toContain('header.payload.sig')
  })

  it('sets nothing when GITHUB_ENV is missing and a variable is to be exported', () => {
    delete process.env.GITHUB_ENV
    expect(() => publish({ token, sealed, exportVariable: 'SERVICE_TOKEN' })).toThrow('GITHUB_ENV is not set')
    expect(readFileSync(join(dir, 'GITHUB_OUTPUT'), 'utf8')).toBe('')
  })

  it('undoes the outputs already written when a later file cannot be (a full disk)', () => {
    writeFileSync(join(dir, 'GITHUB_OUTPUT'), 'earlier<<EOF\nkept\nEOF\n')
    process.env.GITHUB_ENV = '/dev/full'
    expect(() => publish({ token, sealed, exportVariable: 'SERVICE_TOKEN' })).toThrow(
      /^Failed to write the step's outputs to GITHUB_ENV: ENOSPC.*\. No output was set\.$/
    )
    expect(readFileSync(join(dir, 'GITHUB_OUTPUT'), 'utf8')).toBe('earlier<<EOF\nkept\nEOF\n')
  })

  it('names the file that could not be written, and undoes the others', () => {
    writeFileSync(join(dir, 'GITHUB_OUTPUT'), 'earlier<<EOF\nkept\nEOF\n')
    process.env.GITHUB_ENV = join(dir, 'missing-dir', 'env')
    expect(() => publish({ token, sealed, exportVariable: 'SERVICE_TOKEN' })).toThrow(
      /^Failed to write the step's outputs to GITHUB_ENV: ENOENT/
    )
    expect(readFileSync(join(dir, 'GITHUB_OUTPUT'), 'utf8')).toBe('earlier<<EOF\nkept\nEOF\n')
  })

  it('writes values with a delimiter of their own, so a value cannot add an output', () => {
    publish({ token: { ...token, scope: 'a\nEOF\ninjected<<EOF\nx' }, sealed })
    expect(outputs().scope).toBe('a\nEOF\ninjected<<EOF\nx')
    expect(outputs().injected).toBeUndefined()
  })
})

describe('publish, for a scope that echoes secrets', () => {
  it('sets scope redacted, and every output of a fixed form as it is', () => {
    const secret = 'Qx8~Lm2.Zp_Vb7-Kd9~Rt4.Wn6_Hs1-Jf3~Gc5.Ya0'
    const accessToken = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJib3RAY2xpZW50cyJ9.c2lnbmF0dXJlLXNlY3JldC1wYXJ0'
    mask(secret)
    mask(accessToken)
    const scope = `read:targets echo=${secret} tok=${accessToken} hex=${Buffer.from(secret).toString('hex')}`
    publish({ token: { ...token, accessToken, scope }, sealed })
    expect(outputs()).toEqual({
      token: accessToken,
      'token-type': 'Bearer',
      'token-source': 'exchange',
      'expires-in': '86400',
      'expires-at': '2026-11-23T06:00:00Z',
      scope: 'read:targets echo=*** tok=*** hex=***',
      'sealed-token': 'm2m2.sealed'
    })
  })
})

describe('publish, for a token that states no lifetime', () => {
  it('sets expires-in, expires-at, scope and sealed-token empty', () => {
    publish({ token: { accessToken: 'opaque-token', tokenType: 'Bearer', source: 'input' } })
    expect(outputs()).toEqual({
      token: 'opaque-token',
      'token-type': 'Bearer',
      'token-source': 'input',
      'expires-in': '',
      'expires-at': '',
      scope: '',
      'sealed-token': ''
    })
  })
})

function routine(outcomes: [Outcome, number][], response?: string): RoutineResult {
  return {
    count: 5,
    calls: 4,
    outcomes: new Map(outcomes),
    byStatus: new Map(),
    failedByStatus: new Map(),
    failures: [],
    durationMs: 10,
    resultsFile: '/runner/temp/results-abc.jsonl',
    unrecorded: 0,
    unrecordedOutcomes: new Map(),
    planned: [],
    cancelled: false,
    response
  }
}

describe('callOutputs', () => {
  it('counts every outcome, 0 for those none had, and names the results file', () => {
    expect(
      callOutputs(
        routine([
          ['succeeded', 3],
          ['failed', 2],
          ['unknown', 1],
          ['not-made', 4]
        ])
      )
    ).toEqual({
      'calls-succeeded': '3',
      'calls-failed': '2',
      'calls-unknown': '1',
      'calls-skipped': '0',
      'calls-not-made': '4',
      'calls-planned': '0',
      'results-file': '/runner/temp/results-abc.jsonl'
    })
    expect(
      callOutputs(
        routine([
          ['skipped', 6],
          ['planned', 7]
        ])
      )
    ).toMatchObject({
      'calls-succeeded': '0',
      'calls-skipped': '6',
      'calls-planned': '7'
    })
  })

  it('sets response when the one call had one, even an empty body', () => {
    expect(callOutputs(routine([['succeeded', 1]], '{"ok":true}')).response).toBe('{"ok":true}')
    expect(callOutputs(routine([['succeeded', 1]], ''))).toHaveProperty('response', '')
    expect(callOutputs(routine([['succeeded', 1]]))).not.toHaveProperty('response')
  })
})

describe('publish, with calls and a plan', () => {
  it('adds the call outputs and plan-digest to the token outputs', () => {
    publish({
      token,
      sealed,
      calls: routine(
        [
          ['succeeded', 2],
          ['failed', 1]
        ],
        'body'
      ),
      plan: 'plan1.abc'
    })
    expect(outputs()).toMatchObject({
      token: 'header.payload.sig',
      'calls-succeeded': '2',
      'calls-failed': '1',
      'calls-unknown': '0',
      'calls-skipped': '0',
      'calls-not-made': '0',
      'calls-planned': '0',
      'results-file': '/runner/temp/results-abc.jsonl',
      response: 'body',
      'plan-digest': 'plan1.abc'
    })
  })

  it('sets no call output and no plan-digest without calls', () => {
    publish({ token, sealed })
    expect(Object.keys(outputs()).filter(k => k.startsWith('calls-') || k === 'plan-digest')).toEqual([])
  })
})

describe('publishReport', () => {
  const report = (counts: [string, number][]): MergedReport =>
    ({
      targets: 12,
      counts: new Map(counts),
      shardsToRerun: ['2/4', '4/4'],
      reportFile: '/runner/temp/report-abc.jsonl'
    }) as unknown as MergedReport

  it('sets the counts by outcome, 0 for those none had, the report file and the shards to re-run', () => {
    publishReport(
      report([
        ['succeeded', 5],
        ['skipped', 1],
        ['failed', 2],
        ['unknown', 3],
        ['not-made', 4],
        ['missing', 6]
      ])
    )
    expect(outputs()).toEqual({
      'report-targets': '12',
      'report-succeeded': '5',
      'report-skipped': '1',
      'report-failed': '2',
      'report-unknown': '3',
      'report-not-made': '4',
      'report-missing': '6',
      'report-file': '/runner/temp/report-abc.jsonl',
      'shards-to-rerun': '["2/4","4/4"]'
    })
  })

  it('writes 0 for an outcome no target had', () => {
    publishReport(report([]))
    expect(outputs()).toMatchObject({ 'report-succeeded': '0', 'report-missing': '0', 'report-not-made': '0' })
  })

  it('fails when GITHUB_OUTPUT is missing', () => {
    delete process.env.GITHUB_OUTPUT
    expect(() => publishReport(report([]))).toThrow("GITHUB_OUTPUT is not set, so the step's outputs cannot be written")
  })
})
