// npm run local-action: runs src/main.ts (TypeScript, no bundle) under GitHub's @github/local-action,
// against the demo identity provider and service on 127.0.0.1, or against the servers an env file
// names (M2M_LOCAL_ENV, default .env, as .env.example shows). The runner's files live in a fresh
// temporary folder, removed at the end; the exit code is 1 when the action failed.
import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DEMO_CLIENT, startDemoServers } from '../demo/servers.js'
import { applyMasks, inputEnv, masksIn, parseFileCommands, root } from '../demo/runner.js'

const RUNNER_VARIABLES = ['GITHUB_OUTPUT', 'GITHUB_ENV', 'GITHUB_STEP_SUMMARY', 'RUNNER_TEMP']
const envFile = process.env.M2M_LOCAL_ENV || join(root, '.env')
const dir = mkdtempSync(join(tmpdir(), 'm2m-local-action-'))
let servers
let status = 1
try {
  const runner = Object.fromEntries(
    RUNNER_VARIABLES.map(name => [name, join(dir, name === 'RUNNER_TEMP' ? 'temp' : name.toLowerCase())])
  )
  mkdirSync(runner.RUNNER_TEMP)
  for (const name of RUNNER_VARIABLES.slice(0, 3)) writeFileSync(runner[name], '')

  let inputs
  if (existsSync(envFile)) {
    console.log(`Inputs from ${envFile}`)
    // The env file's own runner paths are replaced by the temporary folder's.
    inputs = readFileSync(envFile, 'utf8')
      .split('\n')
      .filter(line => !RUNNER_VARIABLES.some(name => line.startsWith(`${name}=`)))
      .join('\n')
  } else {
    servers = await startDemoServers()
    console.log(`No ${envFile}: using the demo identity provider ${servers.authUrl} and service ${servers.baseUrl}`)
    const env = inputEnv({
      'client-id': DEMO_CLIENT.id,
      'client-secret': DEMO_CLIENT.secret,
      'auth-url': servers.authUrl,
      audience: DEMO_CLIENT.audience,
      'base-url': servers.baseUrl
    })
    // Single-quoted: dotenv takes such a value literally (#, " and \ included).
    inputs = Object.entries(env)
      .map(([name, value]) => `${name}='${value}'`)
      .join('\n')
  }
  const file = join(dir, 'local.env')
  writeFileSync(
    file,
    `${inputs}\n${Object.entries(runner)
      .map(([name, value]) => `${name}=${value}`)
      .join('\n')}\n`,
    { mode: 0o600 }
  )

  const bin = join(root, 'node_modules', '.bin', 'local-action')
  // Asynchronously: the demo servers answer from this process meanwhile.
  const run = await new Promise((resolve, reject) => {
    const child = spawn(bin, ['run', root, 'src/main.ts', file], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] })
    let output = ''
    child.stdout.setEncoding('utf8').on('data', d => (output += d))
    child.stderr.setEncoding('utf8').on('data', d => (output += d))
    child.on('error', reject)
    child.on('close', code => resolve({ status: code, output }))
  })
  // local-action lists only what core.setOutput set, and the action writes its file commands itself:
  // its "No outputs were set!" is replaced by the outputs read from GITHUB_OUTPUT below.
  const log = run.output.replace(/\n=+\n\s*Action Outputs\n=+\n\s*No outputs were set!\n*/, '\n')
  const masks = masksIn(log)
  process.stdout.write(applyMasks(log, masks))

  // The action writes its outputs all or nothing, and only when it succeeds.
  const outputs = parseFileCommands(readFileSync(runner.GITHUB_OUTPUT, 'utf8'))
  if (run.status === 0 && outputs.token !== undefined) {
    status = 0
    // local-action lists only what core.setOutput set; the action writes its file commands itself.
    console.log('\nOutputs, from the GITHUB_OUTPUT file (masked as the runner masks them):')
    for (const [name, value] of Object.entries(outputs)) {
      const shown = applyMasks(value, [...masks, outputs.token])
      const gone = /-file$/.test(name) ? " (removed with the runner's temporary folder)" : ''
      console.log(
        `  ${name}: ${shown.length > 100 ? `${shown.slice(0, 100)}… (${shown.length} characters)` : shown}${gone}`
      )
    }
  } else {
    console.error('\nThe action failed (it set no outputs): see its error above.')
  }
} finally {
  await servers?.close()
  rmSync(dir, { recursive: true, force: true })
}
process.exitCode = status
