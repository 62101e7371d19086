import { execFileSync } from 'node:child_process'
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs'
import { readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, isAbsolute, join } from 'node:path'
import { parse } from 'yaml'
import { Run, runAction } from './harness.js'
// @ts-expect-error: plain JavaScript, shared with npm run demo
import { parseFileCommands } from '../../demo/runner.js'

/**
 * The README's workflows run as GitHub would run them, step by step, on this machine: each step
 * of this action through the action.yml its `uses:` names (the root one or a sub-action's), with
 * the step's own `with:` (expressions evaluated, the example hosts swapped for loopback servers);
 * upload-artifact and download-artifact as folders of a run's artifact store; `run:` steps in bash.
 * Only the expressions and conditions the README uses are understood: any other fails the test.
 */
export interface Step {
  readonly id?: string
  readonly if?: string
  readonly uses?: string
  readonly run?: string
  readonly env?: Record<string, unknown>
  readonly with?: Record<string, unknown>
}
export interface Job {
  readonly needs?: string | string[]
  readonly if?: string
  readonly outputs?: Record<string, string>
  readonly strategy?: { matrix?: { shard?: string } }
  readonly steps: Step[]
}
export interface Workflow {
  readonly jobs: Record<string, Job>
}

/** The YAML workflow of the README section under this heading (its first yaml block). */
export function readmeWorkflow(heading: string): Workflow {
  const readme = readFileSync('README.md', 'utf8')
  const section = readme.split(`\n## ${heading}`)[1].split('\n## ')[0]
  return parse(/```yaml\n([\s\S]*?)```/.exec(section)![1]) as Workflow
}

export type Door = 'root' | 'list' | 'shard' | 'report'

/** One step of this action as it ran. */
export interface ActionStep {
  readonly job: string
  readonly leg?: string
  readonly attempt: number
  readonly id?: string
  readonly door: Door
  readonly inputs: Record<string, string>
  readonly run: Run
}

export interface RunOptions {
  readonly attempt: number
  readonly secrets: Record<string, string>
  /** The example hosts of the README and the loopback servers that stand for them. */
  readonly hosts: Record<string, string>
  /** Which jobs (and matrix legs) to run: on a re-run, those that failed and those after them. */
  readonly only?: (job: string, leg?: string) => boolean
  /** Swaps a step of a sub-action for another door (the root action) with other inputs. */
  readonly swap?: (door: Door, inputs: Record<string, string>) => Swapped
}

export interface Swapped {
  readonly door: Door
  readonly inputs: Record<string, string>
  /** The other door's outputs as the workflow's expressions read the replaced step's. */
  readonly outputs?: (outputs: Record<string, string>) => Record<string, string>
}

/** A workflow run across its attempts: its artifacts, its jobs' outcomes and outputs. */
export class WorkflowRun {
  readonly dir = mkdtempSync(join(tmpdir(), 'm2m-workflow-'))
  readonly steps: ActionStep[] = []
  /** Each run: step's stdout, by job and step position. */
  readonly scripts: { job: string; attempt: number; stdout: string }[] = []
  private readonly needs: Record<string, { result: string; outputs: Record<string, string> }> = {}
  private readonly failedLegs = new Set<string>()

  constructor(
    private readonly workflow: Workflow,
    private readonly runId = '8080'
  ) {}

  /** Did this job (or leg) fail in its latest attempt? */
  failed(job: string, leg?: string): boolean {
    return this.failedLegs.has(leg === undefined ? job : `${job} ${leg}`)
  }

  async attempt(options: RunOptions): Promise<void> {
    for (const [name, job] of Object.entries(this.workflow.jobs)) {
      const needs = [job.needs ?? []].flat()
      const base = { ...this.context(options), ...this.needsContext(needs) }
      const condition = job.if ?? 'success()'
      const upstreamFailed = needs.some(n => this.needs[n]?.result !== 'success')
      if (!this.condition(condition, base, upstreamFailed)) continue
      const matrix = job.strategy?.matrix?.shard
      const legs: (string | undefined)[] = matrix ? (JSON.parse(this.evaluate(matrix, base)) as string[]) : [undefined]
      let result = 'success'
      const outputs: Record<string, string> = {}
      for (const leg of legs) {
        if (options.only && !options.only(name, leg)) continue
        const ok = await this.runJob(
          name,
          job,
          leg,
          { ...base, ...(leg ? { 'matrix.shard': leg } : {}) },
          options,
          outputs
        )
        const key = leg === undefined ? name : `${name} ${leg}`
        if (ok) this.failedLegs.delete(key)
        else this.failedLegs.add(key)
      }
      if (legs.some(leg => this.failed(name, leg))) result = 'failure'
      // Jobs that are not re-run keep their earlier outputs.
      this.needs[name] = { result, outputs: { ...this.needs[name]?.outputs, ...outputs } }
    }
  }

  cleanup(): void {
    for (const step of this.steps) step.run.cleanup()
    execFileSync('rm', ['-rf', this.dir])
  }

  private context(options: RunOptions): Record<string, string> {
    return {
      ...Object.fromEntries(Object.entries(options.secrets).map(([k, v]) => [`secrets.${k}`, v])),
      'github.run_id': this.runId,
      'github.run_attempt': String(options.attempt),
      'github.token': 'ghs_test-token-for-artifacts'
    }
  }

  private needsContext(needs: string[]): Record<string, string> {
    const context: Record<string, string> = {}
    for (const job of needs) {
      context[`needs.${job}.result`] = this.needs[job]?.result ?? 'skipped'
      for (const [k, v] of Object.entries(this.needs[job]?.outputs ?? {})) context[`needs.${job}.outputs.${k}`] = v
    }
    return context
  }

  private async runJob(
    name: string,
    job: Job,
    leg: string | undefined,
    base: Record<string, string>,
    options: RunOptions,
    outputs: Record<string, string>
  ): Promise<boolean> {
    const workspace = mkdtempSync(join(this.dir, `${name}-`))
    const context: Record<string, string> = { ...base, 'runner.temp': join(workspace, '_temp') }
    mkdirSync(context['runner.temp'])
    let failed = false
    for (const step of job.steps) {
      if (!this.condition(step.if ?? 'success()', context, failed)) continue
      const ok = await this.runStep(name, leg, step, context, workspace, options)
      if (!ok) failed = true
    }
    if (!failed) {
      for (const [k, v] of Object.entries(job.outputs ?? {})) outputs[k] = this.resolve(v, context)
    }
    return !failed
  }

  private async runStep(
    job: string,
    leg: string | undefined,
    step: Step,
    context: Record<string, string>,
    workspace: string,
    options: RunOptions
  ): Promise<boolean> {
    const given = Object.fromEntries(
      Object.entries(step.with ?? {}).map(([k, v]) => [k, this.hosted(this.resolve(String(v), context), options)])
    )
    const setOutputs = (values: Record<string, string>) => {
      if (step.id) for (const [k, v] of Object.entries(values)) context[`steps.${step.id}.outputs.${k}`] = v
    }
    const door = /^m2m-org\/m2m-targets-action(?:\/(list|shard|report))?@v1$/.exec(step.uses ?? '')
    if (door) {
      for (const name of ['targets-from', 'report-from', 'call-resume-from', 'plan-from']) {
        if (given[name] && !isAbsolute(given[name])) given[name] = join(workspace, given[name])
      }
      const chosen: Swapped = options.swap
        ? options.swap((door[1] ?? 'root') as Door, given)
        : { door: (door[1] ?? 'root') as Door, inputs: given }
      const env = { GITHUB_RUN_ID: this.runId, GITHUB_RUN_ATTEMPT: String(options.attempt) }
      const run = await runAction(chosen.inputs, { door: chosen.door, env })
      this.steps.push({
        job,
        leg,
        attempt: options.attempt,
        id: step.id,
        door: chosen.door,
        inputs: chosen.inputs,
        run
      })
      setOutputs(chosen.outputs ? chosen.outputs(run.outputs) : run.outputs)
      return run.code === 0
    }
    if (step.uses?.startsWith('actions/upload-artifact@')) {
      const folder = join(this.dir, 'artifacts', given.name)
      // Names are immutable within a run: a second upload of one fails (409).
      if (existsSync(folder)) throw new Error(`artifact ${given.name} uploaded twice in run ${this.runId}`)
      mkdirSync(folder, { recursive: true })
      copyFileSync(given.path, join(folder, basename(given.path)))
      return true
    }
    if (step.uses?.startsWith('actions/download-artifact@')) {
      const path = isAbsolute(given.path) ? given.path : join(workspace, given.path)
      const store = join(this.dir, 'artifacts')
      const names = existsSync(store) ? readdirSync(store) : []
      if (given.name) {
        if (!names.includes(given.name)) return false
        cpSync(join(store, given.name), path, { recursive: true })
      } else {
        const pattern = new RegExp(`^${given.pattern.split('*').map(escape).join('.*')}$`)
        for (const name of names.filter(n => pattern.test(n))) {
          cpSync(join(store, name), join(path, name), { recursive: true })
        }
      }
      return true
    }
    if (step.run) {
      const env = Object.fromEntries(
        Object.entries(step.env ?? {}).map(([k, v]) => [k, this.resolve(String(v), context)])
      )
      const output = join(workspace, `output-${Math.random().toString(36).slice(2)}`)
      writeFileSync(output, '')
      const stdout = execFileSync('bash', ['-e', '-o', 'pipefail', '-c', step.run], {
        cwd: workspace,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
        env: {
          PATH: process.env.PATH,
          GITHUB_OUTPUT: output,
          GITHUB_RUN_ID: this.runId,
          GITHUB_RUN_ATTEMPT: String(options.attempt),
          ...env
        }
      })
      this.scripts.push({ job, attempt: options.attempt, stdout })
      setOutputs(parseFileCommands(readFileSync(output, 'utf8')) as Record<string, string>)
      return true
    }
    throw new Error(`a step this runner does not know: ${JSON.stringify(step)}`)
  }

  /** The text with each ${{ }} evaluated. */
  private resolve(text: string, context: Record<string, string>): string {
    return text.replace(/\$\{\{\s*(.*?)\s*\}\}/g, (_, expr: string) => this.evaluate(expr, context))
  }

  private evaluate(expr: string, context: Record<string, string>): string {
    const whole = /^\$\{\{\s*(.*?)\s*\}\}$/.exec(expr)
    if (whole) return this.evaluate(whole[1], context)
    const member = /^fromJSON\((.+)\)\.([\w-]+)$/.exec(expr)
    if (member) return String((JSON.parse(this.evaluate(member[1], context)) as Record<string, unknown>)[member[2]])
    const fromJson = /^fromJSON\((.+)\)$/.exec(expr)
    if (fromJson) return this.evaluate(fromJson[1], context)
    // An unset step output is the empty string, as in GitHub's expressions.
    if (/^steps\.[\w-]+\.outputs\.[\w-]+$/.test(expr)) return context[expr] ?? ''
    if (!(expr in context)) throw new Error(`an expression this runner does not know: ${expr}`)
    return context[expr]
  }

  /** An if: condition of the forms the README uses: terms joined by &&. */
  private condition(text: string, context: Record<string, string>, failed: boolean): boolean {
    const terms = text.split(' && ').map(t => t.trim())
    const always = terms.includes('always()')
    if (!always && failed) return false
    return terms.every(term => {
      if (term === 'always()' || term === 'success()') return true
      const compare = /^(.+?) (!=|==|>) (.+)$/.exec(term)
      if (!compare) throw new Error(`a condition this runner does not know: ${term}`)
      const operand = (side: string) =>
        /^'.*'$/.test(side) ? side.slice(1, -1) : /^\d+$/.test(side) ? side : this.evaluate(side, context)
      const [left, right] = [operand(compare[1]), operand(compare[3])]
      if (compare[2] === '>') return Number(left) > Number(right)
      return compare[2] === '==' ? left === right : left !== right
    })
  }

  private hosted(value: string, options: RunOptions): string {
    let out = value
    for (const [host, url] of Object.entries(options.hosts)) out = out.split(host).join(url)
    return out
  }
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}
