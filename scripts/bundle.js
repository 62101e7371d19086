// npm run bundle: ncc builds build/action.ts (or another entry in build/) into one file, then terser
// compresses it. Not ncc's --minify: it renames only (terser with compress off) and drops the
// /* @__PURE__ */ marks with the comments, so the terser after it kept code that nothing uses
// (@noble/hashes' SHA-512 constants, worked out with BigInt as the step started: 3 KB). Compressing
// and renaming functions too takes ~15 % off the file every run loads.
// Class names stay, so an error that escapes still names its class. A package imported with
// import() (the CEL library, only when targets-where is set) is a chunk of its own beside index.js,
// compressed the same way; licenses.txt is written here, as ncc lists only one chunk's packages.
// Each chunk's module factories are then put in parentheses, so that V8 parses them once
// (eager-factories.js).
// Usage: bundle.js [entry out]
import { execFileSync } from 'node:child_process'
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { minify } from 'terser'
import { parse } from 'yaml'
import { eagerFactories } from './eager-factories.js'
import { lazyBuiltins } from './lazy-builtins.js'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const [entry = 'action.ts', out = join(root, 'dist')] = process.argv.slice(2)
const outDir = resolve(out)
rmSync(outDir, { recursive: true, force: true })
const ncc = join(root, 'node_modules', '@vercel', 'ncc', 'dist', 'ncc', 'cli.js')
const args = ['build', entry, '-o', outDir, '-q']
execFileSync(process.execPath, [ncc, ...args], { cwd: join(root, 'build'), stdio: 'inherit' })

for (const name of readdirSync(outDir).filter(n => n.endsWith('.js'))) {
  // ncc's own output only: the doors' stubs are written below.
  const file = join(outDir, name)
  const { code } = await minify(readFileSync(file, 'utf8'), {
    module: true,
    compress: { passes: 2 },
    mangle: { keep_classnames: true },
    // ASCII only (\u escapes): a file with one other character is read into a two-byte string,
    // twice the young garbage as it loads, and scanned slower.
    format: { ascii_only: true }
  })
  if (code === undefined) throw new Error(`terser produced nothing for ${file}`)
  writeFileSync(file, eagerFactories(name === 'index.js' ? lazyBuiltins(code) : code))
}
if (entry === 'action.ts') {
  writeFileSync(join(outDir, 'licenses.txt'), licenses())
  writeDoors()
}

/**
 * The action (root) and its sub-actions (list/, shard/, report/) run one bundle: each action.yml's
 * runs.main is a stub that names its door and the inputs (with defaults) and outputs its action.yml
 * declares, then loads index.js. The action refuses an input its door does not declare, and sets
 * only the outputs it declares.
 */
function writeDoors() {
  for (const door of ['root', 'list', 'shard', 'report']) {
    const file = door === 'root' ? join(root, 'action.yml') : join(root, door, 'action.yml')
    const action = parse(readFileSync(file, 'utf8'))
    const declared = {
      name: door,
      inputs: Object.fromEntries(Object.entries(action.inputs).map(([name, spec]) => [name, spec.default ?? ''])),
      outputs: Object.keys(action.outputs ?? {})
    }
    const stub = `// The ${door} door (scripts/bundle.js writes it from ${door === 'root' ? '' : `${door}/`}action.yml).\n`
    writeFileSync(
      join(outDir, `${door}.js`),
      `${stub}globalThis.m2mDoor = ${JSON.stringify(declared)}\nawait import('./index.js')\n`
    )
  }
}

/** The licence of every package the bundle ships (package.json's dependencies), and the action's. */
function licenses() {
  const own = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
  const entries = Object.keys(own.dependencies)
    .sort()
    .map(name => {
      const dir = join(root, 'node_modules', name)
      const meta = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'))
      const file = readdirSync(dir).find(f => /^licen[cs]e/i.test(f))
      return [name, meta.license, file ? readFileSync(join(dir, file), 'utf8').trim() : '']
    })
  entries.push([own.name, own.license, readFileSync(join(root, 'LICENSE'), 'utf8').trim()])
  return entries.map(([name, license, text]) => `${name}\n${license}\n${text}\n`).join('\n')
}
