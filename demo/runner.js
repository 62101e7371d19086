// Runs the action the way a GitHub runner does, through an action.yml (the root one, or a door's:
// list/, shard/, report/): its runs.main, its defaults applied, inputs as INPUT_* variables, file
// commands in temp files, and the log masked by ::add-mask:: as the runner masks it.
import { spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parse } from 'yaml'

export const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const actions = new Map()

/** A door's action.yml (root for the action itself) and the directory it is in. */
export function actionOf(door = 'root') {
  if (!actions.has(door)) {
    const dir = door === 'root' ? root : join(root, door)
    actions.set(door, { dir, action: parse(readFileSync(join(dir, 'action.yml'), 'utf8')) })
  }
  return actions.get(door)
}

/** The INPUT_* environment a runner builds: the given inputs over the action.yml's defaults. */
export function inputEnv(inputs, door = 'root') {
  const { action } = actionOf(door)
  const env = {}
  for (const [name, spec] of Object.entries(action.inputs)) {
    const value = inputs[name] ?? spec.default
    if (value !== undefined) env[`INPUT_${name.replace(/ /g, '_').toUpperCase()}`] = String(value)
  }
  for (const name of Object.keys(inputs)) {
    if (!(name in action.inputs)) throw new Error(`${door === 'root' ? '' : `${door}/`}action.yml has no input ${name}`)
  }
  return env
}

/** Parses a GITHUB_OUTPUT / GITHUB_ENV file: name<<delimiter lines, or name=value lines. */
export function parseFileCommands(text) {
  const values = {}
  const lines = text.split('\n')
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]
    const heredoc = /^([^=<]+)<<(.+)$/.exec(line)
    if (heredoc) {
      const end = lines.indexOf(heredoc[2], i + 1)
      values[heredoc[1]] = lines.slice(i + 1, end).join('\n')
      i = end
    } else if (line.includes('=')) {
      values[line.slice(0, line.indexOf('='))] = line.slice(line.indexOf('=') + 1)
    }
  }
  return values
}

function unescapeCommand(value) {
  return value.replace(/%0D/g, '\r').replace(/%0A/g, '\n').replace(/%25/g, '%')
}

/** The values the log registered with ::add-mask::, each line of a multi-line one too. */
export function masksIn(raw) {
  const masks = new Set()
  for (const line of raw.split('\n')) {
    const add = /^::add-mask::(.*)$/.exec(line)
    if (!add) continue
    const value = unescapeCommand(add[1])
    for (const v of [value, ...value.split(/\r?\n/)]) if (v) masks.add(v)
  }
  return [...masks]
}

/** Text with every masked value replaced by ***, longest first, as the runner does. */
export function applyMasks(text, masks) {
  let out = text
  for (const m of [...masks].sort((a, b) => b.length - a.length)) out = out.split(m).join('***')
  return out
}

/**
 * The log as the runner shows it: ::add-mask:: lines hidden, every masked value after them as ***,
 * ::debug:: lines only in debug mode.
 */
export function maskLog(raw, debug = false) {
  const masks = []
  const shown = []
  for (const line of raw.split('\n')) {
    if (line.startsWith('::add-mask::')) {
      masks.push(...masksIn(line))
      continue
    }
    if (!debug && line.startsWith('::debug::')) continue
    shown.push(applyMasks(line, masks))
  }
  return shown.join('\n')
}

/** Inputs whose values a step record leaves out. */
const SECRET_INPUTS = new Set(['client-secret', 'private-key', 'token'])

/**
 * Runs the action once (`onChild` receives the process, to signal it). Returns its exit code, raw stdout and stderr, the log as a runner shows
 * it, the outputs, exported variables and job summary it wrote, and its RUNNER_TEMP.
 * With `dir` (a new folder) the step runs there and leaves a record of itself in it, for the
 * caller to keep: step.json (door, entry, inputs with secrets as ***, env, exit code), stdout, stderr.
 */
export async function runAction(
  inputs,
  { env = {}, debug = false, door = 'root', entry = undefined, onChild = undefined, dir: given = undefined } = {}
) {
  const { dir: actionDir, action } = actionOf(door)
  const main = entry ?? join(actionDir, action.runs.main)
  const dir = given ?? mkdtempSync(join(tmpdir(), 'm2m-runner-'))
  if (given) mkdirSync(dir, { recursive: true, mode: 0o700 })
  const files = {
    GITHUB_OUTPUT: 'output',
    GITHUB_ENV: 'env',
    GITHUB_STEP_SUMMARY: 'summary',
    GITHUB_STATE: 'state',
    GITHUB_PATH: 'path'
  }
  const fileEnv = {}
  for (const [name, file] of Object.entries(files)) {
    fileEnv[name] = join(dir, file)
    writeFileSync(fileEnv[name], '')
  }
  const runnerTemp = join(dir, 'temp')
  mkdirSync(runnerTemp)
  const childEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    RUNNER_TEMP: runnerTemp,
    GITHUB_ACTIONS: 'true',
    ...(debug ? { RUNNER_DEBUG: '1' } : {}),
    ...fileEnv,
    ...inputEnv(inputs, door),
    ...env
  }
  const child = spawn(process.execPath, [main], { env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stdout.setEncoding('utf8').on('data', d => (stdout += d))
  child.stderr.setEncoding('utf8').on('data', d => (stderr += d))
  // A test that cancels the step sends the child its signals, as the runner does.
  onChild?.(child)
  const code = await new Promise(resolve => child.on('close', resolve))
  const read = name => readFileSync(fileEnv[name], 'utf8')
  if (given) {
    const shown = Object.fromEntries(Object.entries(inputs).map(([k, v]) => [k, SECRET_INPUTS.has(k) ? '***' : v]))
    const entryPath = relative(root, main)
    writeFileSync(join(dir, 'step.json'), JSON.stringify({ door, entry: entryPath, inputs: shown, env, code }, null, 2))
    writeFileSync(join(dir, 'stdout'), stdout)
    writeFileSync(join(dir, 'stderr'), stderr)
  }
  const result = {
    code,
    stdout,
    stderr,
    log: maskLog(stdout + stderr, debug),
    outputs: parseFileCommands(read('GITHUB_OUTPUT')),
    exported: parseFileCommands(read('GITHUB_ENV')),
    summary: read('GITHUB_STEP_SUMMARY'),
    runnerTemp,
    cleanup: () => rmSync(dir, { recursive: true, force: true })
  }
  return result
}
