import { execFileSync, spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, normalize } from 'node:path'
import { parse } from 'yaml'
// @ts-expect-error: plain JavaScript, the runner the demo and the e2e tests share
import { applyMasks, maskLog, masksIn, parseFileCommands } from '../demo/runner.js'

// npm run demo, run as a newcomer runs it, twice. Its output is rebuilt here line by line from what
// each step left in its runner folder (DEMO_KEEP): the exit code, the log, GITHUB_OUTPUT, the job
// summary and the files the outputs name. A line the demo writes in its own words ("=>") that
// these do not give — a hard-coded sentence, a wrong count, a wrong verb — fails the test.
const ROOT = join(import.meta.dirname, '..')
const SECTIONS = [
  '# Quick start (README): one step, the root action, over every target',
  '# Fan-out (docs/fan-out.md): list/ once, a canary and a job per shard (shard/), report/'
]
const ORDER = ['succeeded', 'failed', 'unknown', 'not-made', 'skipped', 'planned', 'missing']
const NOT_DONE = new Set(['failed', 'unknown', 'not-made', 'missing'])

const mask = applyMasks as (text: string, masks: string[]) => string
const masksOf = masksIn as (raw: string) => string[]
const fileCommands = parseFileCommands as (text: string) => Record<string, string>

interface Step {
  readonly dir: string
  readonly run: string
  readonly door: 'root' | 'list' | 'shard' | 'report'
  readonly entry: string
  readonly inputs: Record<string, string>
  readonly env: Record<string, string>
  readonly code: number
  readonly stdout: string
  readonly outputs: Record<string, string>
  readonly summary: string
}

interface Line {
  readonly key: string
  readonly outcome: string
  readonly status: number | null
}

/** Every step the demo ran, in order, read back from its runner folder. */
function stepsIn(keep: string): Step[] {
  const runs = readdirSync(keep).filter(name => /^run-\d+$/.test(name))
  const steps = runs.flatMap(run =>
    readdirSync(join(keep, run))
      .filter(name => /^step-\d+$/.test(name))
      .map(name => ({ run, dir: join(keep, run, name), n: Number(name.slice(5)) }))
  )
  return steps
    .sort((a, b) => a.n - b.n)
    .map(({ run, dir }) => {
      const record = JSON.parse(readFileSync(join(dir, 'step.json'), 'utf8'))
      return {
        ...record,
        dir,
        run,
        stdout: readFileSync(join(dir, 'stdout'), 'utf8') + readFileSync(join(dir, 'stderr'), 'utf8'),
        outputs: fileCommands(readFileSync(join(dir, 'output'), 'utf8')),
        summary: readFileSync(join(dir, 'summary'), 'utf8')
      }
    })
}

function resultLines(file: string): Line[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(text => text.trim() !== '')
    .map(text => JSON.parse(text))
    .filter(line => line.m2m === undefined && typeof line.key === 'string')
}

const plural = (n: number, noun: string) => (n === 1 ? `1 ${noun}` : `${n} ${noun}s`)

function byOutcome(lines: readonly Line[]): Record<string, number> {
  const counts: Record<string, number> = {}
  for (const line of lines) counts[line.outcome] = (counts[line.outcome] ?? 0) + 1
  return counts
}

/** What a step's outcome is, said from its exit code, its outputs and the files they name. */
function outcomeOf(step: Step): string[] {
  const { code, outputs } = step
  const said = [
    `The step ${code === 0 ? 'succeeded' : 'failed'} (exit ${code}) and set ${plural(Object.keys(outputs).length, 'output')}.`
  ]
  if (outputs['targets-file'] !== undefined && outputs.shards !== undefined) {
    const shards: string[] = JSON.parse(outputs.shards)
    const targets: unknown[] = JSON.parse(readFileSync(outputs['targets-file'], 'utf8'))
    said.push(
      `targets-file holds ${plural(targets.length, 'target')} in ${plural(shards.length, 'shard')}: ${shards.join(', ')}.`
    )
  }
  const files: [string, string][] = [
    ['results-file', 'result line'],
    ['report-file', 'target']
  ]
  for (const [output, noun] of files) {
    const file = outputs[output]
    if (file === undefined || file === '') continue
    if (!existsSync(file)) {
      said.push(`${output} names a file that is not there.`)
      continue
    }
    const lines = resultLines(file)
    const counts = byOutcome(lines)
    const tally = ORDER.filter(o => counts[o]).map(o => `${counts[o]} ${o}`)
    said.push(`${output} holds ${plural(lines.length, noun)}: ${tally.join(', ') || 'none'}.`)
    const keysOf = (pick: (l: Line) => boolean) => lines.filter(pick).map(l => l.key)
    if (output === 'results-file') {
      const called = keysOf(l => ['succeeded', 'failed', 'unknown'].includes(l.outcome))
      said.push(`Called: ${called.join(', ') || 'none'}.`)
    }
    const skipped = keysOf(l => l.outcome === 'skipped')
    if (skipped.length > 0) said.push(`Skipped, done in an earlier attempt: ${skipped.join(', ')}.`)
    const left = lines
      .filter(l => NOT_DONE.has(l.outcome))
      .map(
        l =>
          `${l.key} (${l.outcome}, ${l.status === null || l.status === undefined ? 'no status' : `HTTP ${l.status}`})`
      )
    said.push(`Not done: ${left.join(', ') || 'none'}.`)
  }
  if (outputs['shards-to-rerun'] !== undefined) {
    const shards: string[] = JSON.parse(outputs['shards-to-rerun'])
    said.push(`Shards to re-run: ${shards.join(', ') || 'none'}.`)
  }
  return said
}

/** The job a step stands for in the README's workflows, from the door it ran and its inputs. */
function jobOf(step: Step): string {
  if (step.door === 'root') return step.inputs['call-resume-from'] ? 'Quick start, re-run' : 'Quick start'
  if (step.door === 'shard') return step.inputs['call-canary'] ? 'canary' : `scan ${step.inputs.shard}`
  return step.door
}

/** The entry point the door's action.yml names, as a runner resolves runs.main. */
function entryOf(door: Step['door']): string {
  const dir = door === 'root' ? '' : door
  const action = parse(readFileSync(join(ROOT, dir, 'action.yml'), 'utf8'))
  return normalize(join(dir, action.runs.main))
}

/** The demo's whole output as the kept files give it. */
function expectedOutput(steps: readonly Step[]): string[] {
  const first = steps[0]!
  const out = [
    `Demo identity provider: ${first.inputs['auth-url']}`,
    `Demo service:           ${first.inputs['base-url']}`
  ]
  const runs = [...new Set(steps.map(s => s.run))]
  steps.forEach((step, i) => {
    if (i === 0 || steps[i - 1]!.run !== step.run) out.push('', SECTIONS[runs.indexOf(step.run)] ?? '(no section)')
    const masks = masksOf(step.stdout)
    const cut = (v: string) => (v.length > 100 ? `${v.slice(0, 100)}… (${v.length} characters)` : v)
    const door = step.door === 'root' ? '' : `${step.door}/`
    const { GITHUB_RUN_ID: run, GITHUB_RUN_ATTEMPT: attempt } = step.env
    out.push('', `## ${jobOf(step)}: ${door}action.yml runs ${entryOf(step.door)}, run ${run} attempt ${attempt}`)
    out.push('  with:', ...Object.entries(step.inputs).map(([k, v]) => `    ${k}: ${cut(mask(v, masks))}`))
    const log = (maskLog(step.stdout) as string).split('\n').filter(l => l !== '')
    out.push('  log:', ...log.map(l => `  | ${l}`))
    out.push('  outputs:', ...Object.entries(step.outputs).map(([k, v]) => `    ${k}: ${cut(mask(v, masks))}`))
    const summary = step.summary.split('\n').filter(l => l.trim() !== '')
    out.push('  job summary:', ...summary.slice(0, 3).map(l => `  > ${cut(l)}`))
    if (summary.length > 3) out.push(`  > … ${summary.length - 3} more lines`)
    out.push(...outcomeOf(step).map(s => `  => ${s}`))
  })
  return [...out, '']
}

function runDemo(
  cwd: string,
  env: Record<string, string>
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(ROOT, 'demo', 'run.js')], {
      cwd,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
      stdio: ['ignore', 'pipe', 'pipe']
    })
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', d => (stdout += d))
    child.stderr.setEncoding('utf8').on('data', d => (stderr += d))
    child.on('error', reject)
    child.on('close', code => resolve({ code, stdout, stderr }))
  })
}

const gitStatus = () => execFileSync('git', ['status', '--porcelain'], { cwd: ROOT, encoding: 'utf8' })
const inGit = existsSync(join(ROOT, '.git'))

describe('npm run demo', () => {
  const temps: string[] = []
  afterAll(() => temps.forEach(dir => rmSync(dir, { recursive: true, force: true })))

  /** One run of the demo in a fresh folder, with its runner files kept for the test. */
  async function demo() {
    const temp = mkdtempSync(join(tmpdir(), 'm2m-demo-test-'))
    temps.push(temp)
    const keep = join(temp, 'keep')
    const before = inGit ? gitStatus() : ''
    const result = await runDemo(temp, { TMPDIR: temp, DEMO_KEEP: keep })
    return { ...result, keep, temp, statusBefore: before, statusAfter: inGit ? gitStatus() : '' }
  }

  it.each([1, 2])(
    'run %i: every line it prints is what the steps wrote, and it leaves nothing behind',
    async () => {
      const run = await demo()
      expect(run.stderr).toBe('')
      expect(run.code).toBe(0)
      expect(run.statusAfter).toBe(run.statusBefore)
      expect(readdirSync(run.temp)).toEqual(['keep']) // no runner folder left outside DEMO_KEEP
      const steps = stepsIn(run.keep)
      expect(run.stdout.split('\n')).toEqual(expectedOutput(steps))
      expectTheReadmesWorkflows(steps)
    },
    120_000
  )
})

/** A routine with failures, its re-run, list, canary, shards and report, each door as documented. */
function expectTheReadmesWorkflows(steps: Step[]): void {
  expect(steps.map(jobOf)).toEqual([
    'Quick start',
    'Quick start, re-run',
    'list',
    'canary',
    'scan 1/3',
    'scan 2/3',
    'scan 3/3',
    'report'
  ])
  expect(steps.map(s => s.entry)).toEqual(steps.map(s => entryOf(s.door)))
  const [first, again, list, canary, ...rest] = steps as [Step, Step, Step, Step, ...Step[]]
  const shards = rest.slice(0, 3)
  const report = rest[3]!
  // Attempt 2 calls exactly what attempt 1 left not done, and skips the rest.
  const lines1 = resultLines(first.outputs['results-file']!)
  const lines2 = resultLines(again.outputs['results-file']!)
  expect(first.code).toBe(1)
  expect(first.env.GITHUB_RUN_ATTEMPT).toBe('1')
  expect(again.env.GITHUB_RUN_ATTEMPT).toBe('2')
  expect(lines1.filter(l => l.outcome === 'failed').length).toBeGreaterThan(0)
  const left1 = lines1
    .filter(l => l.outcome !== 'succeeded')
    .map(l => l.key)
    .sort()
  expect(
    lines2
      .filter(l => l.outcome !== 'skipped')
      .map(l => l.key)
      .sort()
  ).toEqual(left1)
  // The outputs say what the files say.
  for (const step of [first, again]) {
    const counts = byOutcome(resultLines(step.outputs['results-file']!))
    for (const o of ['succeeded', 'failed', 'unknown', 'not-made', 'skipped']) {
      expect([o, step.outputs[`calls-${o}`]]).toEqual([o, String(counts[o] ?? 0)])
    }
  }
  expect(list.inputs['shard-size']).toBe('2')
  expect(JSON.parse(list.outputs.counts!)).toEqual({ listed: 5, selected: 5, shards: 3 })
  expect(canary.inputs['call-canary']).toBeDefined()
  for (const step of [canary, ...shards]) {
    expect(step.inputs['sealed-token']).toBe(list.outputs['sealed-token'])
    expect(step.stdout).toContain('no token request made')
    const counts = byOutcome(resultLines(step.outputs['results-file']!))
    expect(JSON.parse(step.outputs.counts!)).toMatchObject(counts)
  }
  expect(report.inputs['record-key']).toBe(list.outputs['record-key'])
  const reported = byOutcome(resultLines(report.outputs['report-file']!))
  expect(JSON.parse(report.outputs.counts!)).toMatchObject({ targets: 5, ...reported })
  expect(JSON.parse(report.outputs['shards-to-rerun']!)).toEqual(
    shards.filter(s => s.code !== 0).map(s => s.inputs.shard)
  )
}
