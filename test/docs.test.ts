import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parse } from 'yaml'
import { DEFAULTS } from '../src/inputs.js'

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

/** The rows of the Markdown table under a heading: first cell (unquoted) -> the other cells. */
function table(heading: string): Map<string, string[]> {
  const section = readme.split(`\n## ${heading}\n`)[1].split('\n## ')[0]
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
    expect(action.runs).toEqual({ using: 'node24', main: 'dist/index.js' })
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

describe('README', () => {
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

  it('names the development commands a fresh machine needs', () => {
    expect(readme).toContain('npm ci && npm run demo')
    expect(readme).toContain('npm test')
  })
})

describe("README's workflow examples", () => {
  const blocks = [...readme.matchAll(/```yaml\n([\s\S]*?)```/g)].map(m => m[1])

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
        text.replace(/<owner>\/<this-repo>@v1/g, './')
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

  it('use only inputs and outputs that action.yml declares', () => {
    const steps = blocks
      .map(b => parse(b) as unknown)
      .flatMap(doc => {
        const list = Array.isArray(doc)
          ? doc
          : Object.values((doc as { jobs?: object }).jobs ?? {}).flatMap(j => (j as { steps?: unknown[] }).steps ?? [])
        return list as { uses?: string; with?: Record<string, unknown> }[]
      })
      .filter(step => step.uses === '<owner>/<this-repo>@v1')
    expect(steps.length).toBeGreaterThanOrEqual(5)
    for (const step of steps) {
      for (const name of Object.keys(step.with ?? {})) expect(Object.keys(action.inputs)).toContain(name)
    }
    for (const [, output] of readme.matchAll(/steps\.m2m\.outputs\.([\w-]+)/g)) {
      expect(Object.keys(action.outputs)).toContain(output)
    }
  })
})
