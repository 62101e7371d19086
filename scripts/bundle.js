// npm run bundle: ncc builds build/action.ts (or another entry in build/) into one file, then terser
// compresses it. ncc's --minify only renames variables (terser with compress off, every function
// name kept); compressing and renaming functions too takes ~15 % off the file every run loads.
// Class names stay, so an error that escapes still names its class. Usage: bundle.js [entry out]
import { execFileSync } from 'node:child_process'
import { readFileSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { minify } from 'terser'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const [entry = 'action.ts', out = join(root, 'dist')] = process.argv.slice(2)
const outDir = resolve(out)
rmSync(outDir, { recursive: true, force: true })
const ncc = join(root, 'node_modules', '@vercel', 'ncc', 'dist', 'ncc', 'cli.js')
const args = ['build', entry, '-o', outDir, '--minify', '-q']
if (entry === 'action.ts') args.push('--license', 'licenses.txt')
execFileSync(process.execPath, [ncc, ...args], { cwd: join(root, 'build'), stdio: 'inherit' })

const file = join(outDir, 'index.js')
const { code } = await minify(readFileSync(file, 'utf8'), {
  module: true,
  compress: { passes: 2 },
  mangle: { keep_classnames: true }
})
if (code === undefined) throw new Error(`terser produced nothing for ${file}`)
writeFileSync(file, code)
