import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ENV_VALUE_BYTES, publish } from '../src/outputs.js'
import { Listing, MAX_OUTPUT_BYTES } from '../src/targets-file.js'
import { AccessToken } from '../src/token.js'
import { captureStdout, readFileCommands } from './helpers.js'

const token: AccessToken = {
  accessToken: 'header.payload.sig',
  tokenType: 'Bearer',
  expiresAt: Date.parse('2026-11-23T06:00:00Z'),
  expiresIn: 86400,
  scope: 'read:targets',
  source: 'exchange',
  sealed: 'm2m1.sealed'
}

function listing(json: string | undefined, bytes: number, count = 3): Listing {
  return { file: '/runner/temp/targets-abc.json', listed: count, count, bytes, json, preview: [] }
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
    publish(token, { listing: listing('[1,2,3]', 7), shardCount: 2 }, undefined)
    expect(outputs()).toEqual({
      token: 'header.payload.sig',
      'token-type': 'Bearer',
      'token-source': 'exchange',
      'expires-in': '86400',
      'expires-at': '2026-11-23T06:00:00Z',
      scope: 'read:targets',
      'sealed-token': 'm2m1.sealed',
      targets: '[1,2,3]',
      'target-count': '3',
      'targets-file': '/runner/temp/targets-abc.json',
      shards: '["1/2","2/2"]'
    })
    expect(warnings()).toEqual([])
  })

  it('sets shards to [] for an empty listing, so a workflow can skip its matrix', () => {
    publish(token, { listing: listing('[]', 2, 0), shardCount: 0 }, undefined)
    expect(outputs()).toMatchObject({ shards: '[]', targets: '[]', 'target-count': '0' })
  })

  it('sets no target outputs when targets were not listed', () => {
    publish(token, undefined, undefined)
    expect(Object.keys(outputs())).not.toContain('targets')
    expect(Object.keys(outputs())).not.toContain('shards')
  })

  it('warns over 128 KiB, naming the env limit, and still sets targets', () => {
    const json = `[${'1,'.repeat(ENV_VALUE_BYTES / 2)}1]`
    publish(token, { listing: listing(json, Buffer.byteLength(json)), shardCount: 1 }, undefined)
    expect(outputs().targets).toBe(json)
    expect(warnings()).toEqual([
      expect.stringMatching(
        /^::warning::The targets output is 128 KiB: an env value over 128 KiB makes the next step fail \("Argument list too long"\).*targets-file.*shards/
      )
    ])
  })

  it('does not warn at exactly 128 KiB', () => {
    publish(token, { listing: listing('[]', ENV_VALUE_BYTES), shardCount: 1 }, undefined)
    expect(warnings()).toEqual([])
  })

  it('leaves targets unset over 1 MiB and says so, keeping the count, file and shards', () => {
    publish(token, { listing: listing(undefined, MAX_OUTPUT_BYTES + 1, 9000), shardCount: 90 }, undefined)
    const set = outputs()
    expect(set.targets).toBeUndefined()
    expect(set).toMatchObject({ 'target-count': '9000', 'targets-file': '/runner/temp/targets-abc.json' })
    expect(JSON.parse(set.shards)).toHaveLength(90)
    expect(warnings()).toEqual([expect.stringMatching(/^::warning::The targets output was not set: the list is 1 MiB/)])
  })

  it('exports the token only under the name asked for', () => {
    publish(token, undefined, 'SERVICE_TOKEN')
    expect(readFileCommands(readFileSync(join(dir, 'GITHUB_ENV'), 'utf8'))).toEqual({
      SERVICE_TOKEN: 'header.payload.sig'
    })
  })

  it('never prints outputs when GITHUB_OUTPUT is missing', () => {
    delete process.env.GITHUB_OUTPUT
    publish(token, undefined, undefined)
    expect(written.join('')).not.toContain('header.payload.sig')
    expect(warnings()).toEqual([expect.stringContaining('GITHUB_OUTPUT is not set')])
  })
})
