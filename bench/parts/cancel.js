// The drain of a cancelled routine, timed from SIGINT to exit: `count` POSTs at concurrency 16
// against a loopback server that answers at once but holds every 500th call unanswered (8 at most) (so calls
// are in flight when the signal comes, as on a slow service); SIGINT once a quarter of the calls
// arrived. The record must be whole: one result line per target, and its last line a seal. The baseline is
// the bare client of the same calls, SIGINT at the same point (Node's default: exit at once).
import { spawn } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { parseFileCommands } from '../../demo/runner.js'
import { TOKEN, interleaved, runnerEnv, serve, snapshotLines, stats, writeLines } from '../lib.js'

const BARE = `
const http = require('node:http')
const [base, calls] = process.argv.slice(1)
const agent = new http.Agent({ keepAlive: true })
let next = 0
const one = () => new Promise(resolve => {
  const req = http.request(base + '/v1/targets/t-' + next++ + '/scan', { method: 'POST', agent }, res => { res.resume(); res.on('end', resolve) })
  req.on('error', resolve)
  req.end('{}')
})
const worker = async () => { while (next < Number(calls)) await one() }
Promise.all(Array.from({ length: 16 }, worker)).then(() => agent.destroy())
`

export async function cancel({ dist, dir, rounds, sizes }) {
  const count = sizes.cancel
  const held = []
  let arrived = 0
  let onArrival = () => {}
  const api = await serve((req, res) => {
    arrived++
    onArrival()
    // At most 8 held: 16 held would fill every slot and the signal would never come.
    if (arrived % 500 === 0 && held.length < 8) held.push(res)
    else res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"ok":true}')
  })
  const file = join(dir, 'snapshot.json')
  await writeLines(file, snapshotLines(count))

  /** Runs `args`, sends SIGINT when a quarter of the calls arrived, and times the way out. */
  const cancelled = (args, env) =>
    new Promise((resolve, reject) => {
      arrived = 0
      let signalledAt
      const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] })
      let log = ''
      child.stdout.on('data', d => (log += d))
      child.stderr.on('data', d => (log += d))
      onArrival = () => {
        if (signalledAt || arrived < count / 4) return
        signalledAt = performance.now()
        child.kill('SIGINT')
      }
      child.on('close', code => {
        onArrival = () => {}
        for (const res of held.splice(0)) res.destroy()
        if (!signalledAt) reject(new Error(`the run ended before its signal (exit ${code}): ${log.slice(-1000)}`))
        else resolve({ s: (performance.now() - signalledAt) / 1000, code, log })
      })
    })
  const action = async () => {
    const env = runnerEnv(dir, {
      token: TOKEN,
      'base-url': api.url,
      'targets-from': file,
      'targets-output': 'false',
      summary: 'false',
      call: 'POST /v1/targets/{id}/scan',
      'call-body': '{"target":"{id}"}',
      'call-concurrency': '16'
    })
    const run = await cancelled([join(dist, 'root.js')], env)
    const path = parseFileCommands(readFileSync(env.GITHUB_OUTPUT, 'utf8'))['results-file']
    const text = path && existsSync(path) ? readFileSync(path, 'utf8') : ''
    // Whole: a result line per target, and the file ends in a seal (record-format.ts).
    const all = text.split('\n')
    const lines = all.filter(l => l.startsWith('{"key":')).length
    const sealed = text.endsWith('\n') && all.at(-2)?.startsWith('{"m2m":"seal"')
    return { ...run, whole: sealed && lines === count ? 1 : 0, lines }
  }
  const bare = () => cancelled(['-e', BARE, api.url, String(count)], { PATH: process.env.PATH })
  const runs = await interleaved(rounds, bare, action)
  await api.close()
  const lines = runs.action.map(r => r.lines).join(', ')
  return [
    {
      id: 'cancel-drain',
      label: `cancel: ${count.toLocaleString('en-US')} POSTs c16, SIGINT at a quarter, every 500th call held: SIGINT to exit`,
      values: runs.action.map(r => r.s),
      unit: 's',
      beside: `bare client ${stats(runs.baseline.map(r => r.s)).median.toFixed(2)} s; exit codes ${runs.action.map(r => r.code).join(', ')}`
    },
    {
      id: 'cancel-record',
      label: `cancel: record written whole (${count.toLocaleString('en-US')} result lines, sealed), every round`,
      values: [Math.min(...runs.action.map(r => r.whole))],
      unit: 'whole',
      beside: `lines per round: ${lines}`
    }
  ]
}
