// npm run demo: the action's main job against a demo identity provider and service on 127.0.0.1,
// run exactly as a runner runs it; prints the log as a workflow run shows it, then the outputs.
import { DEMO_CLIENT, startDemoServers } from './servers.js'
import { applyMasks, masksIn, runAction } from './runner.js'

const servers = await startDemoServers()
try {
  const run = await runAction({
    'client-id': DEMO_CLIENT.id,
    'client-secret': DEMO_CLIENT.secret,
    'auth-url': servers.authUrl,
    audience: DEMO_CLIENT.audience,
    'base-url': servers.baseUrl
  })
  console.log(`Demo identity provider: ${servers.authUrl}\nDemo service:           ${servers.baseUrl}\n`)
  const masks = masksIn(run.stdout)
  console.log('--- Step log, as the runner shows it ---')
  console.log(run.log.trimEnd())
  const hidden = run.stdout.split('\n').filter(line => line.startsWith('::add-mask::')).length
  console.log(`(and hid ${hidden} ::add-mask:: lines, which registered the client secret and the token)`)
  console.log(`\n--- Exit code: ${run.code} ---\n`)
  console.log('--- Step outputs ---')
  for (const [name, value] of Object.entries(run.outputs)) {
    const masked = applyMasks(value, masks)
    console.log(`${name}: ${masked.length > 100 ? `${masked.slice(0, 100)}… (${masked.length} characters)` : masked}`)
  }
  console.log('\n--- Job summary (Markdown) ---')
  console.log(run.summary.trimEnd())
  run.cleanup()
  process.exitCode = run.code
} finally {
  await servers.close()
}
