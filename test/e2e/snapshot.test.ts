import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { clientInputs, expectFailure, json, runAction, startServer, TestServer, TOKEN } from './harness.js'

// One listing per run: a list step writes targets-file and its digest; shard steps read that file
// with targets-from and make no listing request.
let idp: TestServer
let api: TestServer
let body: string
let dir: string
const PER_PAGE = 100

beforeAll(async () => {
  idp = await startServer((_req, res) =>
    json(res, 200, { access_token: TOKEN, expires_in: 86400, token_type: 'Bearer' })
  )
  // Pages of the raw text in `body` (a JSON array), so numbers reach the action exactly as written.
  api = await startServer((req, res) => {
    const all = splitArray(body)
    const page = Number(new URL(req.url, 'http://x').searchParams.get('page') ?? 1)
    const slice = all.slice((page - 1) * PER_PAGE, page * PER_PAGE)
    const next = page * PER_PAGE < all.length ? `"/v1/targets?page=${page + 1}"` : 'null'
    json(res, 200, `{"data":[${slice.join(',')}],"next":${next}}`)
  })
})
afterAll(async () => {
  await Promise.all([idp.close(), api.close()])
})
beforeEach(() => {
  idp.requests.length = 0
  api.requests.length = 0
  dir = mkdtempSync(join(tmpdir(), 'm2m-snapshot-'))
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

/** The elements of a flat JSON array of objects, as text. */
function splitArray(text: string): string[] {
  return text.length <= 2 ? [] : text.slice(1, -1).split(/(?<=\}),(?=\{)/)
}
const inputs = (extra: Record<string, string> = {}) => clientInputs(idp.url, api.url, extra)
const listingRequests = () => api.requests.filter(r => r.url.startsWith('/v1/targets')).length

/** Runs the list step and keeps its targets file, as upload-artifact would, in `dir/artifact/`. */
async function list(extra: Record<string, string> = {}) {
  const run = await runAction(inputs({ 'targets-output': 'false', ...extra }))
  try {
    expect(run.code).toBe(0)
    mkdirSync(join(dir, 'artifact'))
    const copy = join(dir, 'artifact', 'targets.json')
    copyFileSync(run.outputs['targets-file'], copy)
    return { outputs: run.outputs, stdout: run.stdout, copy }
  } finally {
    run.cleanup()
  }
}

describe('targets-from: one listing per run', () => {
  it('splits a snapshot of targets with and without ids exactly, with no listing request from any shard', async () => {
    const targets = [
      ...Array.from({ length: 150 }, (_, i) => `{"id":"host-${i}","last_seen":${i}}`),
      ...Array.from({ length: 100 }, (_, i) => `{"name":"no id ${i}","last_seen":${i}}`),
      ...Array.from({ length: 50 }, (_, i) => `{"id":90071992547409${String(i).padStart(2, '0')}93,"n":1.50}`)
    ]
    body = `[${targets.join(',')}]`
    const listed = await list({ 'shard-size': '60' })
    expect(listed.outputs).not.toHaveProperty('targets')
    expect(listed.stdout).not.toContain('::warning::')
    expect(listed.outputs['targets-digest']).toMatch(/^sha256:[0-9a-f]{64}$/)
    const shards: string[] = JSON.parse(listed.outputs.shards)
    expect(shards).toHaveLength(5)
    const before = listingRequests()
    expect(before).toBe(3)

    const seen: string[] = []
    for (const shard of shards) {
      const run = await runAction(
        inputs({
          shard,
          'targets-from': join(dir, 'artifact'),
          'targets-digest': listed.outputs['targets-digest'],
          'sealed-token': listed.outputs['sealed-token']
        })
      )
      try {
        expect(run.code).toBe(0)
        expect(run.stdout).not.toContain('::warning::')
        const kept = splitArray(readFileSync(run.outputs['targets-file'], 'utf8').replace(/\n/g, ''))
        expect(run.outputs['target-count']).toBe(String(kept.length))
        expect(run.outputs.targets).toBe(`[${kept.join(',')}]`)
        expect(run.outputs).not.toHaveProperty('targets-digest')
        expect(run.summary).toContain('of 300 targets, from targets-from')
        seen.push(...kept)
      } finally {
        run.cleanup()
      }
    }
    expect(listingRequests()).toBe(before) // no shard listed
    expect(idp.requests).toHaveLength(1) // nor exchanged: the sealed token served every shard
    expect(seen.sort()).toEqual([...targets].sort()) // every target exactly once, byte for byte
  })

  it('keeps numeric ids exactly as sent in targets, targets-file and the summary', async () => {
    body =
      '[{"id":9007199254740993},{"id":9007199254740992},{"id":1234567890123456789},{"id":-0},{"id":1e400},{"id":2.50}]'
    const run = await runAction(inputs())
    try {
      expect(run.code).toBe(0)
      expect(run.outputs.targets).toBe(body)
      expect(readFileSync(run.outputs['targets-file'], 'utf8')).toBe(`[\n${splitArray(body).join(',\n')}\n]\n`)
      for (const id of ['9007199254740993', '9007199254740992', '1234567890123456789', '1e400', '2.50']) {
        expect(run.summary).toContain(`| ${id} |`)
      }
    } finally {
      run.cleanup()
    }
  })

  it('warns when shard steps list again and some targets have no id', async () => {
    body = '[{"id":"a"},{"name":"b"},{"name":"c"}]'
    const run = await runAction(inputs({ shard: '1/2' }))
    try {
      expect(run.code).toBe(0)
      expect(run.stdout).toContain(
        '::warning::2 listed targets of 3 have no string or number id, so each shard job places them by their JSON'
      )
      // and, given no sealed-token, that every shard job spends a token of the provider's quota
      expect(run.stdout).toContain(
        "::warning::This shard job exchanges client credentials for its own token: every shard job of the fan-out does, and each exchange counts against the identity provider's quota (Auth0's free plan: 1,000 machine tokens a month)."
      )
    } finally {
      run.cleanup()
    }
  })

  it('reads targets-from without targets-digest with one warning, saying what the digest protects', async () => {
    body = '[{"id":"a"},{"id":"b"}]'
    const listed = await list()
    const run = await runAction(inputs({ 'targets-from': listed.copy }))
    try {
      expect(run.code).toBe(0)
      expect(listingRequests()).toBe(1)
      expect(run.stdout.split('\n').filter(l => l.startsWith('::warning::'))).toEqual([
        `::warning::Input targets-from ${JSON.stringify(listed.copy)} is read without targets-digest, so nothing checks that it is the listing job's snapshot, unchanged: ` +
          "an edited file, or another run's, would be taken as the targets. Pass the listing step's targets-digest output as targets-digest."
      ])
    } finally {
      run.cleanup()
    }
  })

  it('fails before any request on a file with another digest, naming both', async () => {
    body = '[{"id":"a"}]'
    const listed = await list()
    writeFileSync(listed.copy, '[\n{"id":"b"}\n]\n')
    const requests = idp.requests.length + api.requests.length
    const run = await runAction(
      inputs({ 'targets-from': listed.copy, 'targets-digest': listed.outputs['targets-digest'] })
    )
    try {
      expectFailure(
        run,
        new RegExp(
          `^::error::Input targets-from: .* has the digest sha256:[0-9a-f]{64}, not ${listed.outputs['targets-digest']} \\(targets-digest\\)\\. .*another run or run attempt`
        )
      )
      expect(idp.requests.length + api.requests.length).toBe(requests)
    } finally {
      run.cleanup()
    }
  })

  it.each([
    [
      'a missing file',
      (d: string) => join(d, 'nope.json'),
      /^::error::Input targets-from: .*nope\.json does not exist/
    ],
    [
      'a directory with none',
      (d: string) => d,
      /^::error::Input targets-from: the directory .* must hold exactly one \.json targets file \(found none\)/
    ],
    [
      'a directory with two',
      (d: string) => (writeFileSync(join(d, 'a.json'), '[]'), writeFileSync(join(d, 'b.json'), '[]'), d),
      /found a\.json, b\.json/
    ],
    [
      'an object',
      (d: string) => (writeFileSync(join(d, 't.json'), '{"targets":[]}'), join(d, 't.json')),
      /is not a JSON array of targets \(it does not start with \[\)/
    ],
    [
      'a device',
      () => '/dev/null',
      /^::error::Input targets-from: \/dev\/null is neither a file nor a directory \(a device\)/
    ],
    [
      'nested 100,000 deep',
      (d: string) => (
        writeFileSync(join(d, 't.json'), `[${'['.repeat(100_000)}${']'.repeat(100_000)}]`),
        join(d, 't.json')
      ),
      /^::error::Input targets-from: the file nests JSON more than 512 levels deep in target 1/
    ],
    [
      'a truncated array',
      (d: string) => (writeFileSync(join(d, 't.json'), '[\n{"id":1},\n{"id"'), join(d, 't.json')),
      /ends before its JSON array does: the file is truncated/
    ],
    [
      'invalid JSON inside',
      (d: string) => (writeFileSync(join(d, 't.json'), '[{"id":1},{id:2}]'), join(d, 't.json')),
      /is not valid JSON near target 1/
    ],
    [
      'an empty file',
      (d: string) => (writeFileSync(join(d, 't.json'), ''), join(d, 't.json')),
      /is empty: it is not a JSON array of targets/
    ],
    [
      'targets the call cannot be made for',
      (d: string) => (writeFileSync(join(d, 't.json'), '[{"id":"a"},{"name":"b"}]'), join(d, 't.json')),
      /^::error::Input call: 1 of 2 targets cannot fill its placeholders, so no call was made: target #2 lacks \{id\}/
    ]
  ])('fails before any request on %s, naming the input', async (_what, make, message) => {
    const path = make(dir)
    const run = await runAction(inputs({ 'targets-from': path, call: 'DELETE /v1/t/{id}' }))
    try {
      expectFailure(run, message)
      expect(idp.requests).toHaveLength(0)
      expect(api.requests).toHaveLength(0)
    } finally {
      run.cleanup()
    }
  })
})
