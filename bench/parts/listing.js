// The listing, whole process with a pre-issued token: `count` targets in pages of 200 and of 1,000
// against the leanest get-parse-write floor (a bare node:http script: each page fetched keep-alive,
// JSON.parse'd, its targets written to the same targets file the action writes, byte for byte,
// Link rel="next" followed), interleaved; then the same listing with targets-where (keeping every
// target, so the file is the same) against the listing without it: a condition over a field with
// one value, and beside it one over a field with a value per target. Last, a step that signs in
// with a private key (client-auth private-key-jwt) against one given a token: each page is searched
// for every form of every secret the step holds, and a key's lines are some 1,700 characters.
import { generateKeyPairSync } from 'node:crypto'
import { readdirSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { TOKEN, interleaved, node, paired, runnerEnv, serve, stats } from '../lib.js'

const target = i => ({ id: `tgt-${i}`, name: `target-${i}`, type: 'host', status: 'active' })

const FLOOR = `
const http = require('node:http')
const fs = require('node:fs')
const [first, token, out] = process.argv.slice(1)
const agent = new http.Agent({ keepAlive: true })
const fd = fs.openSync(out, 'w', 0o600)
const get = url => new Promise((resolve, reject) => {
  http.get(url, { agent, headers: { Accept: 'application/json', Authorization: 'Bearer ' + token } }, res => {
    let t = ''; res.setEncoding('utf8'); res.on('data', c => (t += c)); res.on('end', () => resolve({ t, link: res.headers.link }))
  }).on('error', reject)
})
;(async () => {
  let n = 0
  for (let url = first; url; ) {
    const { t, link } = await get(url)
    const targets = JSON.parse(t).targets
    fs.writeSync(fd, (n === 0 ? '[\\n' : ',\\n') + targets.map(x => JSON.stringify(x)).join(',\\n'))
    n += targets.length
    const next = link && /<([^>]+)>;\\s*rel="?next"?/.exec(link)
    url = next ? new URL(next[1], url).href : undefined
  }
  fs.writeSync(fd, '\\n]\\n'); fs.closeSync(fd); agent.destroy()
})()
`

// The same floor asking for the next page as soon as a page has arrived, before parsing and
// writing it, as the action does (one request in flight): beside the goal, not its baseline.
const FLOOR_AHEAD = FLOOR.replace(
  /let n = 0\n {2}for \(let url = first; url; \) \{\n {4}const \{ t, link \} = await get\(url\)\n/,
  `let n = 0
  let url = first
  let pending = get(url)
  while (pending) {
    const { t, link } = await pending
    const ahead = link && /<([^>]+)>;\\s*rel="?next"?/.exec(link)
    url = ahead ? new URL(ahead[1], url).href : undefined
    pending = url ? get(url) : undefined
    if (pending) await new Promise(resolve => setImmediate(resolve))
`
).replace(/\n {4}const next = link && [^\n]*\n {4}url = next [^\n]*\n/, '\n')
if (FLOOR_AHEAD === FLOOR || FLOOR_AHEAD.includes('const next')) throw new Error('FLOOR_AHEAD was not made from FLOOR')

export async function listing({ dist, dir, rounds, sizes }) {
  const count = sizes.listing
  const pages = new Map()
  for (const perPage of [200, 1000]) {
    const built = []
    for (let p = 0; p < count / perPage; p++) {
      const targets = Array.from({ length: perPage }, (_, i) => target(p * perPage + i))
      built.push(Buffer.from(JSON.stringify({ targets })))
    }
    pages.set(perPage, built)
  }
  const api = await serve((req, res) => {
    if (req.url === '/oauth/token') {
      req.resume()
      const token = { access_token: TOKEN, expires_in: 86400, token_type: 'Bearer' }
      return res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(token))
    }
    const url = new URL(req.url, 'http://x')
    const perPage = Number(url.pathname.split('/')[1])
    const page = Number(url.searchParams.get('page') || 1)
    const built = pages.get(perPage)
    const headers = { 'Content-Type': 'application/json' }
    if (page < built.length) headers.Link = `</${perPage}/v1/targets?page=${page + 1}>; rel="next"`
    res.writeHead(200, headers).end(built[page - 1])
  })
  const env = (perPage, where = '') =>
    runnerEnv(dir, {
      token: TOKEN,
      'base-url': `${api.url}/${perPage}`,
      'max-pages': String(count / 200),
      'targets-where': where
    })
  const temp = join(dir, 'temp')
  const written = () => readdirSync(temp).find(f => f.startsWith('targets-'))
  const action = (perPage, where) => () => node(join(dist, 'root.js'), env(perPage, where))
  const floor =
    (perPage, script = FLOOR) =>
    () => {
      const e = env(perPage)
      return node(['-e', script, `${api.url}/${perPage}/v1/targets`, TOKEN, join(e.RUNNER_TEMP, 'floor.json')], e)
    }
  // The floor writes the action's file, byte for byte, or the comparison is not like with like.
  await action(200)()
  const actionFile = readFileSync(join(temp, written()))
  for (const script of [FLOOR, FLOOR_AHEAD]) {
    await floor(200, script)()
    if (!readFileSync(join(temp, 'floor.json')).equals(actionFile)) throw new Error('the floor wrote another file')
  }
  rmSync(temp, { recursive: true, force: true })

  const rows = []
  const wall = runs => `${(stats(runs.map(r => r.ms)).median / 1000).toFixed(2)} s`
  for (const perPage of [200, 1000]) {
    const runs = await interleaved(rounds, floor(perPage), action(perPage))
    rows.push({
      id: `listing-${perPage}`,
      label: `listing ${count.toLocaleString('en-US')} targets, pages of ${perPage}: action / get-parse-write floor`,
      values: paired(runs.action, runs.baseline, r => r.ms),
      unit: '×',
      beside: `action ${wall(runs.action)}, floor ${wall(runs.baseline)}; action peak RSS ${stats(runs.action.map(r => r.mib)).median.toFixed(0)} MiB`
    })
    const ahead = await interleaved(rounds, floor(perPage, FLOOR_AHEAD), action(perPage))
    rows.push({
      label: `listing ${count.toLocaleString('en-US')} targets, pages of ${perPage}: action / the floor asking one page ahead`,
      values: paired(ahead.action, ahead.baseline, r => r.ms),
      unit: '×',
      beside: `action ${wall(ahead.action)}, floor asking ahead ${wall(ahead.baseline)}`
    })
  }
  const where = await interleaved(rounds, action(200), action(200, 'status == "active"'))
  rows.push({
    id: 'where',
    label: `targets-where over ${count.toLocaleString('en-US')} targets (pages of 200): listing with / without it`,
    values: paired(where.action, where.baseline, r => r.ms),
    unit: '×',
    beside: `with ${wall(where.action)}, without ${wall(where.baseline)}`
  })
  // Beside the goal: a condition over a field with a value per target, which the selection's memo
  // of results by value (src/targets/cel-context.ts) never answers, so every target is evaluated.
  const unique = await interleaved(rounds, action(200), action(200, 'name.startsWith("target-")'))
  rows.push({
    label: `targets-where reading a field with a value per target (name.startsWith("target-")): with / without it`,
    values: paired(unique.action, unique.baseline, r => r.ms),
    unit: '×',
    beside: `with ${wall(unique.action)}, without ${wall(unique.baseline)}`
  })
  const key = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' })
  const signed = { 'client-id': 'bench-client', 'client-auth': 'private-key-jwt', 'private-key': key }
  const keyEnv = () =>
    runnerEnv(dir, {
      ...signed,
      'auth-url': api.url,
      audience: 'https://bench/',
      'base-url': `${api.url}/1000`,
      'max-pages': String(count / 200)
    })
  const withKey = await interleaved(rounds, action(1000), () => node(join(dist, 'root.js'), keyEnv()))
  rows.push({
    id: 'listing-key',
    label: `listing ${count.toLocaleString('en-US')} targets, pages of 1000: a step with a private key / one with a token`,
    values: paired(withKey.action, withKey.baseline, r => r.ms),
    unit: '×',
    beside: `with a key ${wall(withKey.action)}, with a token ${wall(withKey.baseline)}`
  })
  await api.close()
  return rows
}
