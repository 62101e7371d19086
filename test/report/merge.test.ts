import { createHash } from 'node:crypto'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { mergeResults, MergeOptions, ReportOutcome } from '../../src/report/merge.js'
import { LineFields } from '../../src/routine/lines.js'
import { mask } from '../../src/secrets.js'
import { FP, line } from '../helpers.js'
import { shardOf } from '../../src/targets/shards.js'
import { compileSelection } from '../../src/targets/select.js'

let dir: string
let temp: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'm2m-merge-'))
  temp = join(dir, 'temp')
  mkdirSync(temp)
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

const OTHER = 'fedcba9876543210'

/** A results file in the report-from folder, in a folder of its own as download-artifact makes them. */
const file = (name: string, lines: string[], end = '\n') => {
  const path = join(dir, 'results', name)
  mkdirSync(join(path, '..'), { recursive: true })
  writeFileSync(path, lines.join('\n') + end)
  return path
}
const keys = (n: number, prefix = 't-') => Array.from({ length: n }, (_, i) => `${prefix}${i}`)
const snapshot = (ids: string[]) => {
  const path = join(dir, 'targets.json')
  writeFileSync(path, `[\n${ids.map(id => JSON.stringify({ id })).join(',\n')}\n]\n`)
  return path
}

async function merge(overrides: Partial<MergeOptions> = {}) {
  const infos: string[] = []
  const warnings: string[] = []
  const report = await mergeResults({
    from: join(dir, 'results'),
    dir: temp,
    info: m => infos.push(m),
    warning: m => warnings.push(m),
    ...overrides
  })
  const reported = readFileSync(report.reportFile, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map(
      l =>
        JSON.parse(l) as {
          key: string
          outcome: ReportOutcome
          status: number | null
          runAttempt: number | null
          shard: string
        }
    )
  return { report, infos, warnings, reported }
}
const counts = (map: ReadonlyMap<string, number>) => Object.fromEntries(map)

describe('mergeResults', () => {
  it.each<[string, string[][], ReportOutcome, number]>([
    ['attempt 2 after attempt 1', [['1 a succeeded', '2 a failed']], 'failed', 2],
    ['attempt 2 read before attempt 1', [['2 a failed'], ['1 a succeeded']], 'failed', 2],
    ['a later line of the same attempt', [['1 a failed', '1 a succeeded']], 'succeeded', 1],
    ['a later line of the same attempt, in a later file', [['1 a succeeded'], ['1 a unknown']], 'unknown', 1],
    ['attempt 12 before attempt 3', [['12 a skipped', '3 a failed']], 'skipped', 12]
  ])('lets the newest line win: %s', async (_, files, outcome, attempt) => {
    files.forEach((lines, i) =>
      file(
        `r${i}.jsonl`,
        lines.map(text => {
          const [n, key, o] = text.split(' ')
          return line(key, o as LineFields['outcome'], o === 'unknown' ? null : 200, { attempt: Number(n) })
        })
      )
    )
    const { report, reported } = await merge({ fingerprint: FP })
    expect(reported).toEqual([
      { key: 'a', outcome, status: outcome === 'unknown' ? null : 200, runAttempt: attempt, shard: '1/1' }
    ])
    expect(report.targets).toBe(1)
  })

  it('accounts for every target of a snapshot once: a shard re-run, a shard with failures, a shard absent', async () => {
    const ids = keys(600)
    const shardOfKey = (id: string) => shardOf({ id }, 6)
    const of = (k: number) => ids.filter(id => shardOfKey(id) === k)
    for (const k of [1, 2, 4, 5, 6]) {
      const shard = `${k}/6`
      file(
        `results-${k}/results.jsonl`,
        of(k).map((id, i) =>
          k === 2 && i < 3
            ? line(id, 'failed', 500, { shard, body: '"body":{"error":"boom"}' })
            : k === 4 && i < 5
              ? line(id, 'unknown', null, { shard, error: 'the connection closed after the request was sent' })
              : line(id, 'succeeded', 201, { shard })
        )
      )
    }
    // Shard 4 again, attempt 2: four of its five unknown targets now succeed, one fails.
    file('results-4-attempt-2/results.jsonl', [
      ...of(4)
        .slice(0, 4)
        .map(id => line(id, 'succeeded', 201, { shard: '4/6', attempt: 2 })),
      line(of(4)[4], 'failed', 409, { shard: '4/6', attempt: 2, error: 'conflict' }),
      ...of(4)
        .slice(5)
        .map(id => line(id, 'skipped', 201, { shard: '4/6', attempt: 2 }))
    ])
    const { report, reported, warnings } = await merge({ snapshot: snapshot(ids) })
    expect(warnings).toEqual([])
    expect(report.targets).toBe(600)
    expect(report.complete).toBe(true)
    const missing = of(3).length
    const skipped = of(4).length - 5
    expect(counts(report.counts)).toEqual({
      succeeded: 600 - missing - 3 - 1 - skipped,
      skipped,
      failed: 4,
      missing
    })
    expect(reported.map(r => r.key)).toEqual(ids)
    expect(reported.filter(r => r.outcome === 'missing')).toEqual(
      of(3).map(key => ({ key, outcome: 'missing', status: null, runAttempt: null, shard: '3/6' }))
    )
    expect(reported.find(r => r.key === of(4)[0])).toEqual({
      key: of(4)[0],
      outcome: 'succeeded',
      status: 201,
      runAttempt: 2,
      shard: '4/6'
    })
    expect(report.shardCount).toBe(6)
    expect(report.shards.map(s => s.shard)).toEqual(['1/6', '2/6', '3/6', '4/6', '5/6', '6/6'])
    expect(counts(report.shards[2].counts)).toEqual({ missing })
    expect(counts(report.shards[1].counts)).toEqual({ succeeded: of(2).length - 3, failed: 3 })
    expect(report.missingShards).toEqual(['3/6'])
    expect(report.shardsToRerun).toEqual(['2/6', '3/6', '4/6'])
    expect(report.failures).toEqual(
      [
        ...of(2)
          .slice(0, 3)
          .map(key => ({ key, status: 'HTTP 500', outcome: 'failed', said: 'boom' })),
        { key: of(4)[4], status: 'HTTP 409', outcome: 'failed', said: 'conflict' }
      ].sort((a, b) => ids.indexOf(a.key) - ids.indexOf(b.key))
    )
    expect(counts(report.byStatus)).toEqual({ 'HTTP 201': 600 - missing - 4, 'HTTP 500': 3, 'HTTP 409': 1 })
    expect(report).toMatchObject({ files: 6, lines: 600 - missing + of(4).length, fingerprint: FP, notInSnapshot: 0 })
  })

  it('writes the report file 0600 in the folder given, one line per target', async () => {
    file('r.jsonl', [line('a', 'succeeded', 200)])
    const { report } = await merge()
    expect(readdirSync(temp)).toEqual([report.reportFile.slice(temp.length + 1)])
    expect(report.reportFile).toMatch(/[/\\]report-[0-9a-f]{12}\.jsonl$/)
    expect(statSync(report.reportFile).mode & 0o777).toBe(0o600)
  })

  it("counts another call's lines in one warning, naming at most five files, and does not count them", async () => {
    for (let i = 0; i < 7; i++) file(`other-${i}.jsonl`, [line(`o${i}`, 'failed', 500, { call: OTHER })])
    file('mine.jsonl', [
      line('a', 'succeeded', 200),
      line('b', 'succeeded', 200),
      line('o1', 'succeeded', 200, { call: OTHER })
    ])
    const { report, warnings, infos } = await merge({ fingerprint: FP })
    const named = ['mine', 'other-0', 'other-1', 'other-2', 'other-3']
      .map(f => `"${join(dir, 'results', `${f}.jsonl`)}"`)
      .join(', ')
    expect(warnings).toEqual([
      `8 result lines are of another call (another method, path, body or base-url) and are not counted, in 8 files: ${named} and 3 more`
    ])
    expect(infos).toEqual([])
    expect(counts(report.counts)).toEqual({ succeeded: 2 })
    expect(report.otherCallLines).toBe(8)
  })

  it('reports the call most lines are of when no call is given, and says so', async () => {
    file('a.jsonl', [
      line('a', 'succeeded', 200, { call: OTHER }),
      line('b', 'succeeded', 200),
      line('c', 'failed', 500)
    ])
    const { report, infos, warnings } = await merge()
    expect(report.fingerprint).toBe(FP)
    expect(infos).toEqual([
      `The report is of call ${FP}, the call of 2 of 3 result lines (give the step's call input to choose it)`
    ])
    expect(warnings).toHaveLength(1)
    expect(report.targets).toBe(2)
  })

  it('names a file with a line that is not a result line, and counts none of its lines', async () => {
    const bad = file('bad.jsonl', [line('a', 'succeeded', 200), 'not json', line('b', 'succeeded', 200)])
    file('good.jsonl', [line('c', 'succeeded', 200)])
    const { report, warnings, reported } = await merge({ snapshot: snapshot(['a', 'b', 'c']) })
    expect(warnings).toEqual([
      `"${bad}" line 2 is not a result line of this action: it should be one JSON object naming key, call, outcome, status, runAttempt and shard once each, in the shapes docs/routine.md gives: none of its lines are counted in the report`
    ])
    expect(reported.map(r => r.outcome)).toEqual(['missing', 'missing', 'succeeded'])
    expect(report.unreadable).toEqual([bad])
    expect(report).toMatchObject({ files: 2, lines: 1 })
  })

  it('warns of torn last lines in one warning and counts the lines before them', async () => {
    const a = file('a.jsonl', [line('a', 'succeeded', 200), '{"key":"b","ca'], '')
    const b = file('b.jsonl', [line('c', 'failed', 500), '{"key"'], '')
    const { report, warnings } = await merge()
    expect(warnings).toEqual([
      `2 results files end in a torn line (a writer stopped mid-line), which is ignored: "${a}", "${b}"`
    ])
    expect(counts(report.counts)).toEqual({ succeeded: 1, failed: 1 })
  })

  it("ignores a dry run's planned lines", async () => {
    file('r.jsonl', [line('a', 'failed', 500), line('a', 'planned', null, { attempt: 2 }), line('b', 'planned', null)])
    file('s.jsonl', [line('c', 'planned', null, { call: OTHER })])
    const { report, reported, warnings } = await merge()
    expect(reported).toEqual([{ key: 'a', outcome: 'failed', status: 500, runAttempt: 1, shard: '1/1' }])
    expect(report.targets).toBe(1)
    expect(warnings).toEqual([])
  })

  it('reports nothing of a folder holding only a plan', async () => {
    file('plan.jsonl', [line('a', 'planned', null), line('b', 'planned', null, { call: OTHER })])
    const { report, reported, warnings, infos } = await merge()
    expect([reported, warnings, infos]).toEqual([[], [], []])
    expect(report).toMatchObject({ targets: 0, lines: 2, fingerprint: undefined, otherCallLines: 0 })
  })

  it('without a snapshot reports the distinct keys of the files, and cannot see missing targets', async () => {
    file('1.jsonl', [line('a', 'failed', 500, { shard: '1/2' }), line('b', 'succeeded', 200, { shard: '2/2' })])
    file('2.jsonl', [
      line('a', 'succeeded', 200, { attempt: 2, shard: '1/2' }),
      line('c', 'not-made', null, { shard: '1/2' })
    ])
    const { report, reported } = await merge()
    expect(report.complete).toBe(false)
    expect(report.targets).toBe(3)
    expect(reported.map(r => [r.key, r.outcome, r.shard])).toEqual([
      ['b', 'succeeded', `${shardOf({ id: 'b' }, 2)}/2`],
      ['a', 'succeeded', `${shardOf({ id: 'a' }, 2)}/2`],
      ['c', 'not-made', `${shardOf({ id: 'c' }, 2)}/2`]
    ])
    expect(counts(report.byStatus)).toEqual({ 'HTTP 200': 2 })
    expect(report.missingShards).toEqual([])
  })

  it('places targets without a line by the shard count given, over what the lines say', async () => {
    file('r.jsonl', [line('a', 'succeeded', 200, { shard: '1/2' })])
    const ids = keys(40)
    const { report, reported } = await merge({ snapshot: snapshot(['a', ...ids]), shardCount: 4 })
    expect(report.shardCount).toBe(4)
    expect(reported.slice(1).map(r => r.shard)).toEqual(ids.map(id => `${shardOf({ id }, 4)}/4`))
    expect(report.missingShards).toEqual(['1/4', '2/4', '3/4', '4/4'])
  })

  it('warns of keys the snapshot does not list, and does not count them', async () => {
    file('r.jsonl', [line('a', 'succeeded', 200), line('x', 'failed', 500), line('y', 'failed', 500)])
    const path = snapshot(['a', 'b'])
    const { report, warnings, reported } = await merge({ snapshot: path })
    expect(warnings).toEqual([
      `2 targets have result lines but are not in ${path} (targets-from), and are not counted: were the shards run over another snapshot?`
    ])
    expect(reported.map(r => r.outcome)).toEqual(['succeeded', 'missing'])
    expect(report.notInSnapshot).toBe(2)
    expect(report.failures).toEqual([])
  })

  it("accounts only for the snapshot's targets the shards' selection keeps", async () => {
    file('results-1-1/r.jsonl', [line('t-1', 'succeeded', 204)])
    const select = await compileSelection('id.endsWith("1")')
    const { report, reported } = await merge({ snapshot: snapshot(['t-0', 't-1', 't-2']), select })
    expect(report.targets).toBe(1)
    expect(report.counts.get('missing')).toBeUndefined()
    expect(reported.map(r => r.key)).toEqual(['t-1'])
    const all = await merge({ snapshot: snapshot(['t-0', 't-1', 't-2']) })
    expect(all.report.counts.get('missing')).toBe(2)
  })

  it('reports a key the snapshot repeats once', async () => {
    const { report, infos, reported } = await merge({ snapshot: snapshot(['a', 'b', 'a']) })
    expect(reported.map(r => r.key)).toEqual(['a', 'b'])
    expect(report.targets).toBe(2)
    expect(infos).toContain(
      `1 target of ${join(dir, 'targets.json')} repeats an earlier target's key: each key is reported once`
    )
  })

  it('reports every target missing, in no shard, when no result line says how many shards there were', async () => {
    file('r.jsonl', [
      line('p', 'planned', null, { shard: '2/6' }),
      line('o', 'failed', 500, { call: OTHER, shard: '2/6' })
    ])
    const { report, warnings, reported } = await merge({ snapshot: snapshot(['a', 'b']), fingerprint: FP })
    expect(warnings).toHaveLength(1)
    expect(counts(report.counts)).toEqual({ missing: 2 })
    expect(report).toMatchObject({ shardCount: undefined, shards: [], shardsToRerun: [], missingShards: [] })
    expect(report).toMatchObject({ found: true, files: 1, lines: 2, countedLines: 0, from: join(dir, 'results') })
    expect(reported.map(r => r.shard)).toEqual([null, null])
  })

  it('takes a run whose lines name no shard for one shard, 1/1', async () => {
    file('r.jsonl', [line('a', 'failed', 500)])
    const { report, reported } = await merge({ snapshot: snapshot(['a', 'b']) })
    expect(report).toMatchObject({ shardCount: 1, shardsToRerun: ['1/1'], missingShards: ['1/1'], countedLines: 1 })
    expect(reported.map(r => r.shard)).toEqual(['1/1', '1/1'])
  })

  it('places targets by the shard count given, whether or not a line was read', async () => {
    const { report } = await merge({ snapshot: snapshot(keys(40)), shardCount: 3 })
    expect(report).toMatchObject({ shardCount: 3, found: false, files: 0, countedLines: 0 })
    expect(report.shardsToRerun).toEqual(['1/3', '2/3', '3/3'])
  })

  it('refuses a snapshot whose digest is not the one given, and leaves no report file', async () => {
    await expect(merge({ snapshot: snapshot(['a']), snapshotDigest: 'sha256:00' })).rejects.toThrow(
      /^Input targets-from: .*targets\.json has digest sha256:[0-9a-f]{64}, not sha256:00 \(targets-digest\)/
    )
    expect(readdirSync(temp)).toEqual([])
  })

  it('keeps the first 50 failures, each with a short, redacted excerpt of its error or body', async () => {
    mask('merge-secret-value-77')
    file('r.jsonl', [
      ...keys(60).map(id =>
        line(id, 'failed', 503, { body: `"body":${JSON.stringify(`${'x'.repeat(300)} merge-secret-value-77`)}` })
      ),
      line('u', 'unknown', null, { error: 'timed out merge-secret-value-77' }),
      line('n', 'failed', 500)
    ])
    const { report } = await merge()
    expect(report.failures).toHaveLength(50)
    expect(report.failures[0]).toEqual({
      key: 't-0',
      status: 'HTTP 503',
      outcome: 'failed',
      said: `${'x'.repeat(160)}…`
    })
    file('s.jsonl', [
      line('u', 'unknown', null, { error: 'timed out merge-secret-value-77' }),
      line('n', 'failed', 500)
    ])
    rmSync(join(dir, 'results', 'r.jsonl'))
    const again = await merge()
    expect(again.report.failures).toEqual([
      { key: 'u', status: 'no response', outcome: 'unknown', said: 'timed out ***' },
      { key: 'n', status: 'HTTP 500', outcome: 'failed', said: '' }
    ])
  })

  it('takes the excerpt from the winning line', async () => {
    file('1.jsonl', [
      line('a', 'failed', 500, { attempt: 2, error: 'second' }),
      line('a', 'failed', 500, { error: 'first' })
    ])
    file('2.jsonl', [line('a', 'failed', 502, { attempt: 2, error: 'third' })])
    const { report } = await merge()
    expect(report.failures).toEqual([{ key: 'a', status: 'HTTP 502', outcome: 'failed', said: 'third' }])
  })

  it('accepts a shard count of 1, over what the lines say', async () => {
    file('r.jsonl', [line('a', 'succeeded', 200, { shard: '3/4' }), line('b', 'failed', 500, { shard: '4/4' })])
    const { report, reported } = await merge({ shardCount: 1 })
    expect(report.shardCount).toBe(1)
    expect(reported.map(r => r.shard)).toEqual(['1/1', '1/1'])
    expect(report.shardsToRerun).toEqual(['1/1'])
  })

  it('says nothing of a snapshot without repeats or keys it lacks', async () => {
    file('r.jsonl', [line('a', 'succeeded', 200), line('b', 'failed', 500)])
    const { report, infos, warnings } = await merge({ snapshot: snapshot(['a', 'b', 'c']), fingerprint: FP })
    expect([infos, warnings]).toEqual([[], []])
    expect(report).toMatchObject({ targets: 3, notInSnapshot: 0 })
  })

  it('counts the targets a snapshot repeats in one line', async () => {
    const path = snapshot(['a', 'b', 'a', 'b', 'a'])
    const { report, infos } = await merge({ snapshot: path })
    expect(infos).toEqual([`3 targets of ${path} repeat an earlier target's key: each key is reported once`])
    expect(report.targets).toBe(2)
  })

  it('warns of one key the snapshot does not list', async () => {
    file('r.jsonl', [line('a', 'succeeded', 200), line('x', 'failed', 500)])
    const path = snapshot(['a'])
    const { report, warnings } = await merge({ snapshot: path })
    expect(warnings).toEqual([
      `1 target has result lines but is not in ${path} (targets-from), and is not counted: were the shards run over another snapshot?`
    ])
    expect(report.notInSnapshot).toBe(1)
  })

  it('reads a snapshot whose digest is the one given', async () => {
    file('r.jsonl', [line('a', 'succeeded', 200)])
    const path = snapshot(['a', 'b'])
    const digest = `sha256:${createHash('sha256').update(readFileSync(path)).digest('hex')}`
    const { report, reported } = await merge({ snapshot: path, snapshotDigest: digest })
    expect(reported.map(r => r.outcome)).toEqual(['succeeded', 'missing'])
    expect(report.complete).toBe(true)
  })

  it.each([0, 257, 1.5])('refuses a shard count of %p', async shardCount => {
    await expect(merge({ shardCount })).rejects.toThrow(`A report's shard count must be 1 to 256, not ${shardCount}`)
  })
})
