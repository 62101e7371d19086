import { readFileSync } from 'node:fs'
import {
  CLIENT,
  expectFailure,
  expectNoLeaks,
  json,
  Received,
  runAction,
  startServer,
  TestServer,
  clientInputs,
  TOKEN
} from './harness.js'
import { ServerResponse } from 'node:http'

let idp: TestServer
let api: TestServer
let other: TestServer
let apiReply: (req: Received, res: ServerResponse) => void

beforeAll(async () => {
  idp = await startServer((_req, res) =>
    json(res, 200, { access_token: TOKEN, expires_in: 86400, token_type: 'Bearer' })
  )
  api = await startServer((req, res) => apiReply(req, res))
  other = await startServer((_req, res) => json(res, 200, []))
})
afterAll(async () => {
  await Promise.all([idp.close(), api.close(), other.close()])
})
beforeEach(() => {
  api.requests.length = 0
  other.requests.length = 0
})

const inputs = (extra: Record<string, string> = {}) => clientInputs(idp.url, api.url, extra)
const target = (i: number) => ({ id: `tgt-${i}`, name: `target ${i}`, owner: 'team-a', status: 'active' })
const page = (url: string) => Number(new URL(url, 'http://x').searchParams.get('page') ?? 1)

describe.each([false, true])('pagination end to end (debug %s)', debug => {
  it('walks Link headers across many pages, keeps the connection alive, and reports progress in a group', async () => {
    const pages = 40
    apiReply = (req, res) => {
      const p = page(req.url)
      const headers: Record<string, string> = p < pages ? { Link: `</v1/targets?page=${p + 1}>; rel="next"` } : {}
      json(
        res,
        200,
        Array.from({ length: 50 }, (_, i) => target((p - 1) * 50 + i)),
        headers
      )
    }
    const run = await runAction(inputs(), { debug })
    try {
      expect(run.code).toBe(0)
      expect(api.requests).toHaveLength(pages)
      expect(run.outputs['target-count']).toBe('2000')
      expect(JSON.parse(run.outputs.targets)).toHaveLength(2000)
      const log = run.log.split('\n').filter(line => !line.startsWith('::debug::'))
      const start = log.indexOf('::group::Listing targets page by page')
      expect(start).toBeGreaterThan(-1)
      expect(log[start + 1]).toBe('Page 1: 50 targets (50 so far)')
      expect(log[start + pages]).toBe(`Page ${pages}: 50 targets (2000 so far)`)
      expect(log[start + pages + 1]).toBe('::endgroup::')
      expect(log[start + pages + 2]).toBe('Listed 2,000 targets')
      // keep-alive: one connection carried every page
      expect(new Set(api.requests.map(r => r.remotePort)).size).toBe(1)
    } finally {
      run.cleanup()
    }
  })

  it('follows next URLs in the body, relative and absolute', async () => {
    apiReply = (req, res) => {
      const p = page(req.url)
      const next = p === 1 ? 'targets?page=2' : p === 2 ? `${api.url}/v1/targets?page=3` : null
      json(res, 200, { items: [target(p)], next })
    }
    const run = await runAction(inputs(), { debug })
    try {
      expect(run.code).toBe(0)
      expect(api.requests.map(r => r.url)).toEqual(['/v1/targets', '/v1/targets?page=2', '/v1/targets?page=3'])
      expect(JSON.parse(run.outputs.targets)).toEqual([target(1), target(2), target(3)])
    } finally {
      run.cleanup()
    }
  })

  it('refuses a next link to another origin; the token never goes there', async () => {
    apiReply = (_req, res) => json(res, 200, { targets: [target(1)], next: `${other.url}/v1/targets?page=2` })
    const run = await runAction(inputs(), { debug })
    try {
      expectFailure(
        run,
        /the next-page link points to another origin \(http:\/\/127\.0\.0\.1:\d+, not http:\/\/127\.0\.0\.1:\d+\); the token is only sent to base-url/
      )
      expect(other.requests).toHaveLength(0)
      expectNoLeaks(run, [CLIENT.secret, TOKEN])
    } finally {
      run.cleanup()
    }
  })

  it('refuses a pagination loop', async () => {
    apiReply = (req, res) =>
      json(res, 200, [target(1)], {
        Link: page(req.url) === 1 ? '</v1/targets?page=2>; rel="next"' : '</v1/targets>; rel="next"'
      })
    const run = await runAction(inputs(), { debug })
    try {
      expectFailure(
        run,
        /the next-page link http:\/\/127\.0\.0\.1:\d+\/v1\/targets was already listed \(a pagination loop\)/
      )
      expect(api.requests).toHaveLength(2)
    } finally {
      run.cleanup()
    }
  })

  it('fails at max-pages instead of cutting the list short', async () => {
    apiReply = (req, res) =>
      json(res, 200, [target(page(req.url))], { Link: `</v1/targets?page=${page(req.url) + 1}>; rel="next"` })
    const run = await runAction(inputs({ 'max-pages': '3' }), { debug })
    try {
      expectFailure(
        run,
        /the list has more than max-pages \(3\) pages; 3 targets so far\. Raise max-pages to list them all\./
      )
      expect(api.requests).toHaveLength(3)
    } finally {
      run.cleanup()
    }
  })

  it('warns past 128 KiB that env values and expressions break, and still sets targets', async () => {
    const count = 2_000 // about 140 KB of JSON
    apiReply = (_req, res) => json(res, 200, { targets: Array.from({ length: count }, (_, i) => target(i)) })
    const run = await runAction(inputs(), { debug })
    try {
      expect(run.code).toBe(0)
      const size = Buffer.byteLength(run.outputs.targets)
      expect(size).toBeGreaterThan(128 * 1024)
      expect(JSON.parse(run.outputs.targets)).toHaveLength(count)
      const warnings = run.stdout.split('\n').filter(l => l.startsWith('::warning::'))
      expect(warnings).toEqual([
        expect.stringMatching(
          /^::warning::The targets output is 1\d\d\.\d KiB: an env value over 128 KiB makes the next step fail \("Argument list too long"\), and expressions fail past about 1 MB\. Read the targets-file output instead, or fan out over the shards output/
        )
      ])
    } finally {
      run.cleanup()
    }
  })

  it('leaves targets unset past 1 MiB, keeps the whole list in targets-file, and keeps the summary small', async () => {
    const count = 16_000
    apiReply = (_req, res) => json(res, 200, { targets: Array.from({ length: count }, (_, i) => target(i)) })
    const run = await runAction(inputs(), { debug })
    try {
      expect(run.code).toBe(0)
      expect(run.outputs.targets).toBeUndefined()
      expect(run.outputs['target-count']).toBe(String(count))
      expect(run.outputs.shards).toBe(JSON.stringify(Array.from({ length: 160 }, (_, i) => `${i + 1}/160`)))
      const file = readFileSync(run.outputs['targets-file'], 'utf8')
      expect(Buffer.byteLength(file)).toBeGreaterThan(1024 * 1024)
      expect(JSON.parse(file)).toHaveLength(count)
      const warnings = run.stdout.split('\n').filter(l => l.startsWith('::warning::'))
      expect(warnings).toEqual([
        expect.stringMatching(
          /^::warning::The targets output was not set: the list is 1\.\d MiB as JSON, more than 1 MiB, past what a job output holds \(1 MB\) and what an expression can read\. Read the targets-file output in this job, or fan out over the shards output/
        )
      ])
      expect(run.summary).toContain(`- **Targets**: 16,000 from`)
      expect(run.summary).toContain(`…and 15,950 more`)
      expect(run.summary.match(/^\| tgt-/gm)).toHaveLength(50)
      expect(Buffer.byteLength(run.summary)).toBeLessThan(16 * 1024)
      expectNoLeaks(run, [CLIENT.secret, TOKEN])
    } finally {
      run.cleanup()
    }
  })

  it('removes the partly written targets file when a later page fails', async () => {
    apiReply = (req, res) =>
      page(req.url) < 3
        ? json(res, 200, [target(page(req.url))], { Link: `</v1/targets?page=${page(req.url) + 1}>; rel="next"` })
        : json(res, 200, '[{"id": "cut', {})
    const run = await runAction(inputs(), { debug })
    try {
      expectFailure(run, /Failed to list targets: the service's response is not valid JSON/)
      expect(api.requests).toHaveLength(3)
    } finally {
      run.cleanup()
    }
  })

  it('writes no summary with summary: false', async () => {
    apiReply = (_req, res) => json(res, 200, [target(1)])
    const run = await runAction(inputs({ summary: 'false' }), { debug })
    try {
      expect(run.code).toBe(0)
      expect(run.summary).toBe('')
    } finally {
      run.cleanup()
    }
  })
})
