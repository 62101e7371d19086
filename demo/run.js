// npm run demo: the action's main job against a demo identity provider and service on 127.0.0.1,
// run exactly as a runner runs it; prints the log as a workflow run shows it, then the outputs.
// Then a fan-out as the README's workflow runs it: a mint step, and one step per shard that reuses
// its sealed token.
import { readFileSync } from 'node:fs'
import { DEMO_CLIENT, startDemoServers } from './servers.js'
import { applyMasks, masksIn, runAction } from './runner.js'

const servers = await startDemoServers()
const client = () => ({
  'client-id': DEMO_CLIENT.id,
  'client-secret': DEMO_CLIENT.secret,
  'auth-url': servers.authUrl,
  audience: DEMO_CLIENT.audience,
  'base-url': servers.baseUrl
})
try {
  const run = await runAction(client())
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
    // The runner's temporary folder, and the files in it, are gone once the demo step has run.
    const gone = /-file$/.test(name) ? " (removed with the runner's temporary folder)" : ''
    console.log(
      `${name}: ${masked.length > 100 ? `${masked.slice(0, 100)}… (${masked.length} characters)` : masked}${gone}`
    )
  }
  console.log('\n--- Job summary (Markdown) ---')
  console.log(run.summary.trimEnd())
  run.cleanup()
  process.exitCode = run.code || (await fanOut())
} finally {
  await servers.close()
}

/** The README's fan-out: a mint step with shard-size 2, then a step per shard with its sealed token. */
async function fanOut() {
  const before = servers.tokenRequests
  console.log('\n=== Fan-out: job "mint" (shard-size: 2) ===')
  const mint = await runAction({ ...client(), 'shard-size': '2', summary: 'false' })
  mint.cleanup()
  console.log(mint.log.trimEnd())
  console.log(`outputs: shards=${mint.outputs.shards} sealed-token=${mint.outputs['sealed-token'].slice(0, 24)}…`)
  if (mint.code !== 0) return mint.code
  for (const shard of JSON.parse(mint.outputs.shards)) {
    console.log(`\n=== Fan-out: job "scan (${shard})" ===`)
    const run = await runAction({
      ...client(),
      'sealed-token': mint.outputs['sealed-token'],
      shard,
      call: 'POST /v1/targets/{id}/scans'
    })
    console.log(run.log.trimEnd())
    if (run.code !== 0) {
      // The paused target's 409 fails its shard's step, as a failed call should: the log says which.
      console.log(`(this step failed, exit ${run.code}: no outputs, and its results file is removed)`)
      run.cleanup()
      continue
    }
    const ids = JSON.parse(run.outputs.targets ?? '[]').map(t => t.id)
    console.log(`outputs: target-count=${run.outputs['target-count']} targets=${ids.join(', ')}`)
    console.log(
      `outputs: calls-succeeded=${run.outputs['calls-succeeded']} calls-failed=${run.outputs['calls-failed']}`
    )
    const lines = readFileSync(run.outputs['results-file'], 'utf8').trim().split('\n')
    console.log(`results-file, first lines:\n  ${lines.slice(0, 2).join('\n  ')}`)
    console.log(`summary: ${run.summary.split('\n').find(l => l.startsWith('- **Calls**'))}`)
    run.cleanup()
  }
  console.log(`\nToken requests in the whole fan-out: ${servers.tokenRequests - before}`)
  return 0
}
