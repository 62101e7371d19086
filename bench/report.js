// npm run bench (fourth part): the report over every shard (report-from). A snapshot of 1,000,000
// targets and 256 results files, one per shard as each shard job's artifact holds it (in a folder
// of its own, as actions/download-artifact lays them out), with a few failures and a shard re-run
// in a second attempt; dist/index.js reads them in report mode with targets-from and
// targets-digest: no credentials, no base-url, no request. Goals (issue 22): under 10 s and under
// 200 MiB peak RSS. Medians of BENCH_REPORT_RUNS runs; exits 1 on a missed goal, naming it.
import { createHash } from 'node:crypto'
import { createReadStream, createWriteStream, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseFileCommands, root } from '../demo/runner.js'
import { measuredRun, runnerEnv } from './measure.js'

const RUNS = Number(process.env.BENCH_REPORT_RUNS || 3)
const COUNT = 1_000_000
const SHARDS = 256
const FAILED_EVERY = 20_011 // about 50 failures
const action = process.env.BENCH_ACTION || join(root, 'dist', 'index.js')
const dir = mkdtempSync(join(tmpdir(), 'm2m-bench-report-'))
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

async function write(path, lines) {
  const out = createWriteStream(path)
  for (const line of lines()) if (!out.write(line)) await new Promise(resolve => out.once('drain', resolve))
  await new Promise(resolve => out.end(resolve))
}

const snapshot = join(dir, 'targets.json')
await write(snapshot, function* () {
  yield '[\n'
  for (let i = 0; i < COUNT; i++) yield `{"id":"t-${i}","name":"target-${i}"}${i + 1 < COUNT ? ',' : ''}\n`
  yield ']\n'
})
const hash = createHash('sha256')
for await (const chunk of createReadStream(snapshot)) hash.update(chunk)
const digest = `sha256:${hash.digest('hex')}`

// Each shard's targets, in listing order: one pass over the keys, kept as indexes.
const byShard = Array.from({ length: SHARDS }, () => [])
for (let i = 0; i < COUNT; i++) byShard[shardOf(`t-${i}`) - 1].push(i)
const line = (i, shard, index, runAttempt, failed) =>
  `{"key":"t-${i}","call":"${CALL}","outcome":"${failed ? 'failed' : 'succeeded'}","status":${failed ? 500 : 201},` +
  `"runAttempt":${runAttempt},"shard":"${shard}/${SHARDS}","index":${index},"id":"t-${i}","attempts":${failed ? 3 : 1},` +
  `"ms":${failed ? 240 : 3},` +
  (failed
    ? `"body":{"error":"internal","detail":"scan of t-${i} failed"}}\n`
    : `"body":{"scan":"s-${i}","state":"queued"}}\n`)
const results = join(dir, 'results')
for (let k = 1; k <= SHARDS; k++) {
  const folder = join(results, `results-${k}-of-${SHARDS}`)
  mkdirSync(folder, { recursive: true })
  const targets = byShard[k - 1]
  await write(join(folder, 'results.jsonl'), function* () {
    for (let j = 0; j < targets.length; j++) yield line(targets[j], k, j, 1, targets[j] % FAILED_EVERY === 7)
    // Shard 7 was re-run: its second attempt's lines follow, each target skipped or called again.
    if (k === 7) for (let j = 0; j < targets.length; j++) yield line(targets[j], k, j, 2, false)
  })
}
const failedTargets = [...Array(COUNT).keys()].filter(i => i % FAILED_EVERY === 7 && shardOf(`t-${i}`) !== 7).length

const env = () =>
  runnerEnv(
    dir,
    { 'report-from': results, 'targets-from': snapshot, 'targets-digest': digest },
    {
      GITHUB_RUN_ID: '1',
      GITHUB_RUN_ATTEMPT: '1'
    }
  )

const measure = () => measuredRun(action, env())

const samples = []
await measure() // warm the file cache
for (let i = 0; i < RUNS; i++) samples.push(await measure())
const last = samples[samples.length - 1]
const outputs = parseFileCommands(readFileSync(join(dir, 'output'), 'utf8'))
const summaryBytes = Buffer.byteLength(readFileSync(join(dir, 'summary'), 'utf8'))
rmSync(dir, { recursive: true, force: true })

// The failures make the step fail, naming them: anything else means the report did not run.
const expected = `${failedTargets.toLocaleString('en-US')} failed, 0 unknown, 0 not made, 0 missing of 1,000,000 targets`
const reported = last.code === 1 && last.log.includes(expected)
const median = values => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]
const ms = median(samples.map(s => s.ms))
const mib = median(samples.map(s => s.mib))
const rows = [
  ['report: 1,000,000 targets, 256 files, counts as expected', reported ? 'yes' : 'no', '', reported],
  ['report: wall', `${(ms / 1000).toFixed(2)} s`, '< 10 s', ms < 10_000],
  ['report: peak RSS', `${mib.toFixed(0)} MiB`, '< 200 MiB', mib < 200],
  ['report: summary size', `${(summaryBytes / 1024).toFixed(0)} KiB`, '< 1 MiB', summaryBytes < 1024 * 1024]
]
console.log(`\nReport (report-from), Node ${process.version}, medians of ${RUNS} runs`)
for (const [name, value, goal, met] of rows)
  console.log(`${met ? ' ' : '!'} ${name.padEnd(56)} ${value.padStart(12)}  ${goal}`)
if (!reported) console.error(`Expected exit code 1 and "${expected}"; got ${last.code}:\n${last.log.slice(-2000)}`)
if (Object.keys(outputs).length === 0) console.error('The action set no output')
const missed = rows.filter(r => !r[3])
if (missed.length > 0) {
  console.error(`Missed: ${missed.map(r => r[0]).join('; ')}`)
  process.exit(1)
}
