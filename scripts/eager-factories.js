// V8 compiles a function lazily: it pre-parses it with the file, then parses it again in full when it
// is first called. Every module factory of a chunk (`{ 659: (t, e, r) => { ... }, ... }`) is called
// as the chunk loads, so each was parsed twice, its inner functions pre-parsed twice too. V8 compiles
// a function in parentheses as it parses the file (it takes it for one about to be called): wrapped
// so, the factories are parsed once. The start-up bench's step (npm run bench) ran 16 million
// instructions fewer of 194 million (valgrind --tool=callgrind), with the same code.
import { parse } from 'acorn'

/**
 * The chunk's code with each module factory in parentheses. The factories are the values of the
 * top-level object whose keys are all module ids: `var e = {…}` in index.js, `export const
 * modules = {…}` in a lazy chunk. Throws when there is none, as a change of ncc's output would make.
 */
export function eagerFactories(code) {
  const program = parse(code, { ecmaVersion: 'latest', sourceType: 'module' })
  const factories = program.body
    .map(statement => (statement.type === 'ExportNamedDeclaration' ? statement.declaration : statement))
    .filter(statement => statement?.type === 'VariableDeclaration')
    .flatMap(statement => statement.declarations.map(declaration => declaration.init))
    .filter(isModuleTable)
    .flatMap(table => table.properties.map(property => property.value))
  if (factories.length === 0) throw new Error('no table of module factories found in the bundle')
  let out = ''
  let at = 0
  for (const { start, end } of factories.sort((a, b) => a.start - b.start)) {
    out += `${code.slice(at, start)}(${code.slice(start, end)})`
    at = end
  }
  return out + code.slice(at)
}

function isModuleTable(node) {
  return (
    node?.type === 'ObjectExpression' &&
    node.properties.length > 0 &&
    node.properties.every(
      p =>
        p.type === 'Property' &&
        p.key.type === 'Literal' &&
        typeof p.key.value === 'number' &&
        (p.value.type === 'ArrowFunctionExpression' || p.value.type === 'FunctionExpression')
    )
  )
}
