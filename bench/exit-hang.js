// How often a routine's step hangs at its exit (docs/performance.md, "A hang at exit"): the bodies
// part's step (256 PUTs answered with 8 MiB at concurrency 64) run again and again, and a process
// still running after `limit` seconds counted as hung and killed. Run it with a core kept busy
// (`node -e 'for(;;){}' &`), as the hang was met.
// Usage: node bench/exit-hang.js [dist] [rounds] [limit seconds]
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { TOKEN, runnerEnv, serve } from './lib.js'

const [dist = 'dist', rounds = '60', limit = '40'] = process.argv.slice(2)
const CALLS = 256
const BODY = Buffer.from(`{"data":"${'x'.repeat(8 * 1024 * 1024 - 12)}"}`)
const api = await serve((_req, res) =>
  res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': BODY.length }).end(BODY)
)
const dir = mkdtempSync(join(tmpdir(), 'm2m-exit-hang-'))
const snapshot = join(dir, 'targets.json')
writeFileSync(snapshot, `[\n${Array.from({ length: CALLS }, (_, i) => `{"id":"t-${i}"}`).join(',\n')}\n]\n`)
const counts = { exited: 0, hung: 0 }
for (let round = 0; round < Number(rounds); round++) {
  const env = runnerEnv(dir, {
    token: TOKEN,
    'base-url': api.url,
    'targets-from': snapshot,
    'targets-output': 'false',
    summary: 'false',
    call: 'PUT /v1/targets/{id}',
    'call-concurrency': '64'
  })
  await new Promise(done => {
    const child = spawn(process.execPath, [join(resolve(dist), 'root.js')], {
      env: { PATH: process.env.PATH, ...env },
      stdio: 'ignore'
    })
    const timer = setTimeout(
      () => {
        counts.hung++
        console.log(`round ${round}: still running after ${limit} s, killed`)
        child.kill('SIGKILL')
      },
      Number(limit) * 1000
    )
    child.on('exit', () => {
      clearTimeout(timer)
      done()
    })
  })
  counts.exited = round + 1 - counts.hung
}
await api.close()
rmSync(dir, { recursive: true, force: true })
console.log(`${resolve(dist)}: ${rounds} rounds, ${counts.exited} ended, ${counts.hung} hung`)
