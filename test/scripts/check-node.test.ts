import { spawnSync } from 'node:child_process'
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** scripts/check-node.js in a copy of the project's layout, with or without an installed node_modules. */
function checkNode(installed: boolean, event?: string) {
  const root = mkdtempSync(join(tmpdir(), 'm2m-check-node-'))
  try {
    mkdirSync(join(root, 'scripts'))
    copyFileSync('scripts/check-node.js', join(root, 'scripts', 'check-node.js'))
    copyFileSync('.node-version', join(root, '.node-version'))
    if (installed) {
      mkdirSync(join(root, 'node_modules'))
      writeFileSync(join(root, 'node_modules', '.package-lock.json'), '{}')
    }
    const env = { ...process.env, npm_lifecycle_event: event }
    return spawnSync(process.execPath, [join(root, 'scripts', 'check-node.js')], { encoding: 'utf8', env })
  } finally {
    rmSync(root, { recursive: true, force: true })
  }
}

describe('scripts/check-node.js', () => {
  it.each([
    ['demo', 'npm run demo'],
    ['local-action', 'npm run local-action'],
    ['pretest', 'npm test']
  ])('before npm ci, says to run it for npm run %s, with no stack trace', (event, again) => {
    const run = checkNode(false, event)
    expect(run.status).toBe(1)
    expect(run.stderr).toBe(`The dependencies are not installed: run npm ci first, then ${again} again.\n`)
    expect(run.stdout).toBe('')
  })

  it('passes once the dependencies are installed', () => {
    const run = checkNode(true, 'demo')
    expect(run.status).toBe(0)
    expect(run.stderr).toBe('')
  })
})
