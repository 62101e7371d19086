// npm run bench:faults: how long a step takes, with default inputs, when the identity provider
// 1. accepts the connection and never answers, 2. answers 503 for 15 s and then recovers,
// 3. answers 503 for good, 4. answers 401. dist/index.js is run as a runner runs it against
// loopback servers; BENCH_BASELINE=path/to/dist/index.js runs an older build beside it, in the same
// run, with the defaults of the action.yml beside its dist/ (a checkout of that release).
// The scenarios run side by side (they mostly wait), BENCH_FAULT_RUNS times each (default 1).
// Exits 1 when a goal is missed: fail within 60 s, ride out the 15 s outage, a 401 at once.
import { existsSync, readFileSync } from 'node:fs'
import { createServer } from 'node:http'
import { dirname, join } from 'node:path'
import { parse } from 'yaml'
import { root, runAction } from '../demo/runner.js'

const RUNS = Number(process.env.BENCH_FAULT_RUNS || 1)
const OUTAGE_MS = 15_000
const jwtPart = v => Buffer.from(JSON.stringify(v)).toString('base64url')
const TOKEN = `${jwtPart({ alg: 'HS256' })}.${jwtPart({ sub: 'bench@clients', exp: 4102444800 })}.c2ln`

/** A loopback server whose handler sees the time since its first request. */
function serve(handler) {
  let first
  const server = createServer((req, res) => {
    req.resume()
    req.on('end', () => {
      first ??= Date.now()
      handler(res, Date.now() - first)
    })
  })
  return new Promise(resolve =>
    server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${server.address().port}` }))
  )
}

const reply = (res, status, body) => res.writeHead(status, { 'Content-Type': 'application/json' }).end(body)
const tokenBody = JSON.stringify({ access_token: TOKEN, expires_in: 86400, token_type: 'Bearer' })
const scenarios = {
  'never answers': () => undefined,
  '503 for 15 s, then up': (res, sinceFirst) =>
    sinceFirst < OUTAGE_MS ? reply(res, 503, '{"error":"unavailable"}') : reply(res, 200, tokenBody),
  '503 for good': res => reply(res, 503, '{"error":"unavailable"}'),
  'answers 401': res => reply(res, 401, '{"error":"access_denied","error_description":"Unauthorized"}')
}

const api = await serve(res => reply(res, 200, '[{"id":1}]'))

/** The defaults a build declares in its own action.yml: an older build runs with its own. */
function defaultsOf(entry) {
  const file = join(dirname(entry), '..', 'action.yml')
  if (!existsSync(file)) return {}
  const inputs = parse(readFileSync(file, 'utf8')).inputs
  return Object.fromEntries(
    Object.entries(inputs)
      .filter(([, spec]) => spec.default !== undefined && spec.default !== '')
      .map(([name, spec]) => [name, String(spec.default)])
  )
}

async function measure(entry, name) {
  const idp = await serve(scenarios[name])
  const started = Date.now()
  const run = await runAction(
    {
      ...defaultsOf(entry),
      'client-id': 'bench-client',
      'client-secret': 'bench-secret',
      'auth-url': idp.url,
      audience: 'https://bench.idp.local/api/v2/',
      'base-url': api.url
    },
    { entry }
  )
  const seconds = (Date.now() - started) / 1000
  run.cleanup()
  idp.server.closeAllConnections()
  idp.server.close()
  return { seconds, code: run.code }
}

const builds = { after: join(root, 'dist', 'index.js') }
if (process.env.BENCH_BASELINE) builds.before = process.env.BENCH_BASELINE
const jobs = []
for (const [build, entry] of Object.entries(builds)) {
  for (const name of Object.keys(scenarios)) {
    for (let i = 0; i < RUNS; i++) jobs.push(measure(entry, name).then(r => ({ build, name, ...r })))
  }
}
const results = await Promise.all(jobs)
api.server.closeAllConnections()
api.server.close()

const median = xs => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2
}
const cell = (build, name) => {
  const mine = results.filter(r => r.build === build && r.name === name)
  if (mine.length === 0) return 'n/a'
  const codes = [...new Set(mine.map(r => r.code))].join('/')
  return `${median(mine.map(r => r.seconds)).toFixed(1)} s (exit ${codes})`
}
const after = name => results.filter(r => r.build === 'after' && r.name === name)
const goals = {
  'never answers': after('never answers').every(r => r.code === 1 && r.seconds < 60),
  '503 for 15 s, then up': after('503 for 15 s, then up').every(r => r.code === 0),
  '503 for good': after('503 for good').every(r => r.code === 1 && r.seconds < 60),
  'answers 401': after('answers 401').every(r => r.code === 1 && r.seconds < 2)
}
const target = {
  'never answers': 'fails < 60 s',
  '503 for 15 s, then up': 'succeeds',
  '503 for good': 'fails < 60 s',
  'answers 401': 'fails < 2 s'
}

console.log(`Node ${process.version}; identity provider faults, default inputs, medians of ${RUNS}\n`)
console.log(`| identity provider | ${Object.keys(builds).join(' | ')} | goal | met |`)
console.log(
  `| --- | ${Object.keys(builds)
    .map(() => '---: |')
    .join(' ')} --- | --- |`
)
for (const name of Object.keys(scenarios)) {
  const cells = Object.keys(builds).map(b => cell(b, name))
  console.log(`| ${name} | ${cells.join(' | ')} | ${target[name]} | ${goals[name] ? 'yes' : 'NO'} |`)
}
process.exitCode = Object.values(goals).every(Boolean) ? 0 : 1
