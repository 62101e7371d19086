import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { clientInputs, json, runAction, startServer, TestServer, TOKEN } from './harness.js'

// A full disk while the routine writes its record: the file keeps every line that fits, whole and
// sealed, and the outputs count only what it holds. Needs a small tmpfs, which only root can mount.
const mount = mkdtempSync(join(tmpdir(), 'm2m-full-disk-'))
const mounted = ((): string | undefined => {
  if (process.getuid?.() !== 0) return 'not root, so no tmpfs can be mounted'
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=256k', 'tmpfs', mount], { stdio: 'ignore' })
    return undefined
  } catch {
    return 'mount -t tmpfs failed here'
  }
})()

let idp: TestServer
let api: TestServer
const targets = Array.from({ length: 3000 }, (_, i) => ({ id: `t-${String(i).padStart(5, '0')}` }))

beforeAll(async () => {
  idp = await startServer((_req, res) =>
    json(res, 200, { access_token: TOKEN, expires_in: 86400, token_type: 'Bearer' })
  )
  // Each answer is kept in its line: about 300 bytes a target, far more than 256 KiB in all.
  api = await startServer((req, res) =>
    req.url === '/v1/targets' ? json(res, 200, targets) : json(res, 201, { ok: true, note: 'x'.repeat(200) })
  )
})
afterAll(async () => {
  await Promise.all([idp.close(), api.close()])
  if (!mounted) execFileSync('umount', [mount])
  rmSync(mount, { recursive: true, force: true })
})

const test = mounted === undefined ? it : it.skip
test(`keeps a whole, sealed record on a full disk, and counts only what it holds${mounted ? ` (skipped: ${mounted})` : ''}`, async () => {
  const temp = join(mount, 'temp')
  mkdirSync(temp)
  const run = await runAction(
    clientInputs(idp.url, api.url, { call: 'POST /v1/t/{id}/scan', 'call-concurrency': '8', summary: 'false' }),
    { env: { RUNNER_TEMP: temp, GITHUB_RUN_ID: '77', GITHUB_RUN_ATTEMPT: '1' } }
  )
  try {
    expect(run.code).toBe(1)
    const errors = run.stdout.split('\n').filter(l => l.startsWith('::error::'))
    expect(errors).toHaveLength(1)
    expect(errors[0]).toMatch(/Failed to write the results file in .*: ENOSPC/)
    expect(errors[0]).toMatch(/\d+ outcomes are not in the results file \(\d+ succeeded/)
    const [file] = readdirSync(temp).filter(f => f.startsWith('results-'))
    const lines = readFileSync(join(temp, file), 'utf8').split('\n')
    expect(lines.at(-1)).toBe('')
    const parsed = lines.slice(0, -1).map(l => JSON.parse(l) as Record<string, unknown>)
    expect(parsed[0]).toMatchObject({ m2m: 'results', format: 2 })
    expect(parsed.at(-1)).toMatchObject({ m2m: 'seal' })
    const results = parsed.filter(l => l.m2m === undefined)
    expect(results.length).toBeGreaterThan(100)
    expect((parsed.at(-1) as { lines: number }).lines).toBe(results.length)
    // The outputs say no more than the file holds.
    expect(Number(run.outputs['calls-succeeded'])).toBe(results.filter(l => l.outcome === 'succeeded').length)
  } finally {
    run.cleanup()
  }
}, 60_000)
