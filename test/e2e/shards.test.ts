import { readFileSync } from 'node:fs'
import { ServerResponse } from 'node:http'
import { shardOf } from '../../src/targets/shards.js'
import {
  CLIENT,
  clientInputs,
  expectFailure,
  expectNoLeaks,
  json,
  Received,
  runAction,
  startServer,
  TestServer,
  TOKEN
} from './harness.js'

let idp: TestServer
let api: TestServer
let targets: { id: string; name: string }[]
const PER_PAGE = 200

beforeAll(async () => {
  idp = await startServer((_req, res) =>
    json(res, 200, { access_token: TOKEN, expires_in: 86400, token_type: 'Bearer' })
  )
  api = await startServer((req: Received, res: ServerResponse) => {
    const page = Number(new URL(req.url, 'http://x').searchParams.get('page') ?? 1)
    const next = page * PER_PAGE < targets.length ? `/v1/targets?page=${page + 1}` : null
    json(res, 200, { data: targets.slice((page - 1) * PER_PAGE, page * PER_PAGE), next })
  })
})
afterAll(async () => {
  await Promise.all([idp.close(), api.close()])
})
beforeEach(() => {
  idp.requests.length = 0
  api.requests.length = 0
})

const inputs = (extra: Record<string, string> = {}) => clientInputs(idp.url, api.url, extra)
const make = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `host-${i}`, name: `host ${i}` }))

describe('fan-out over shards end to end', () => {
  it('mints once, then 20 shard steps list with the sealed token and split 10,000 targets exactly', async () => {
    targets = make(10_000)
    const mint = await runAction(inputs({ 'shard-size': '500', summary: 'false' }))
    let sealed: string
    let shards: string[]
    try {
      expect(mint.code).toBe(0)
      shards = JSON.parse(mint.outputs.shards)
      sealed = mint.outputs['sealed-token']
      expect(shards).toEqual(Array.from({ length: 20 }, (_, i) => `${i + 1}/20`))
      expect(mint.outputs['target-count']).toBe('10000')
    } finally {
      mint.cleanup()
    }
    expect(idp.requests).toHaveLength(1)

    const seen = new Map<string, number>()
    for (const shard of shards) {
      const run = await runAction(inputs({ 'sealed-token': sealed, shard, 'shard-size': '500' }))
      try {
        expect(run.code).toBe(0)
        const mine = JSON.parse(readFileSync(run.outputs['targets-file'], 'utf8')) as typeof targets
        expect(JSON.parse(run.outputs.targets)).toEqual(mine)
        expect(run.outputs['target-count']).toBe(String(mine.length))
        expect(run.outputs.shards).toBe(JSON.stringify(shards))
        expect(mine.length).toBeGreaterThan(400)
        expect(mine.length).toBeLessThan(600)
        const [k, n] = shard.split('/').map(Number)
        for (const t of mine) {
          expect(shardOf(t, n)).toBe(k)
          seen.set(t.id, (seen.get(t.id) ?? 0) + 1)
        }
        expect(run.log).toContain(
          `Listed 10,000 targets; shard ${k} of 20 holds ${mine.length.toLocaleString('en-US')} targets`
        )
        expect(run.summary).toContain(`- **Targets**: Shard ${k} of 20: ${mine.length} of 10,000 targets, from`)
        expectNoLeaks(run, [CLIENT.secret, TOKEN])
      } finally {
        run.cleanup()
      }
    }
    expect(idp.requests).toHaveLength(1) // the mint's only: every shard step reused the sealed token
    expect(seen.size).toBe(10_000)
    expect([...seen.values()].every(n => n === 1)).toBe(true)
  }, 180_000) // 21 runs of the action: room for a busy 2-core machine, never a timing assertion

  it('caps the shards at 256 and says why each holds more than shard-size', async () => {
    targets = make(1000)
    const run = await runAction(inputs({ 'shard-size': '2' }))
    try {
      expect(run.code).toBe(0)
      expect(JSON.parse(run.outputs.shards)).toHaveLength(256)
      expect(JSON.parse(run.outputs.shards).at(-1)).toBe('256/256')
      expect(run.log).toContain(
        'The shards output has 256 shards, not 500: a matrix runs at most 256 jobs, so each shard holds about 4 targets, more than shard-size (2).'
      )
    } finally {
      run.cleanup()
    }
  })

  it('gives [] for an empty list, so the matrix job can be skipped', async () => {
    targets = []
    const run = await runAction(inputs())
    try {
      expect(run.code).toBe(0)
      expect(run.outputs).toMatchObject({ shards: '[]', targets: '[]', 'target-count': '0' })
    } finally {
      run.cleanup()
    }
  })

  it.each([
    [
      { shard: '6/5' },
      /^::error::Input shard must be K\/N with 1 <= K <= N <= 256, as in the shards output \(for example 3\/20\), got "6\/5"$/
    ],
    [{ shard: '1/257' }, /^::error::Input shard must be K\/N/],
    [{ shard: '2/4', 'list-targets': 'false' }, /^::error::Input shard needs the targets listed/]
  ])('fails on %j before any request', async (override, message) => {
    targets = make(3)
    const run = await runAction(inputs(override))
    try {
      expectFailure(run, message)
      expect(idp.requests).toHaveLength(0)
      expect(api.requests).toHaveLength(0)
    } finally {
      run.cleanup()
    }
  })
})
