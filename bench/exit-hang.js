// How often a routine's step hangs at its exit (docs/performance.md, "A hang at exit"): the bodies
// part's step (256 PUTs answered with 8 MiB at concurrency 64) run again and again, and a process
// still running after `limit` seconds counted as hung and killed. Run it with a core kept busy
// (`node -e 'for(;;){}' &`), as the hang was met.
// Usage: node bench/exit-hang.js [dist] [rounds] [limit seconds]
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { bodiesStep } from './parts/bodies.js'

const [dist = 'dist', rounds = '60', limit = '40'] = process.argv.slice(2)
const dir = mkdtempSync(join(tmpdir(), 'm2m-exit-hang-'))
const { api, env: stepEnv } = await bodiesStep(dir)
let hung = 0
const ended = []
for (let round = 0; round < Number(rounds); round++) {
  const env = stepEnv()
  const start = performance.now()
  await new Promise(done => {
    const child = spawn(process.execPath, [join(resolve(dist), 'root.js')], {
      env: { PATH: process.env.PATH, ...env },
      stdio: 'ignore'
    })
    const timer = setTimeout(
      () => {
        hung++
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
  const ms = performance.now() - start
  if (ms < Number(limit) * 1000) ended.push(ms)
}
await api.close()
rmSync(dir, { recursive: true, force: true })
ended.sort((a, b) => a - b)
const median = ended.length ? (ended[(ended.length - 1) >> 1] + ended[ended.length >> 1]) / 2 / 1000 : NaN
console.log(
  `${resolve(dist)}: ${rounds} rounds, ${ended.length} ended (a round: median ${median.toFixed(2)} s), ${hung} hung`
)
