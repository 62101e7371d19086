// The report over every shard (report-from): a snapshot of `count` targets and 256 results files,
// one per shard in a folder of its own (as actions/download-artifact lays them out), with about
// one failure in 20,000 and shard 7 re-run in a second attempt. The action reads them with
// targets-from and targets-digest (no credentials, no request); the baseline is the reference
// build (dist/ of a fixed commit, extracted with git archive) over the same files, interleaved.
// Both must find the failures and fail the step naming the counts.
import { createHash } from 'node:crypto'
import { createReadStream, mkdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { envFor, interleaved, node, paired, runnerEnv, snapshotLines, stats, writeLines } from '../lib.js'

const SHARDS = 256
const FAILED_EVERY = 20_011
const CALL = '0123456789abcdef'

// The shard of a key (src/targets/shards.ts): fmix32(fnv1a32(utf8(key))) mod N, plus 1. Keys here are ASCII.
function shardOf(key) {
  let h = 0x811c9dc5
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193)
  h >>>= 0
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b)
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35)
  return (((h ^ (h >>> 16)) >>> 0) % SHARDS) + 1
}

const line = (i, shard, index, runAttempt, failed) =>
  `{"key":"t-${i}","call":"${CALL}","outcome":"${failed ? 'failed' : 'succeeded'}","status":${failed ? 500 : 201},` +
  `"runAttempt":${runAttempt},"shard":"${shard}/${SHARDS}","index":${index},"id":"t-${i}","attempts":${failed ? 3 : 1},` +
  `"ms":${failed ? 240 : 3},` +
  (failed ? `"body":{"error":"internal","detail":"scan of t-${i} failed"}}\n` : `"body":{"scan":"s-${i}"}}\n`)

/** The snapshot, its digest, the results folder and the count of failures a report must find. */
async function records(dir, count) {
  const snapshot = join(dir, 'targets.json')
  await writeLines(
    snapshot,
    snapshotLines(count, i => `{"id":"t-${i}","name":"target-${i}"}`)
  )
  const hash = createHash('sha256')
  for await (const chunk of createReadStream(snapshot)) hash.update(chunk)
  const byShard = Array.from({ length: SHARDS }, () => [])
  for (let i = 0; i < count; i++) byShard[shardOf(`t-${i}`) - 1].push(i)
  const results = join(dir, 'results')
  let failed = 0
  for (let k = 1; k <= SHARDS; k++) {
    const folder = join(results, `results-${k}-of-${SHARDS}`)
    mkdirSync(folder, { recursive: true })
    const targets = byShard[k - 1]
    // The report runs as attempt 1: shard 7's second attempt is a later one, its lines not counted.
    failed += targets.filter(i => i % FAILED_EVERY === 7).length
    await writeLines(join(folder, 'results.jsonl'), function* () {
      for (let j = 0; j < targets.length; j++) yield line(targets[j], k, j, 1, targets[j] % FAILED_EVERY === 7)
      if (k === 7) for (let j = 0; j < targets.length; j++) yield line(targets[j], k, j, 2, false)
    })
  }
  return { snapshot, digest: `sha256:${hash.digest('hex')}`, results, failed }
}

export async function report({ dist, dir, rounds, sizes, reference }) {
  const referenceDist = reference()
  const rows = []
  for (const [count, name] of [
    [sizes.reportSmall, '1m'],
    [sizes.report, '5m']
  ]) {
    const at = join(dir, name)
    mkdirSync(at, { recursive: true })
    const { snapshot, digest, results, failed } = await records(at, count)
    const expected = `${failed.toLocaleString('en-US')} failed, 0 unknown, 0 not made, 0 missing of ${count.toLocaleString('en-US')} targets`
    const run = build => async () => {
      const env = runnerEnv(at, { 'report-from': results, 'targets-from': snapshot, 'targets-digest': digest })
      const r = await node(join(build, 'root.js'), envFor(build, env), [1])
      if (!r.log.includes(expected)) throw new Error(`${build}: no "${expected}" in ${r.log.slice(-1000)}`)
      return r
    }
    await run(referenceDist)() // warm the file cache
    await run(dist)()
    const runs = await interleaved(rounds, run(referenceDist), run(dist))
    rmSync(at, { recursive: true, force: true })
    const what = `report ${count.toLocaleString('en-US')} targets in ${SHARDS} files`
    const m = (list, pick) => stats(list.map(pick)).median
    const ref = `reference (${m(runs.baseline, r => r.ms / 1000).toFixed(2)} s, ${m(runs.baseline, r => r.mib).toFixed(0)} MiB, CPU ${m(runs.baseline, r => r.cpuMs / 1000).toFixed(2)} s)`
    rows.push(
      {
        id: name === '1m' ? 'report-1m-wall' : undefined,
        label: `${what}: wall`,
        values: runs.action.map(r => r.ms / 1000),
        unit: 's',
        beside: ref
      },
      {
        id: `report-${name}-rss`,
        label: `${what}: peak RSS`,
        values: runs.action.map(r => r.mib),
        unit: 'MiB',
        beside: `reference ${m(runs.baseline, r => r.mib).toFixed(0)} MiB`
      },
      {
        id: name === '5m' ? 'report-5m-cpu' : undefined,
        label: `${what}: CPU, action / reference build`,
        values: paired(runs.action, runs.baseline, r => r.cpuMs),
        unit: '×',
        beside: `action CPU ${m(runs.action, r => r.cpuMs / 1000).toFixed(2)} s`
      }
    )
  }
  return rows
}
