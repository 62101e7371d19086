import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import ts from 'typescript'

// The house rules of issue 24, measured with TypeScript's own parser: no module over 260 lines, no
// function over 80, and no import that climbs from a lower layer to a higher one (so no cycle
// between folders).
const SRC = join(import.meta.dirname, '..', 'src')

function modules(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap(entry =>
    entry.isDirectory() ? modules(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : []
  )
}

/** Lower first: a module may import only from its own layer or below. */
const LAYERS: readonly (readonly string[])[] = [
  ['redact'],
  [
    'errors.ts',
    'format.ts',
    'json.ts',
    'json-text.ts',
    'url.ts',
    'files.ts',
    'held-log.ts',
    'random.ts',
    'secrets.ts',
    'doors.ts',
    'ending.ts'
  ],
  ['http'],
  ['auth'],
  ['service'],
  ['targets'],
  ['routine'],
  ['report'],
  ['inputs'],
  ['inputs.ts', 'cancel.ts', 'routine-setup.ts', 'routine-step.ts', 'report-step.ts', 'main.ts', 'index.ts']
]
const layerOf = (file: string): number => {
  const top = relative(SRC, file).split('/')[0]
  const layer = LAYERS.findIndex(names => names.includes(top))
  if (layer < 0) throw new Error(`${relative(SRC, file)} has no layer in test/house.test.ts`)
  return layer
}

const files = modules(SRC)
const parsed = files.map(file => {
  const text = readFileSync(file, 'utf8')
  return { file, text, source: ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true) }
})

describe('the house', () => {
  it.each(parsed.map(p => [relative(SRC, p.file), p]))('%s has at most 260 lines', (_name, { text }) => {
    expect(text.split('\n').length).toBeLessThanOrEqual(260)
  })

  it.each(parsed.map(p => [relative(SRC, p.file), p]))('%s has no function over 80 lines', (_name, { source }) => {
    const long: string[] = []
    const visit = (node: ts.Node): void => {
      if (ts.isFunctionLike(node) && 'body' in node && node.body) {
        const start = source.getLineAndCharacterOfPosition(node.getStart()).line
        const end = source.getLineAndCharacterOfPosition(node.getEnd()).line
        const name = 'name' in node && node.name ? node.name.getText() : `function at line ${start + 1}`
        if (end - start + 1 > 80) long.push(`${name}: ${end - start + 1} lines`)
      }
      ts.forEachChild(node, visit)
    }
    visit(source)
    expect(long).toEqual([])
  })

  it.each(parsed.map(p => [relative(SRC, p.file), p]))(
    '%s imports nothing from a higher layer',
    (_name, { file, source }) => {
      const climbing: string[] = []
      for (const statement of source.statements) {
        if (!ts.isImportDeclaration(statement) && !ts.isExportDeclaration(statement)) continue
        const specifier = statement.moduleSpecifier
        if (!specifier || !ts.isStringLiteral(specifier) || !specifier.text.startsWith('.')) continue
        const target = join(file, '..', specifier.text.replace(/\.js$/, '.ts'))
        if (layerOf(target) > layerOf(file)) climbing.push(relative(SRC, target))
      }
      expect(climbing).toEqual([])
    }
  )
})
