// npm run bench (fifth part): memory does not follow the service's bodies. 256 calls at
// call-concurrency 64 against a loopback service that answers each with an 8 MiB JSON body: the
// action keeps the 64 KiB its results line records of each (plus what redaction needs at the cut)
// and counts and drops the rest as it arrives. Goal: peak RSS under 250 MiB (64 bodies held whole
// would be 512 MiB). The peak moves with when V8 and the sockets free their buffers (216–298 MiB
// over six runs of one build), so a miss is measured again, up to three runs, each judged on its
// own: a build that held bodies would miss every time. Exits 1 on a missed goal, naming it.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { root } from '../demo/runner.js'
import { measuredRun, runnerEnv } from './measure.js'

const CALLS = 256
const BODY = Buffer.from(`{"data":"${'x'.repeat(8 * 1024 * 1024 - 12)}"}`)
const TOKEN = `${Buffer.from('{"alg":"none"}').toString('base64url')}.${Buffer.from('{"exp":4102444800}').toString('base64url')}.c2ln`
const action = process.env.BENCH_ACTION || join(root, 'dist', 'index.js')

const server = createServer((req, res) => {
  req.resume()
  req.on('end', () =>
    res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': BODY.length }).end(BODY)
  )
})
await new Promise(resolve => server.listen(0, '127.0.0.1', resolve))
const dir = mkdtempSync(join(tmpdir(), 'm2m-bench-bodies-'))
mkdirSync(join(dir, 'temp'))
const snapshot = join(dir, 'targets.json')
writeFileSync(snapshot, `[\n${Array.from({ length: CALLS }, (_, i) => `{"id":"t-${i}"}`).join(',\n')}\n]\n`)
const env = runnerEnv(
  dir,
  {
    token: TOKEN,
    'base-url': `http://127.0.0.1:${server.address().port}`,
    'targets-from': snapshot,
    'targets-output': 'false',
    summary: 'false',
    call: 'PUT /v1/targets/{id}',
    'call-concurrency': '64'
  },
  { GITHUB_RUN_ID: '1' }
)
const GOAL_MIB = 250
const earlier = []
let run
for (let attempt = 1; attempt <= 3; attempt++) {
  run = await measuredRun(action, env)
  if (run.code !== 0 || run.mib < GOAL_MIB || attempt === 3) break
  earlier.push(`${run.mib.toFixed(0)} MiB`)
}
const { ms, mib, code } = run
server.close()
rmSync(dir, { recursive: true, force: true })
const rows = [
  ['256 calls at concurrency 64, 8 MiB bodies: exit code', String(code), '0', code === 0],
  ['wall', `${(ms / 1000).toFixed(2)} s`, '', true],
  [
    earlier.length ? `peak RSS (runs before: ${earlier.join(', ')})` : 'peak RSS',
    `${mib.toFixed(0)} MiB`,
    `< ${GOAL_MIB} MiB`,
    mib < GOAL_MIB
  ]
]
console.log(`\nBodies (keepBytes), Node ${process.version}`)
for (const [name, value, goal, met] of rows)
  console.log(`${met ? ' ' : '!'} ${name.padEnd(56)} ${value.padStart(10)}  ${goal}`)
const missed = rows.filter(r => !r[3])
if (missed.length > 0) {
  console.error(`Missed: ${missed.map(r => r[0]).join('; ')}`)
  process.exit(1)
}
