// npm run summaries: runs dist/index.js as a runner does (demo/runner.js) against servers on
// 127.0.0.1, four times — a routine, a routine with failures, a dry run and a report of a re-run —
// renders each job summary's Markdown as GitHub does (GFM, raw HTML kept for <details>), and
// screenshots it in Chromium: docs/summaries/{routine,failures,dry-run,report}.png.
// Needs Debian's Chromium (apt-get install chromium), or CHROMIUM=/path/to/chrome. Not in npm test.
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'
import { marked } from 'marked'
import { chromium } from 'playwright-core'
import { root, runAction } from '../demo/runner.js'

const COUNT = 500
const targets = Array.from({ length: COUNT }, (_, i) => {
  const n = String(i + 1).padStart(3, '0')
  return { id: `t-${n}`, name: `build-host-${n}`, type: i % 5 ? 'host' : 'service', status: 'active' }
})
/** Targets whose scans the service refuses in the failures run, and what it says. */
const refusals = new Map([
  [
    't-003',
    [
      409,
      {
        message:
          'The scan profile "nightly" is locked by another run (run 8812, started by release-bot); wait for it to finish or cancel it, then retry this target.',
        code: 'profile_locked'
      }
    ]
  ],
  [
    't-017',
    [
      409,
      {
        message:
          'The scan profile "nightly" is locked by another run (run 8812, started by release-bot); wait for it to finish or cancel it, then retry this target.',
        code: 'profile_locked'
      }
    ]
  ],
  [
    't-042',
    [
      422,
      {
        error: {
          message:
            'Target build-host-042 has no agent installed: install the agent (see *Agents* in the docs) and register it again.'
        }
      }
    ]
  ],
  ['t-108', [404, { detail: 'No such target: it was deleted on 2026-12-01.' }]],
  ['t-256', [500, 'Internal Server Error']]
])

const listen = server =>
  new Promise(resolve => server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${server.address().port}`)))
const send = (res, status, body) => {
  res.writeHead(status, { 'Content-Type': typeof body === 'string' ? 'text/plain' : 'application/json' })
  res.end(typeof body === 'string' ? body : JSON.stringify(body))
}
const jwt = claims =>
  ['{"alg":"none"}', JSON.stringify(claims), ''].map(p => Buffer.from(p).toString('base64url')).join('.') + 'sig'

let failing = false
const idp = createServer((_req, res) =>
  send(res, 200, {
    access_token: jwt({ sub: 'scanner@clients', exp: Math.floor(Date.now() / 1000) + 86400 }),
    expires_in: 86400,
    token_type: 'Bearer'
  })
)
const api = createServer((req, res) => {
  if (req.url === '/v1/targets') return send(res, 200, targets)
  const id = decodeURIComponent(req.url.split('/')[3] ?? '')
  const refused = failing && refusals.get(id)
  if (refused) return send(res, ...refused)
  // A few milliseconds a call, as a real service takes.
  setTimeout(() => send(res, 201, { scan: `s-${id}`, queued: true }), 2 + (id.charCodeAt(4) % 5))
})
const [authUrl, baseUrl] = await Promise.all([listen(idp), listen(api)])
const work = mkdtempSync(join(tmpdir(), 'm2m-summaries-'))
const inputs = extra => ({
  'client-id': 'scanner',
  'client-secret': 'summaries-secret-7Qx',
  'auth-url': authUrl,
  audience: 'https://service.example/api/',
  'base-url': baseUrl,
  ...extra
})
const env = attempt => ({ env: { GITHUB_RUN_ID: '7001', GITHUB_RUN_ATTEMPT: String(attempt) } })
const SCAN = { call: 'POST /v1/targets/{id}/scans', 'call-body': '{"profile":"nightly"}', 'call-concurrency': '16' }

const summaries = {}
async function step(name, run, expected) {
  const result = await run
  if (result.code !== expected) {
    process.stderr.write(result.log)
    throw new Error(`the ${name} run exited ${result.code}, not ${expected}`)
  }
  if (name) summaries[name] = result.summary
  return result
}

try {
  await step('routine', runAction(inputs(SCAN), env(1)), 0)
  const dryRun = inputs({ call: 'DELETE /v1/targets/{id}', 'call-dry-run': 'true' })
  await step('dry-run', runAction(dryRun, env(1)), 0)
  failing = true
  const first = await step('failures', runAction(inputs(SCAN), env(1)), 1)
  // The report of the re-run: the first attempt's file and the second's, which skips what the first did.
  const folder = join(work, 'results')
  mkdirSync(join(folder, 'results-1'), { recursive: true })
  copyFileSync(first.outputs['results-file'], join(folder, 'results-1', basename(first.outputs['results-file'])))
  failing = false
  const resume = inputs({ ...SCAN, 'call-resume-from': folder })
  const second = await step(undefined, runAction(resume, env(2)), 0)
  mkdirSync(join(folder, 'results-2'), { recursive: true })
  copyFileSync(second.outputs['results-file'], join(folder, 'results-2', basename(second.outputs['results-file'])))
  for (const run of [first, second]) run.cleanup()
  await step('report', runAction({ 'report-from': folder }, env(2)), 0)
} finally {
  idp.close()
  api.close()
}

// GitHub's job-summary page: its markdown-body styles, in short.
const CSS = `
body { margin: 0; background: #fff; }
.markdown-body { box-sizing: border-box; width: 1012px; padding: 24px 32px; color: #1f2328;
  font: 14px/1.5 -apple-system, BlinkMacSystemFont, "Segoe UI", "Noto Sans", Helvetica, Arial, sans-serif; }
h2 { font-size: 1.5em; font-weight: 600; padding-bottom: .3em; border-bottom: 1px solid #d1d9e0b3; margin: 0 0 16px; }
h3 { font-size: 1.25em; font-weight: 600; margin: 24px 0 16px; }
p, ul, table, details { margin: 0 0 16px; }
ul { padding-left: 2em; }
table { border-spacing: 0; border-collapse: collapse; display: block; width: max-content; max-width: 100%; overflow: auto; }
th, td { padding: 6px 13px; border: 1px solid #d1d9e0; }
th { font-weight: 600; }
tr:nth-child(2n) { background: #f6f8fa; }
code { padding: .2em .4em; font-size: 85%; background: #818b981f; border-radius: 6px;
  font-family: ui-monospace, SFMono-Regular, "SF Mono", Menlo, Consolas, monospace; }
summary { cursor: pointer; }
`

const out = join(root, 'docs', 'summaries')
mkdirSync(out, { recursive: true })
const profile = mkdtempSync(join(tmpdir(), 'm2m-chromium-'))
// A fresh profile each time (playwright passes it as --user-data-dir).
const browser = await chromium.launchPersistentContext(profile, {
  viewport: { width: 1012, height: 400 },
  deviceScaleFactor: 1,
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  args: [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync'
  ]
})
try {
  const page = await browser.newPage()
  // Nothing leaves the machine: the page is built from the summary alone.
  await page.route('**/*', route => route.abort())
  for (const [name, markdown] of Object.entries(summaries)) {
    writeFileSync(join(work, `${name}.md`), markdown)
    const html = `<!doctype html><meta charset="utf-8"><style>${CSS}</style><article class="markdown-body">${marked.parse(markdown, { gfm: true })}</article>`
    await page.setContent(html)
    await page.locator('.markdown-body').screenshot({ path: join(out, `${name}.png`) })
    process.stdout.write(`docs/summaries/${name}.png (from ${join(work, `${name}.md`)})\n`)
  }
} finally {
  await browser.close()
  rmSync(profile, { recursive: true, force: true })
}
