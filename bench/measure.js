// What the benches of whole action runs share: a runner's environment in a folder, and one run of
// the action measured for wall time and peak RSS (python3 reads the child's rusage).
import { spawn } from 'node:child_process'
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { inputEnv } from '../demo/runner.js'

/** A fresh RUNNER_TEMP and empty file-command files in `dir`, and the inputs as a runner sets them. */
export function runnerEnv(dir, inputs, extra = {}) {
  const temp = join(dir, 'temp')
  rmSync(temp, { recursive: true, force: true })
  mkdirSync(temp)
  for (const f of ['output', 'env', 'summary']) writeFileSync(join(dir, f), '')
  return {
    PATH: process.env.PATH,
    RUNNER_TEMP: temp,
    GITHUB_OUTPUT: join(dir, 'output'),
    GITHUB_ENV: join(dir, 'env'),
    GITHUB_STEP_SUMMARY: join(dir, 'summary'),
    ...extra,
    ...inputEnv(inputs)
  }
}

const RSS_SCRIPT =
  'import resource, subprocess, sys, time\n' +
  't = time.monotonic(); p = subprocess.run(sys.argv[1:], capture_output=True)\n' +
  'sys.stderr.buffer.write(p.stdout[-4000:] + p.stderr[-4000:])\n' +
  'print((time.monotonic() - t) * 1000, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, p.returncode)'

/** One run of the action: wall time in ms, peak RSS in MiB, its exit code and its log's end. */
export function measuredRun(action, env) {
  return new Promise((resolve, reject) => {
    const child = spawn('python3', ['-c', RSS_SCRIPT, process.execPath, action], { env })
    let out = ''
    let log = ''
    child.stdout.on('data', d => (out += d))
    child.stderr.on('data', d => (log += d))
    child.on('close', () => {
      const [ms, kib, code] = out.trim().split(/\s+/).map(Number)
      if (!Number.isFinite(ms)) reject(new Error(`no measurement: ${out}${log}`))
      else resolve({ ms, mib: kib / 1024, code, log })
    })
  })
}
