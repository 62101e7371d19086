// npm run bench (third part): reading earlier attempts' results (call-resume-from). The action over
// a snapshot of 1,000,000 targets, all finished in a resume source of 1,000,000 result lines, so
// every target is skipped and no call is made; against the same action and snapshot with no resume
// source, where the first call fails, call-max-failures (1) stops the routine and the other
// 999,999 targets get not-made lines: the same line writing, without the read. The difference is
// the read's cost: goals under 2 s and under 64 MiB of extra peak RSS (issue 21). Medians of
// BENCH_RESUME_RUNS interleaved runs; exits 1 on a missed goal, naming it.
import { createHash } from 'node:crypto'
import { createWriteStream, mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { root } from '../demo/runner.js'
import { measuredRun, runnerEnv } from './measure.js'

const RUNS = Number(process.env.BENCH_RESUME_RUNS || 3)
const COUNT = 1_000_000
const TOKEN = `${Buffer.from('{"alg":"none"}').toString('base64url')}.${Buffer.from('{"exp":4102444800}').toString('base64url')}.c2ln`
const action = process.env.BENCH_ACTION || join(root, 'dist', 'index.js')

const server = createServer((req, res) => {
  req.resume()
  req.on('end', () => res.writeHead(500, { 'Content-Type': 'application/json' }).end('{"error":"no"}'))
})
await new Promise(resolve => server.listen(0, '127.0.0.1', resolve))
const base = `http://127.0.0.1:${server.address().port}`
const dir = mkdtempSync(join(tmpdir(), 'm2m-bench-resume-'))
const CALL = 'POST /v1/targets/{id}/scans'
// The action's fingerprint (src/routine/fingerprint.ts): method, path, body and base-url.
const fingerprint = createHash('sha256')
  .update(JSON.stringify(['POST', '/v1/targets/{id}/scans', '', `${base}/`]))
  .digest('hex')
  .slice(0, 16)

async function write(path, lines) {
  const out = createWriteStream(path)
  for (const line of lines()) if (!out.write(line)) await new Promise(resolve => out.once('drain', resolve))
  await new Promise(resolve => out.end(resolve))
}
const snapshot = join(dir, 'targets.json')
await write(snapshot, function* () {
  yield '[\n'
  for (let i = 0; i < COUNT; i++) yield `{"id":"t-${i}"}${i + 1 < COUNT ? ',' : ''}\n`
  yield ']\n'
})
const earlier = join(dir, 'earlier', 'results-1-1')
mkdirSync(earlier, { recursive: true })
await write(join(earlier, 'results.jsonl'), function* () {
  for (let i = 0; i < COUNT; i++) {
    yield (
      `{"key":"t-${i}","call":"${fingerprint}","outcome":"succeeded","status":201,"runAttempt":1,"shard":null,` +
      `"index":${i},"id":"t-${i}","attempts":1,"ms":3,"body":{"scan":"s-${i}","state":"queued"}}\n`
    )
  }
})
const emptyFolder = join(dir, 'none')
mkdirSync(emptyFolder)

const env = resumeFrom =>
  runnerEnv(
    dir,
    {
      token: TOKEN,
      'base-url': base,
      'targets-from': snapshot,
      'targets-output': 'false',
      summary: 'false',
      call: CALL,
      'call-max-failures': '1',
      'call-resume-from': resumeFrom
    },
    { GITHUB_RUN_ID: '1', GITHUB_RUN_ATTEMPT: '2' }
  )

const measure = resumeFrom => measuredRun(action, env(resumeFrom))

const median = values => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]
const samples = { resumed: [], baseline: [] }
await measure(earlier) // warm the file cache
for (let i = 0; i < RUNS; i++) {
  const resumed = await measure(join(dir, 'earlier'))
  if (resumed.code !== 0) throw new Error(`the resumed run exited ${resumed.code}: every target should be skipped`)
  samples.resumed.push(resumed)
  samples.baseline.push(await measure(emptyFolder))
}
server.close()
rmSync(dir, { recursive: true, force: true })

const ms = kind => median(samples[kind].map(s => s.ms))
const mib = kind => median(samples[kind].map(s => s.mib))
const extraMs = ms('resumed') - ms('baseline')
const extraMib = mib('resumed') - mib('baseline')
const rows = [
  ['resume: 1,000,000 targets skipped, wall', `${(ms('resumed') / 1000).toFixed(2)} s`, '', true],
  ['baseline: the same, no resume source, wall', `${(ms('baseline') / 1000).toFixed(2)} s`, '', true],
  ['resume read of 1,000,000 lines, extra time', `${(extraMs / 1000).toFixed(2)} s`, '< 2 s', extraMs < 2000],
  ['resume: peak RSS / baseline', `${mib('resumed').toFixed(0)} / ${mib('baseline').toFixed(0)} MiB`, '', true],
  ['resume read, extra peak RSS', `${extraMib.toFixed(0)} MiB`, '< 64 MiB', extraMib < 64]
]
console.log(`\nResume (call-resume-from), Node ${process.version}, medians of ${RUNS} interleaved runs`)
for (const [name, value, goal, met] of rows)
  console.log(`${met ? ' ' : '!'} ${name.padEnd(48)} ${value.padStart(16)}  ${goal}`)
const missed = rows.filter(r => !r[3])
if (missed.length > 0) {
  console.error(`Missed: ${missed.map(r => r[0]).join('; ')}`)
  process.exit(1)
}
