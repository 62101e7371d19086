// npm run demo: what the README shows, run as a runner runs it (dist/ entry points, INPUT_*
// variables, file commands in temporary files) against a demo identity provider and service on
// 127.0.0.1 whose paused target refuses every scan and whose busy one refuses its first:
//   1. the Quick start routine (the root action), attempt 1, and its re-run with call-resume-from;
//   2. the fan-out through the sub-actions: list/, a canary and a job per shard (shard/), report/.
// Each step prints its log as the runner shows it (masked), its outputs and the head of its job
// summary. The demo's own words are the "=>" lines, and each is read from the step's outputs and
// the files they name (test/demo.test.ts re-derives them). With DEMO_KEEP=<folder>, every step's
// runner files are kept there; otherwise they are removed at the end.
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, join, resolve } from 'node:path'
import { DEMO_CLIENT, startDemoServers } from './servers.js'
import { applyMasks, masksIn, runAction } from './runner.js'

const OUTCOMES = ['succeeded', 'failed', 'unknown', 'not-made', 'skipped', 'planned', 'missing']
const workspace = process.env.DEMO_KEEP ? resolve(process.env.DEMO_KEEP) : mkdtempSync(join(tmpdir(), 'm2m-demo-'))
mkdirSync(workspace, { recursive: true, mode: 0o700 })
const servers = await startDemoServers()
let steps = 0

const client = () => ({
  'client-id': DEMO_CLIENT.id,
  'client-secret': DEMO_CLIENT.secret,
  'auth-url': servers.authUrl,
  audience: DEMO_CLIENT.audience,
  'base-url': servers.baseUrl
})
const SCAN = { call: 'POST /v1/targets/{id}/scans', 'call-body': '{"profile": "nightly"}' }

try {
  console.log(`Demo identity provider: ${servers.authUrl}`)
  console.log(`Demo service:           ${servers.baseUrl}`)
  await quickStart()
  await fanOut()
} finally {
  await servers.close()
  if (!process.env.DEMO_KEEP) rmSync(workspace, { recursive: true, force: true })
}

/** The README's Quick start, then "Re-run failed jobs" with attempt 1's results file. */
async function quickStart() {
  console.log('\n# Quick start (README): one step, the root action, over every target')
  const run = { id: '7001', dir: join(workspace, 'run-7001') }
  const first = await step('Quick start', { ...client(), ...SCAN }, { run, attempt: 1 })
  const earlier = upload(run, first, 'results-1')
  await step('Quick start, re-run', { ...client(), ...SCAN, 'call-resume-from': earlier }, { run, attempt: 2 })
}

/** The fan-out of docs/fan-out.md through the doors: list once, a canary, one job per shard, one report. */
async function fanOut() {
  console.log('\n# Fan-out (docs/fan-out.md): list/ once, a canary and a job per shard (shard/), report/')
  const run = { id: '7002', dir: join(workspace, 'run-7002') }
  const list = await step('list', { ...client(), 'shard-size': '2' }, { run, attempt: 1, door: 'list' })
  if (list.code !== 0) return
  const snapshot = download(run, list.outputs['targets-file'], 'targets')
  const handoff = {
    'sealed-token': list.outputs['sealed-token'],
    'client-secret': DEMO_CLIENT.secret,
    'targets-from': snapshot,
    'targets-digest': list.outputs['targets-digest']
  }
  const canary = await step('canary', { ...handoff, ...SCAN, 'call-canary': '1' }, { run, attempt: 1, door: 'shard' })
  const canaryResults = upload(run, canary, 'results-1-canary')
  for (const shard of JSON.parse(list.outputs.shards)) {
    const inputs = { ...handoff, ...SCAN, shard, ...(canaryResults ? { 'call-resume-from': canaryResults } : {}) }
    const scan = await step(`scan ${shard}`, inputs, { run, attempt: 1, door: 'shard' })
    upload(run, scan, `results-1-${shard.split('/')[0]}`)
  }
  const report = {
    'report-from': join(run.dir, 'results'),
    'targets-from': snapshot,
    'targets-digest': list.outputs['targets-digest'],
    'record-key': list.outputs['record-key'],
    ...SCAN,
    'base-url': servers.baseUrl
  }
  await step('report', report, { run, attempt: 1, door: 'report' })
}

/** upload-artifact of a step's results file, if it has one: the folder download-artifact makes of it. */
function upload(run, step, name) {
  const file = step.outputs['results-file']
  return file ? download(run, file, join('results', name)) : undefined
}

/** A file as download-artifact lays it out: in a folder of the artifact's name. */
function download(run, file, name) {
  const folder = join(run.dir, name)
  mkdirSync(folder, { recursive: true })
  copyFileSync(file, join(folder, basename(file)))
  return folder
}

/** Runs one step as a runner would, and prints it: header, inputs, log, outputs, summary, outcome. */
async function step(job, inputs, { run, attempt, door = 'root' }) {
  steps++
  const dir = join(run.dir, `step-${steps}`)
  const env = { GITHUB_RUN_ID: run.id, GITHUB_RUN_ATTEMPT: String(attempt) }
  const result = await runAction(inputs, { door, env, dir })
  const { entry } = JSON.parse(readFileSync(join(dir, 'step.json'), 'utf8'))
  const masks = masksIn(result.stdout)
  const cut = value => (value.length > 100 ? `${value.slice(0, 100)}… (${value.length} characters)` : value)
  console.log(
    `\n## ${job}: ${door === 'root' ? '' : `${door}/`}action.yml runs ${entry}, run ${run.id} attempt ${attempt}`
  )
  console.log('  with:')
  for (const [name, value] of Object.entries(inputs)) {
    console.log(`    ${name}: ${cut(name === 'client-secret' ? '***' : applyMasks(value, masks))}`)
  }
  console.log('  log:')
  for (const line of result.log.trimEnd().split('\n')) if (line) console.log(`  | ${line}`)
  console.log('  outputs:')
  for (const [name, value] of Object.entries(result.outputs))
    console.log(`    ${name}: ${cut(applyMasks(value, masks))}`)
  const summary = result.summary.split('\n').filter(line => line.trim())
  console.log('  job summary:')
  for (const line of summary.slice(0, 3)) console.log(`  > ${cut(line)}`)
  if (summary.length > 3) console.log(`  > … ${summary.length - 3} more lines`)
  for (const sentence of outcome(result)) console.log(`  => ${sentence}`)
  return result
}

/** The demo's own sentences about a step, each read from its exit code, outputs and files. */
function outcome({ code, outputs }) {
  const said = [
    `The step ${code === 0 ? 'succeeded' : 'failed'} (exit ${code}) and set ${count(Object.keys(outputs).length, 'output')}.`
  ]
  if (outputs['targets-file'] && outputs.shards) {
    const targets = JSON.parse(readFileSync(outputs['targets-file'], 'utf8'))
    const shards = JSON.parse(outputs.shards)
    said.push(
      `targets-file holds ${count(targets.length, 'target')} in ${count(shards.length, 'shard')}: ${shards.join(', ')}.`
    )
  }
  for (const [output, of] of [
    ['results-file', 'result line'],
    ['report-file', 'target']
  ]) {
    const file = outputs[output]
    if (!file) continue
    if (!existsSync(file)) {
      said.push(`${output} names a file that is not there.`)
      continue
    }
    const lines = readFileSync(file, 'utf8')
      .split('\n')
      .filter(line => line.trim())
      .map(line => JSON.parse(line))
      .filter(line => typeof line.key === 'string' && line.m2m === undefined)
    said.push(`${output} holds ${count(lines.length, of)}: ${tally(lines)}.`)
    const keys = outcomes => lines.filter(l => outcomes.includes(l.outcome)).map(l => l.key)
    const called = keys(['succeeded', 'failed', 'unknown'])
    const skipped = keys(['skipped'])
    if (output === 'results-file') said.push(`Called: ${called.join(', ') || 'none'}.`)
    if (skipped.length) said.push(`Skipped, done in an earlier attempt: ${skipped.join(', ')}.`)
    const left = lines.filter(l => ['failed', 'unknown', 'not-made', 'missing'].includes(l.outcome))
    const status = l => (l.status === null || l.status === undefined ? 'no status' : `HTTP ${l.status}`)
    said.push(`Not done: ${left.map(l => `${l.key} (${l.outcome}, ${status(l)})`).join(', ') || 'none'}.`)
  }
  if (outputs['shards-to-rerun']) {
    const shards = JSON.parse(outputs['shards-to-rerun'])
    said.push(`Shards to re-run: ${shards.join(', ') || 'none'}.`)
  }
  return said
}

function count(n, noun) {
  return `${n} ${noun}${n === 1 ? '' : 's'}`
}

/** "3 succeeded, 2 failed": the outcomes the lines have, in a fixed order. */
function tally(lines) {
  const by = OUTCOMES.map(o => [o, lines.filter(l => l.outcome === o).length]).filter(([, n]) => n > 0)
  return by.map(([o, n]) => `${n} ${o}`).join(', ') || 'none'
}
