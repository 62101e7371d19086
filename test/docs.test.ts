import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parse } from 'yaml'
import { DEFAULTS } from '../src/inputs.js'
import { CREDENTIAL_NAMESPACES } from '../src/inputs/variable.js'

interface Spec {
  readonly description: string
  readonly required?: boolean
  readonly default?: string
}
const action = parse(readFileSync('action.yml', 'utf8')) as {
  inputs: Record<string, Spec>
  outputs: Record<string, { description: string }>
  runs: Record<string, string>
}
const readme = readFileSync('README.md', 'utf8')
const DOORS = ['list', 'shard', 'report'] as const
const doors = Object.fromEntries(
  DOORS.map(door => [door, parse(readFileSync(join(door, 'action.yml'), 'utf8')) as typeof action])
) as Record<(typeof DOORS)[number], typeof action>
// The reference the README links to: every input and output, in action.yml's order.
const reference = readFileSync(join('docs', 'inputs.md'), 'utf8')

/** The rows of the Markdown table under a heading of docs/inputs.md: first cell (unquoted) -> the other cells. */
function table(heading: string): Map<string, string[]> {
  const section = reference.split(`\n## ${heading}\n`)[1].split('\n## ')[0]
  const rows = section.split('\n').filter(l => /^\| `[^`]+` +\|/.test(l))
  return new Map(
    rows.map(r => {
      const cells = r
        .split('|')
        .slice(1, -1)
        .map(c => c.trim())
      return [cells[0].replace(/`/g, ''), cells.slice(1)]
    })
  )
}

describe('action.yml', () => {
  it('runs on node24 from the bundle, with branding', () => {
    expect(action.runs).toEqual({ using: 'node24', main: 'dist/root.js' })
    expect(parse(readFileSync('action.yml', 'utf8')).branding).toEqual({
      icon: expect.any(String),
      color: expect.any(String)
    })
  })

  it('describes every input and output', () => {
    for (const spec of [...Object.values(action.inputs), ...Object.values(action.outputs)]) {
      expect(spec.description.length).toBeGreaterThan(10)
    }
  })

  it('declares the defaults the code applies, and no others', () => {
    const declared = Object.fromEntries(
      Object.entries(action.inputs)
        .filter(([, spec]) => spec.default !== undefined && spec.default !== '')
        .map(([name, spec]) => [name, String(spec.default)])
    )
    expect(declared).toEqual(DEFAULTS)
  })
})

describe('the doors (list/, shard/, report/)', () => {
  it.each(DOORS)('%s/action.yml runs the one bundle through its own stub, with a description of what it does', door => {
    const spec = doors[door]
    expect(spec.runs).toEqual({ using: 'node24', main: `../dist/${door}.js` })
    expect((spec as unknown as { description: string }).description.length).toBeGreaterThan(80)
    for (const item of [...Object.values(spec.inputs), ...Object.values(spec.outputs)]) {
      expect(item.description.length).toBeGreaterThan(10)
    }
  })

  it.each(DOORS)('%s/ declares only inputs the action has, with the same defaults, and few of them', door => {
    const spec = doors[door]
    for (const [name, input] of Object.entries(spec.inputs)) {
      expect({ name, known: name in action.inputs }).toEqual({ name, known: true })
      expect({ name, default: input.default }).toEqual({ name, default: action.inputs[name].default })
    }
    expect(Object.keys(spec.inputs).length).toBeLessThanOrEqual(17)
    expect(Object.keys(spec.outputs).length).toBeLessThanOrEqual(10)
  })

  it.each(DOORS)('docs/inputs.md has the tables of %s/, matching its action.yml', door => {
    expect([...table(`${door}/ inputs`).keys()]).toEqual(Object.keys(doors[door].inputs))
    expect([...table(`${door}/ outputs`).keys()]).toEqual(Object.keys(doors[door].outputs))
    for (const [name, spec] of Object.entries(doors[door].inputs)) {
      const [defaultCell, description] = table(`${door}/ inputs`).get(name)!
      expect({ name, default: defaultCell.replace(/`/g, '') }).toEqual({ name, default: spec.default ?? '' })
      expect({ name, required: description.startsWith('**Required.**') }).toEqual({
        name,
        required: spec.required === true
      })
    }
  })
})

describe('docs/inputs.md', () => {
  it('has an inputs table that matches action.yml: names, order, defaults, required', () => {
    const rows = table('Inputs')
    expect([...rows.keys()]).toEqual(Object.keys(action.inputs))
    for (const [name, spec] of Object.entries(action.inputs)) {
      const [defaultCell, description] = rows.get(name)!
      expect({ name, default: defaultCell.replace(/`/g, '') }).toEqual({ name, default: spec.default ?? '' })
      expect({ name, required: description.startsWith('**Required.**') }).toEqual({
        name,
        required: spec.required === true
      })
    }
  })

  it('has an outputs table that matches action.yml', () => {
    expect([...table('Outputs').keys()]).toEqual(Object.keys(action.outputs))
  })

  it('is where the README sends its reader for every input and output', () => {
    expect(readme).toContain('](docs/inputs.md)')
  })
})

describe('README', () => {
  it('names one repository in its examples, and says what to put in its place', () => {
    expect(readme).not.toMatch(/<owner>|<this-repo>/)
    expect(readme).toContain('put the owner and name of the repository you use it from in its place')
    const named = new Set([...readme.matchAll(/([\w-]+\/[\w-]+)(?:\/(?:list|shard|report))?@v1\b/g)].map(m => m[1]))
    expect([...named]).toEqual(['m2m-org/m2m-targets-action'])
  })

  it('names the development commands a fresh machine needs', () => {
    expect(readme).toContain('npm ci && npm run demo')
    expect(readme).toContain('npm test')
  })
})

interface ExampleStep {
  readonly id?: string
  readonly uses?: string
  readonly run?: string
  readonly with?: Record<string, unknown>
}

/** The steps of each job of a YAML example (a whole workflow), or one bare list of steps. */
function jobsOf(block: string): { steps: ExampleStep[]; text: string }[] {
  const doc = parse(block) as unknown
  if (Array.isArray(doc)) return [{ steps: doc as ExampleStep[], text: block }]
  return Object.values((doc as { jobs?: object }).jobs ?? {}).map(job => ({
    steps: ((job as { steps?: unknown[] }).steps ?? []) as ExampleStep[],
    text: JSON.stringify(job)
  }))
}

/** Every step of a YAML example. */
function stepsOf(block: string): ExampleStep[] {
  return jobsOf(block).flatMap(job => job.steps)
}

/** The action.yml a README step runs: the root action, or a sub-action; undefined for any other. */
function actionOfStep(step: ExampleStep): typeof action | undefined {
  const door = /^m2m-org\/m2m-targets-action(?:\/(list|shard|report))?@v1$/.exec(step.uses ?? '')
  if (!door) return undefined
  return door[1] ? doors[door[1] as (typeof DOORS)[number]] : action
}

/**
 * What is unsafe in a run: script. An expression spliced into the script runs whatever the value
 * says (a target named `a"; curl …` did); a token on a command line shows in `ps`. Only the shell
 * builtin printf may touch a token, to feed it to a program's standard input.
 */
function unsafeRunLines(script: string): string[] {
  const problems: string[] = []
  if (script.includes('${{')) problems.push('an expression (${{ }}) spliced into the script: pass it through env:')
  for (const raw of script.split('\n')) {
    const line = raw.replace(/(^|\s)#.*$/, '')
    const touchesToken = /\$\{?[A-Za-z_]*TOKEN\b|Bearer/i.test(line)
    if (touchesToken && !/^\s*printf /.test(line)) problems.push(`a token on a command line: ${line.trim()}`)
    // Service data printed raw becomes workflow commands (::add-mask::, ::stop-commands::, a fake
    // ::error::): print it JSON-encoded (jq -c, @json), or feed it to a program rather than the log.
    if (/\bjq -r\b/.test(line) && !/\|\s*(while|\.\/|xargs)|\$\(jq -r/.test(line)) {
      problems.push(`service data printed raw (jq -r): ${line.trim()}`)
    }
    if (/^\s*echo\b.*\$(?!GITHUB_|RUNNER_)[A-Z_]+/.test(line) && !/>>\s*"\$GITHUB_/.test(line)) {
      problems.push(`service data echoed raw: ${line.trim()}`)
    }
    // A program given service data as an argument takes an id such as --config=… as an option.
    if (/\.\/[\w.-]+\s+"\$/.test(line)) problems.push(`service data as an option, not after --: ${line.trim()}`)
  }
  return problems
}

describe('unsafeRunLines', () => {
  it.each([
    ['echo "First target is ${{ fromJSON(steps.m2m.outputs.targets)[0].name }}"', /expression/],
    ['./scan.sh -- "${{ matrix.target.id }}"', /expression/],
    ['curl -fsS -H "Authorization: Bearer $SERVICE_TOKEN" https://api.test', /token on a command line/],
    ['./my-tool --token "$TOKEN"', /token on a command line/],
    ['./my-tool --token "${SERVICE_TOKEN}"', /token on a command line/],
    ['jq -r \'.[].id\' <<<"$TARGETS"', /printed raw \(jq -r\)/],
    ['echo "First target is $FIRST"', /echoed raw/],
    ['./scan.sh "$id"', /not after --/]
  ])('flags %s', (script, problem) => {
    expect(unsafeRunLines(script)).toEqual([expect.stringMatching(problem)])
  })

  it.each([
    'printf \'Authorization: Bearer %s\\n\' "$SERVICE_TOKEN" | curl -fsS -H @- https://api.test',
    './scan.sh -- "$id" # reads the token from $SERVICE_TOKEN',
    'jq -c \'.[].id\' "$TARGETS_FILE"',
    'jq -r \'.[].id\' "$TARGETS_FILE" | while IFS= read -r id; do',
    'echo "name=targets-$GITHUB_RUN_ID" >> "$GITHUB_OUTPUT"'
  ])('accepts %s', script => {
    expect(unsafeRunLines(script)).toEqual([])
  })
})

describe("README's workflow examples", () => {
  const blocks = [...readme.matchAll(/```yaml\n([\s\S]*?)```/g)].map(m => m[1])

  it('never splice ${{ }} into a run: script, nor put a token on a command line', () => {
    const runs = blocks.flatMap(stepsOf).flatMap(step => (step.run ? [step.run] : []))
    expect(runs.length).toBeGreaterThanOrEqual(5)
    for (const run of runs) expect({ run, problems: unsafeRunLines(run) }).toEqual({ run, problems: [] })
  })

  it('are valid YAML', () => {
    expect(blocks.length).toBeGreaterThan(4)
    for (const block of blocks) expect(() => parse(block)).not.toThrow()
  })

  it('pass actionlint when they are whole workflows', () => {
    const dir = mkdtempSync(join(tmpdir(), 'm2m-readme-'))
    const workflows = blocks.filter(b => /^jobs:/m.test(b))
    expect(workflows.length).toBeGreaterThanOrEqual(2)
    mkdirSync(join(dir, '.github', 'workflows'), { recursive: true })
    workflows.forEach((workflow, i) => {
      const text = /^on:/m.test(workflow) ? workflow : `on: push\n${workflow}`
      writeFileSync(
        join(dir, '.github', 'workflows', `readme-${i}.yml`),
        text.replace(
          /m2m-org\/m2m-targets-action(?:\/(list|shard|report))?@v1/g,
          (_, door?: string) => `./${door ?? ''}`
        )
      )
    })
    const cli = join(process.cwd(), 'node_modules', '@tktco', 'node-actionlint', 'bin', 'node-actionlint.js')
    try {
      const out = execFileSync(process.execPath, [cli, '.github/workflows/*.yml'], { cwd: dir, encoding: 'utf8' })
      expect(out).toContain(`Checking ${workflows.length} workflow file(s)`)
      expect(out).toContain('All workflow files passed lint checks')
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  // node-actionlint has no file system: it cannot read the action.yml of a local action, so the
  // inputs and outputs of each step are checked here, against the action.yml that step runs.
  it('give each step only the inputs its action.yml declares, and every required one', () => {
    const steps = blocks.flatMap(stepsOf).filter(step => actionOfStep(step))
    expect(steps.length).toBeGreaterThanOrEqual(5)
    for (const step of steps) {
      const spec = actionOfStep(step)!
      for (const name of Object.keys(step.with ?? {})) {
        expect({ uses: step.uses, name, declared: name in spec.inputs }).toEqual({
          uses: step.uses,
          name,
          declared: true
        })
      }
      for (const [name, input] of Object.entries(spec.inputs)) {
        if (input.required)
          expect({ uses: step.uses, name, given: name in (step.with ?? {}) }).toEqual({
            uses: step.uses,
            name,
            given: true
          })
      }
    }
  })

  it("read only outputs that the referenced step's action.yml declares", () => {
    let checked = 0
    for (const job of blocks.flatMap(jobsOf)) {
      const byId = new Map(job.steps.filter(s => s.id && actionOfStep(s)).map(s => [s.id!, actionOfStep(s)!]))
      for (const [, id, output] of job.text.matchAll(/steps\.([\w-]+)\.outputs\.([\w-]+)/g)) {
        const spec = byId.get(id)
        if (!spec) continue
        checked++
        expect({ id, output, declared: output in spec.outputs }).toEqual({ id, output, declared: true })
      }
    }
    expect(checked).toBeGreaterThanOrEqual(15)
  })

  it('run the fan-out and plan/apply through the sub-actions, and the Quick start through the root action', () => {
    const uses = (heading: string) => {
      const section = readme.split(`\n## ${heading}`)[1].split('\n## ')[0]
      const block = /```yaml\n([\s\S]*?)```/.exec(section)![1]
      return stepsOf(block).flatMap(step => (step.uses?.startsWith('m2m-org/') ? [step.uses] : []))
    }
    expect(uses('Quick start')).toEqual(['m2m-org/m2m-targets-action@v1'])
    expect(uses('Fan-out')).toEqual([
      'm2m-org/m2m-targets-action/list@v1',
      'm2m-org/m2m-targets-action/shard@v1',
      'm2m-org/m2m-targets-action/shard@v1',
      'm2m-org/m2m-targets-action/report@v1'
    ])
    expect(uses('Plan, approve, apply')).toEqual([
      'm2m-org/m2m-targets-action/list@v1',
      'm2m-org/m2m-targets-action/shard@v1',
      'm2m-org/m2m-targets-action/list@v1',
      'm2m-org/m2m-targets-action/shard@v1'
    ])
    const quickStart = /## Quick start[\s\S]*?```yaml\n([\s\S]*?)```/.exec(readme)![1]
    expect(quickStart.trimEnd().split('\n').length).toBeLessThan(20)
  })

  it('stay under 3,300 words with the rest of the README', () => {
    expect(readme.split(/\s+/).filter(Boolean).length).toBeLessThanOrEqual(3300)
  })
})

describe('docs/security.md', () => {
  it('lists every namespace export-variable refuses, and no other', () => {
    const security = readFileSync(join('docs', 'security.md'), 'utf8')
    const table = security.split('| Namespace ')[1].split('\n\n')[0]
    const listed = [...table.matchAll(/^ *\| ([^|]+)\|/gm)].flatMap(([, cell]) => cell.match(/[A-Z]+_(?=`)/g) ?? [])
    expect(listed.sort()).toEqual(CREDENTIAL_NAMESPACES.map(([prefix]) => prefix).sort())
  })
})
