// npm test's first step: on a Node older than the one in .node-version, stop at once and say so,
// instead of letting dozens of tests fail a minute later (nock needs Node 22.20+, the action 24).
import { readFileSync } from 'node:fs'

const wanted = Number(readFileSync(new URL('../.node-version', import.meta.url), 'utf8').trim())
const major = Number(process.versions.node.split('.')[0])
if (major < wanted) {
  process.stderr.write(
    `This project needs Node ${wanted} (see .node-version); this is Node ${process.versions.node}.\n` +
      `Install Node ${wanted} (for example with nvm: nvm install ${wanted}), then run npm ci and npm test again.\n`
  )
  process.exit(1)
}
