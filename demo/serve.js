// Starts the demo identity provider and service and keeps them running until stopped.
//   node demo/serve.js [file]
// Prints their addresses and the demo client; with a file (such as $GITHUB_ENV), also appends
// DEMO_AUTH_URL, DEMO_BASE_URL, DEMO_CLIENT_ID, DEMO_CLIENT_SECRET and DEMO_AUDIENCE lines to it.
import { appendFileSync } from 'node:fs'
import { DEMO_CLIENT, startDemoServers } from './servers.js'

const servers = await startDemoServers()
const values = {
  DEMO_AUTH_URL: servers.authUrl,
  DEMO_BASE_URL: servers.baseUrl,
  DEMO_CLIENT_ID: DEMO_CLIENT.id,
  DEMO_CLIENT_SECRET: DEMO_CLIENT.secret,
  DEMO_AUDIENCE: DEMO_CLIENT.audience
}
const lines = Object.entries(values).map(([k, v]) => `${k}=${v}`)
if (process.argv[2]) appendFileSync(process.argv[2], `${lines.join('\n')}\n`)
console.log(lines.join('\n'))
console.log('Serving; stop with Ctrl-C.')
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => servers.close().then(() => process.exit(0)))
