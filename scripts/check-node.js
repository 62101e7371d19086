// The first step of npm test, npm run demo and npm run local-action: on a Node older than the one
// in .node-version, or before npm ci, stop at once and say what to do, instead of letting dozens of
// tests fail a minute later (nock needs Node 22.20+, the action 24) or printing Node's stack trace
// for a module that is not installed.
import { existsSync, readFileSync } from 'node:fs'

const wanted = Number(readFileSync(new URL('../.node-version', import.meta.url), 'utf8').trim())
const major = Number(process.versions.node.split('.')[0])
if (major < wanted) {
  process.stderr.write(
    `This project needs Node ${wanted} (see .node-version); this is Node ${process.versions.node}.\n` +
      `Install Node ${wanted} (for example with nvm: nvm install ${wanted}), then run npm ci and npm test again.\n`
  )
  process.exit(1)
}

// npm ci writes node_modules/.package-lock.json last: without it the install is absent or unfinished.
if (!existsSync(new URL('../node_modules/.package-lock.json', import.meta.url))) {
  const event = process.env.npm_lifecycle_event
  const script = !event || event === 'pretest' || event === 'test' ? 'npm test' : `npm run ${event}`
  process.stderr.write(`The dependencies are not installed: run npm ci first, then ${script} again.\n`)
  process.exit(1)
}
