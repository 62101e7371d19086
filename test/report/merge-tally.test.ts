import { Winner } from '../../src/report/merge-table.js'
import { ReportTally } from '../../src/report/merge-tally.js'
import { keyHash } from '../../src/targets/key-table.js'
import { shardOf } from '../../src/targets/shards.js'

const winner = (outcome: Winner['outcome'], status: number | null, runAttempt: number | null, seq = 1): Winner => ({
  outcome,
  status,
  runAttempt,
  seq
})
const add = (tally: ReportTally, key: string, w: Winner) => tally.add(key, keyHash(key), w)
const counts = (map: ReadonlyMap<string, number>) => Object.fromEntries(map)

describe('ReportTally', () => {
  it("returns each target's report line, placed in its shard as the shard input places it", () => {
    const tally = new ReportTally(7)
    for (const key of ['a', 'b', 'ü-1', 't-42']) {
      expect(add(tally, key, winner('succeeded', 201, 2))).toEqual({
        key,
        outcome: 'succeeded',
        status: 201,
        runAttempt: 2,
        shard: `${shardOf({ id: key }, 7)}/7`
      })
    }
    expect(tally.targets).toBe(4)
  })

  it('counts by outcome, and by status every target whose call was made', () => {
    const tally = new ReportTally(1)
    add(tally, 'a', winner('succeeded', 200, 1))
    add(tally, 'b', winner('succeeded', 200, 2))
    add(tally, 'c', winner('skipped', 201, 1))
    add(tally, 'd', winner('failed', 500, 1))
    add(tally, 'e', winner('unknown', null, 1))
    add(tally, 'f', winner('not-made', null, 1))
    add(tally, 'g', winner('missing', null, null, 0))
    expect(counts(tally.counts)).toEqual({
      succeeded: 2,
      skipped: 1,
      failed: 1,
      unknown: 1,
      'not-made': 1,
      missing: 1
    })
    expect(counts(tally.byStatus)).toEqual({ 'HTTP 200': 2, 'HTTP 201': 1, 'HTTP 500': 1, 'no response': 1 })
    expect(tally.targets).toBe(7)
  })

  it('names the statuses in the order first seen', () => {
    const tally = new ReportTally(1)
    add(tally, 'a', winner('unknown', null, 1))
    add(tally, 'b', winner('failed', 503, 1))
    add(tally, 'c', winner('succeeded', 200, 1))
    add(tally, 'd', winner('failed', 503, 2))
    expect([...tally.byStatus]).toEqual([
      ['no response', 1],
      ['HTTP 503', 2],
      ['HTTP 200', 1]
    ])
  })

  it('keeps the first 50 failed or unknown targets, with their line', () => {
    const tally = new ReportTally(1)
    add(tally, 's', winner('succeeded', 200, 1, 1))
    add(tally, 'u', winner('unknown', null, 3, 2))
    for (let i = 0; i < 60; i++) add(tally, `f${i}`, winner('failed', 500, 1, i + 3))
    expect(tally.failures).toHaveLength(50)
    expect(tally.failures[0]).toEqual({ key: 'u', status: null, outcome: 'unknown', runAttempt: 3, seq: 2 })
    expect(tally.failures[1]).toEqual({ key: 'f0', status: 500, outcome: 'failed', runAttempt: 1, seq: 3 })
    expect(tally.failures[49].key).toBe('f48')
    expect(counts(tally.counts)).toEqual({ succeeded: 1, unknown: 1, failed: 60 })
  })

  it('lists the shards that hold a target, in order, with their counts', () => {
    const tally = new ReportTally(4)
    const keys = Array.from({ length: 200 }, (_, i) => `t-${i}`)
    const inShard = (k: number) => keys.filter(key => shardOf({ id: key }, 4) === k)
    for (const key of [...inShard(3), ...inShard(1)]) add(tally, key, winner('succeeded', 200, 1))
    add(tally, inShard(4)[0], winner('missing', null, null, 0))
    add(tally, inShard(4)[1], winner('failed', 500, 1))
    expect(tally.shards().map(row => [row.shard, counts(row.counts)])).toEqual([
      ['1/4', { succeeded: inShard(1).length }],
      ['3/4', { succeeded: inShard(3).length }],
      ['4/4', { missing: 1, failed: 1 }]
    ])
  })

  it('has no shard row before a target is added', () => {
    expect(new ReportTally(3).shards()).toEqual([])
  })

  it('without a shard count, counts every target and names no shard, in a line or a row', () => {
    const tally = new ReportTally(undefined)
    for (const key of ['a', 'b', 'c', 'd']) {
      expect(add(tally, key, winner('missing', null, null, 0))).toEqual({
        key,
        outcome: 'missing',
        status: null,
        runAttempt: null,
        shard: null
      })
    }
    expect(counts(tally.counts)).toEqual({ missing: 4 })
    expect(tally.shards()).toEqual([])
  })
})
