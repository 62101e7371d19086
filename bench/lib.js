// What the parts of npm run bench share: loopback servers, a runner's environment in a folder, one
// process measured whole (wall time, peak RSS and CPU, read by python3 from the child's rusage),
// interleaved rounds, and the statistics of a figure (median and spread).
import { spawn } from 'node:child_process'
import { createWriteStream, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import { join } from 'node:path'
import { inputEnv } from '../demo/runner.js'

const jwtPart = v => Buffer.from(JSON.stringify(v)).toString('base64url')
/** A token the action accepts as given (token input), valid long after any run. */
export const TOKEN = `${jwtPart({ alg: 'HS256' })}.${jwtPart({ sub: 'bench@clients', exp: 4102444800 })}.c2ln`

/** A loopback server; `handler` sees each request once its body has been read. */
export function serve(handler) {
  const server = createServer((req, res) => {
    req.resume()
    req.on('end', () => handler(req, res))
  })
  return new Promise(resolve =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        server,
        url: `http://127.0.0.1:${server.address().port}`,
        close: () => new Promise(done => server.close(done).closeAllConnections())
      })
    )
  )
}

/** A fresh RUNNER_TEMP and empty file-command files in `dir`, and the inputs as a runner sets them. */
export function runnerEnv(dir, inputs, extra = {}, door = 'root') {
  const temp = join(dir, 'temp')
  rmSync(temp, { recursive: true, force: true })
  mkdirSync(temp, { recursive: true })
  for (const f of ['output', 'env', 'summary']) writeFileSync(join(dir, f), '')
  return {
    PATH: process.env.PATH,
    RUNNER_TEMP: temp,
    GITHUB_OUTPUT: join(dir, 'output'),
    GITHUB_ENV: join(dir, 'env'),
    GITHUB_STEP_SUMMARY: join(dir, 'summary'),
    GITHUB_RUN_ID: '4242',
    GITHUB_RUN_ATTEMPT: '1',
    ...extra,
    ...inputEnv(inputs, door)
  }
}

/**
 * `env` for another build of the action (the reference build): without the INPUT_ variables its
 * door does not declare (an input added since), which that build would refuse by name.
 */
export function envFor(build, env, door = 'root') {
  const text = readFileSync(join(build, `${door}.js`), 'utf8')
  const declared = JSON.parse(/globalThis\.m2mDoor = (.*)\n/.exec(text)[1]).inputs
  const names = new Set(Object.keys(declared).map(name => `INPUT_${name.replace(/ /g, '_').toUpperCase()}`))
  return Object.fromEntries(Object.entries(env).filter(([name]) => !name.startsWith('INPUT_') || names.has(name)))
}

// The children's CPU is counted from before the run: python3 may be a launcher's shim (pyenv's
// runs bash and pyenv, about 0.2 s of CPU), whose children are counted in python's own
// RUSAGE_CHILDREN from the start, and were in every CPU figure before this was taken away.
const RSS_SCRIPT =
  'import resource, subprocess, sys, time\n' +
  'b = resource.getrusage(resource.RUSAGE_CHILDREN)\n' +
  't = time.monotonic(); p = subprocess.run(sys.argv[1:], capture_output=True)\n' +
  'ms = (time.monotonic() - t) * 1000\n' +
  'sys.stderr.buffer.write(p.stdout[-4000:] + p.stderr[-4000:])\n' +
  'u = resource.getrusage(resource.RUSAGE_CHILDREN)\n' +
  'cpu = (u.ru_utime - b.ru_utime + u.ru_stime - b.ru_stime) * 1000\n' +
  'print(ms, u.ru_maxrss, cpu, p.returncode)'

/**
 * One process run to its end, without blocking this one (its servers answer meanwhile): wall ms,
 * peak RSS in MiB, CPU ms (user + system), exit code and the end of its log. `ok` lists the exit
 * codes expected; another one throws with the log.
 */
export function measured(args, env, ok = [0]) {
  return new Promise((resolve, reject) => {
    const child = spawn('python3', ['-c', RSS_SCRIPT, ...args], { env: { PATH: process.env.PATH, ...env } })
    let out = ''
    let log = ''
    child.stdout.on('data', d => (out += d))
    child.stderr.on('data', d => (log += d))
    child.on('close', () => {
      const [ms, kib, cpuMs, code] = out.trim().split(/\s+/).map(Number)
      if (!Number.isFinite(ms)) reject(new Error(`no measurement of ${args.join(' ')}: ${out}${log}`))
      else if (!ok.includes(code))
        reject(new Error(`${args.slice(0, 2).join(' ')} exited ${code}: ${log.slice(-1500)}`))
      else resolve({ ms, mib: kib / 1024, cpuMs, code, log })
    })
  })
}

/** `node script args…` measured whole. */
export const node = (script, env, ok) => measured([process.execPath, ...[script].flat()], env, ok)

/**
 * `rounds` interleaved rounds: baseline then action, again and again (A B A B …), so that a load
 * that comes and goes falls on both alike. Resolves to the two lists of measurements.
 */
export async function interleaved(rounds, baseline, action) {
  const out = { baseline: [], action: [] }
  for (let i = 0; i < rounds; i++) {
    out.baseline.push(await baseline(i))
    out.action.push(await action(i))
  }
  return out
}

export const median = xs => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2
}
/** A figure's median and spread over its rounds. */
export const stats = xs => ({ median: median(xs), min: Math.min(...xs), max: Math.max(...xs), n: xs.length })
/** The ratio of each round's action to the same round's baseline. */
export const paired = (actions, baselines, pick) => actions.map((a, i) => pick(a) / pick(baselines[i]))

/** Writes a file from a generator of strings, in the order given, minding back-pressure. */
export async function writeLines(path, lines) {
  const out = createWriteStream(path)
  for (const line of lines()) if (!out.write(line)) await new Promise(resolve => out.once('drain', resolve))
  await new Promise(resolve => out.end(resolve))
}

/** A targets file as the action writes it: `{"id":"t-0"}` … one per line. */
export function snapshotLines(count, target = i => `{"id":"t-${i}"}`) {
  return function* () {
    yield '[\n'
    for (let i = 0; i < count; i++) yield `${target(i)}${i + 1 < count ? ',' : ''}\n`
    yield ']\n'
  }
}
