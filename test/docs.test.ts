import { readFileSync } from 'node:fs'
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
