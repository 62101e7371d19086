import { spawn } from 'node:child_process'
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
// @ts-expect-error: plain JavaScript, shared with npm run demo
import { DEMO_CLIENT, startDemoServers } from '../../demo/servers.js'

/** npm run local-action, as a contributor runs it: its exit code and what it printed. */
function localAction(envFile: string): Promise<{ code: number | null; output: string }> {
  return new Promise(resolve => {
    const child = spawn(process.execPath, ['scripts/local-action.js'], {
      env: { ...process.env, M2M_LOCAL_ENV: envFile },
      stdio: ['ignore', 'pipe', 'pipe']
    })
    let output = ''
    child.stdout.setEncoding('utf8').on('data', d => (output += d))
    child.stderr.setEncoding('utf8').on('data', d => (output += d))
    child.on('close', code => resolve({ code, output }))
  })
}

const leftovers = () => readdirSync(tmpdir()).filter(name => name.startsWith('m2m-local-action-'))

describe('npm run local-action', () => {
  let dir: string
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'm2m-local-test-'))
  })
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it('runs src/main.ts against the demo servers when there is no env file, and cleans up', async () => {
    const before = leftovers()
    const { code, output } = await localAction(join(dir, 'absent.env'))
    expect(code).toBe(0)
    expect(output).toContain('using the demo identity provider')
    expect(output).toContain('Listed 5 targets')
    expect(output).toContain('  token: ***')
    expect(output).toContain('  target-count: 5')
    expect(output).not.toContain('No outputs were set!')
    expect(output).not.toContain(DEMO_CLIENT.secret)
    expect(leftovers()).toEqual(before)
  })

  it('exits 1, leaving nothing behind, when the action fails', async () => {
    const servers = await startDemoServers()
    try {
      const envFile = join(dir, 'wrong.env')
      writeFileSync(
        envFile,
        [
          'INPUT_CLIENT-ID=demo-client',
          "INPUT_CLIENT-SECRET='not-the-secret'",
          `INPUT_AUTH-URL=${servers.authUrl}`,
          `INPUT_AUDIENCE=${DEMO_CLIENT.audience}`,
          `INPUT_BASE-URL=${servers.baseUrl}`,
          'INPUT_LIST-TARGETS=true',
          'INPUT_TIMEOUT-SECONDS=30',
          'INPUT_MAX-ATTEMPTS=1',
          'INPUT_MAX-PAGES=10',
          'INPUT_SHARD-SIZE=100',
          'INPUT_SUMMARY=true',
          'INPUT_MIN-VALIDITY-SECONDS=300',
          'INPUT_TOKEN-REQUEST-FORMAT=json',
          'INPUT_CLIENT-AUTH=post',
          'GITHUB_OUTPUT=/tmp/must-not-be-used'
        ].join('\n')
      )
      const before = leftovers()
      const { code, output } = await localAction(envFile)
      expect(code).toBe(1)
      expect(output).toContain('answered HTTP 401 Unauthorized')
      expect(output).toContain('The action failed (it set no outputs)')
      expect(leftovers()).toEqual(before)
    } finally {
      await servers.close()
    }
  })
})
