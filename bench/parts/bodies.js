// Memory does not follow the service's bodies: 256 calls at call-concurrency 64 against a loopback
// service that answers each with an 8 MiB JSON body. The action keeps the 64 KiB its results line
// records of each and drops the rest as it arrives (64 bodies held whole would be 512 MiB). The
// baseline is a bare keep-alive node:http client making the same calls and dropping the bodies.
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { TOKEN, interleaved, node, runnerEnv, serve, stats } from '../lib.js'

const CALLS = 256
const BODY = Buffer.from(`{"data":"${'x'.repeat(8 * 1024 * 1024 - 12)}"}`)

const BARE = `
const http = require('node:http')
const [base] = process.argv.slice(1)
const agent = new http.Agent({ keepAlive: true })
let next = 0
const one = () => new Promise((resolve, reject) => {
  http.request(base + '/v1/targets/t-' + next++, { method: 'PUT', agent }, res => { res.resume(); res.on('end', resolve) })
    .on('error', reject).end()
})
const worker = async () => { while (next < ${CALLS}) await one() }
Promise.all(Array.from({ length: 64 }, worker)).then(() => agent.destroy())
`

/**
 * The service answering every call with BODY, the snapshot of CALLS targets in `dir`, and the
 * step's environment (a fresh one each call): shared with bench/exit-hang.js.
 */
export async function bodiesStep(dir) {
  const api = await serve((_req, res) =>
    res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': BODY.length }).end(BODY)
  )
  const snapshot = join(dir, 'targets.json')
  writeFileSync(snapshot, `[\n${Array.from({ length: CALLS }, (_, i) => `{"id":"t-${i}"}`).join(',\n')}\n]\n`)
  const env = () =>
    runnerEnv(dir, {
      token: TOKEN,
      'base-url': api.url,
      'targets-from': snapshot,
      'targets-output': 'false',
      summary: 'false',
      call: 'PUT /v1/targets/{id}',
      'call-concurrency': '64'
    })
  return { api, env }
}

export async function bodies({ dist, dir, rounds }) {
  const { api, env } = await bodiesStep(dir)
  const runs = await interleaved(
    rounds,
    () => node(['-e', BARE, api.url], {}),
    () => node(join(dist, 'root.js'), env())
  )
  await api.close()
  const m = (list, pick) => stats(list.map(pick)).median
  return [
    {
      id: 'bodies-rss',
      label: `${CALLS} calls at concurrency 64 with 8 MiB bodies: action peak RSS`,
      values: runs.action.map(r => r.mib),
      unit: 'MiB',
      beside: `bare client ${m(runs.baseline, r => r.mib).toFixed(0)} MiB; wall ${(m(runs.action, r => r.ms) / 1000).toFixed(2)} s / bare ${(m(runs.baseline, r => r.ms) / 1000).toFixed(2)} s`
    }
  ]
}
