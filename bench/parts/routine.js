// The routine: POSTs with a JSON body and an Idempotency-Key, as users' routines make them, against
// a loopback server that answers at once. The baseline is a bare keep-alive node:http client
// sending the same method, headers (each computed per call as the action computes it) and body at
// the same concurrency; the server notes what the first call of each run carried, and the part
// stops if the two differ. Calls per second are counted where the server sees them, first call to
// last; the whole process (start-up and reading the targets included) is reported beside it, with
// both processes' peak RSS. Cases: 1,000,000 at concurrency 16, 100,000 at 64, 10,000 with the
// summary on, and waves on (whole process only: the waves pause between them by design).
import { join } from 'node:path'
import { TOKEN, interleaved, node, paired, runnerEnv, serve, snapshotLines, stats, writeLines } from '../lib.js'

const CALL = 'POST /v1/targets/{id}/scan'
const BODY = '{"target":"{id}","reason":"bench"}'
const RUN_ID = '4242'

const BARE = `
const http = require('node:http')
const { createHash } = require('node:crypto')
const [base, token, userAgent, calls, concurrency] = process.argv.slice(1)
const agent = new http.Agent({ keepAlive: true })
let next = 0
const one = () => new Promise((resolve, reject) => {
  const id = 't-' + next++
  const body = JSON.stringify({ target: id, reason: 'bench' })
  const headers = {
    Accept: 'application/json', Authorization: 'Bearer ' + token, 'User-Agent': userAgent,
    'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body),
    'Idempotency-Key': createHash('sha256').update('${RUN_ID}\\n' + ${JSON.stringify(CALL)} + '\\n' + id).digest('hex').slice(0, 32)
  }
  const req = http.request(base + '/v1/targets/' + id + '/scan', { method: 'POST', agent, headers }, res => {
    res.resume(); res.on('end', resolve)
  })
  req.on('error', reject)
  req.end(body)
})
const worker = async () => { while (next < Number(calls)) await one() }
Promise.all(Array.from({ length: Number(concurrency) }, worker)).then(() => agent.destroy())
`

export async function routine({ dist, dir, rounds, sizes }) {
  const arrivals = { first: 0, last: 0, count: 0, shape: '' }
  const api = await serve((req, res) => {
    const at = performance.now()
    if (arrivals.count++ === 0) {
      arrivals.first = at
      const ua = req.headers['user-agent']
      arrivals.shape = `${req.method} ${Object.keys(req.headers).sort().join(', ')} (User-Agent: ${ua})`
    }
    arrivals.last = at
    res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"ok":true}')
  })
  const snapshots = new Map()
  const snapshotOf = async count => {
    if (!snapshots.has(count)) {
      const path = join(dir, `snapshot-${count}.json`)
      await writeLines(path, snapshotLines(count))
      snapshots.set(count, path)
    }
    return snapshots.get(count)
  }
  /** A run of a client, with its calls per second as the server saw them. */
  const counted = async (run, calls) => {
    Object.assign(arrivals, { first: 0, last: 0, count: 0, shape: '' })
    const r = await run()
    if (arrivals.count !== calls) throw new Error(`a client made ${arrivals.count} calls, not ${calls}`)
    return { ...r, rate: ((calls - 1) / (arrivals.last - arrivals.first)) * 1000, shape: arrivals.shape }
  }
  const action = async (calls, concurrency, extra = {}) => {
    const file = await snapshotOf(calls)
    const env = runnerEnv(dir, {
      token: TOKEN,
      'base-url': api.url,
      'targets-from': file,
      'targets-output': 'false',
      summary: 'false',
      call: CALL,
      'call-body': BODY,
      'call-concurrency': String(concurrency),
      'call-max-failures': '1',
      ...extra
    })
    return counted(() => node(join(dist, 'root.js'), env), calls)
  }
  const probe = await action(100, 4)
  const userAgent = /\(User-Agent: (.*)\)$/.exec(probe.shape)[1]
  const bare = (calls, concurrency) =>
    counted(() => node(['-e', BARE, api.url, TOKEN, userAgent, String(calls), String(concurrency)], {}), calls)

  const cases = [
    ['1m-c16', sizes.routine, 16, {}],
    ['100k-c64', sizes.routineC64, 64, {}],
    ['summary', sizes.summary, 16, { summary: 'true' }],
    ['waves', sizes.summary, 16, { 'call-waves': '1, 5%, 25%, 100%' }]
  ]
  const rows = []
  for (const [name, calls, concurrency, extra] of cases) {
    const runs = await interleaved(
      rounds,
      () => bare(calls, concurrency),
      () => action(calls, concurrency, extra)
    )
    for (let i = 0; i < rounds; i++) {
      if (runs.action[i].shape !== runs.baseline[i].shape)
        throw new Error(`the bare client does not send what the action sends:
  action: ${runs.action[i].shape}\n  bare:   ${runs.baseline[i].shape}`)
    }
    const what = `${calls.toLocaleString('en-US')} POSTs c${concurrency}${extra.summary ? ', summary on' : ''}${extra['call-waves'] ? `, waves ${extra['call-waves']}` : ''}`
    const m = (list, pick) => stats(list.map(pick)).median
    const rate = list => `${m(list, r => r.rate).toFixed(0)} calls/s`
    const secs = list => `${(m(list, r => r.ms) / 1000).toFixed(2)} s`
    const id = name === 'summary' ? 'routine-summary' : `routine-${name}`
    if (name !== 'waves') {
      rows.push({
        id: `${id}-rate`,
        label: `routine ${what}: rate, action / bare client`,
        values: paired(runs.action, runs.baseline, r => r.rate),
        unit: '×',
        beside: `action ${rate(runs.action)}, bare ${rate(runs.baseline)}`
      })
    }
    rows.push({
      label: `routine ${what}, whole process with its start-up: bare wall / action wall`,
      values: paired(runs.baseline, runs.action, r => r.ms),
      unit: '×',
      beside: `action ${secs(runs.action)}, bare ${secs(runs.baseline)}`
    })
    if (name !== 'summary' && name !== 'waves') {
      rows.push({
        id: `${id}-rss`,
        label: `routine ${what}: action peak RSS`,
        values: runs.action.map(r => r.mib),
        unit: 'MiB',
        beside: `bare client ${m(runs.baseline, r => r.mib).toFixed(0)} MiB`
      })
    }
  }
  await api.close()
  return rows
}
