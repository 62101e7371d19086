// Start-up, whole process: a step that hands nothing on (the root action: exchange + list 10
// targets) against a bare two-request script (node:http, the token POST and the GET, the answer
// parsed and written), interleaved; and the list door beside it, which seals a token to hand on
// (its scrypt). The size of dist/index.js is judged here too.
import { statSync } from 'node:fs'
import { join } from 'node:path'
import { node, interleaved, paired, runnerEnv, serve, stats } from '../lib.js'

const BODY = JSON.stringify(
  Array.from({ length: 10 }, (_, i) => ({ id: `tgt-${i}`, name: `target-${i}`, status: 'active' }))
)
const TOKEN_BODY = JSON.stringify({
  access_token: `${Buffer.from('{"alg":"HS256"}').toString('base64url')}.${Buffer.from('{"exp":4102444800}').toString('base64url')}.c2ln`,
  expires_in: 86400,
  token_type: 'Bearer'
})

// The bare script: what any Node step pays at the least for the same two requests.
const BARE = `
const http = require('node:http')
const fs = require('node:fs')
const [auth, base] = process.argv.slice(1)
const send = (url, opts, body) => new Promise((resolve, reject) => {
  const req = http.request(url, opts, res => { let t = ''; res.setEncoding('utf8'); res.on('data', c => (t += c)); res.on('end', () => resolve(t)) })
  req.on('error', reject); req.end(body)
})
;(async () => {
  const body = JSON.stringify({ client_id: 'bench-client', client_secret: 'bench-secret', audience: 'https://bench/', grant_type: 'client_credentials' })
  const { access_token } = JSON.parse(await send(auth + '/oauth/token', { method: 'POST', headers: { 'Content-Type': 'application/json' } }, body))
  const targets = JSON.parse(await send(base + '/v1/targets', { headers: { Accept: 'application/json', Authorization: 'Bearer ' + access_token } }))
  fs.appendFileSync(process.env.GITHUB_OUTPUT, 'targets=' + JSON.stringify(targets) + '\\n')
})()
`

export async function startup({ dist, dir, rounds }) {
  const api = await serve((req, res) => {
    const json = req.url.startsWith('/oauth/token') ? TOKEN_BODY : BODY
    res.writeHead(200, { 'Content-Type': 'application/json' }).end(json)
  })
  const inputs = {
    'client-id': 'bench-client',
    'client-secret': 'bench-secret',
    'auth-url': api.url,
    audience: 'https://bench/',
    'base-url': api.url
  }
  const rootEnv = () => runnerEnv(dir, inputs)
  const listEnv = () => runnerEnv(dir, inputs, {}, 'list')
  const bare = () => node(['-e', BARE, api.url, api.url], rootEnv())
  await node(join(dist, 'root.js'), rootEnv()) // warm the file cache
  await node(join(dist, 'list.js'), listEnv())
  const plain = await interleaved(rounds, bare, () => node(join(dist, 'root.js'), rootEnv()))
  const sealing = await interleaved(rounds, bare, () => node(join(dist, 'list.js'), listEnv()))
  await api.close()
  const ms = runs => stats(runs.map(r => r.ms))
  const fmt = s => `${s.median.toFixed(0)} ms`
  const bytes = statSync(join(dist, 'index.js')).size
  return [
    {
      id: 'startup',
      label: 'start-up, nothing handed on (exchange + 10 targets): action / bare two-request script, whole process',
      values: paired(plain.action, plain.baseline, r => r.ms),
      unit: '×',
      beside: `action ${fmt(ms(plain.action))}, bare ${fmt(ms(plain.baseline))}`
    },
    {
      label: 'start-up with its scrypt (list door, sealing a token): action / bare two-request script',
      values: paired(sealing.action, sealing.baseline, r => r.ms),
      unit: '×',
      beside: `action ${fmt(ms(sealing.action))}, bare ${fmt(ms(sealing.baseline))}`
    },
    { id: 'bundle', label: 'dist/index.js size', values: [bytes], unit: 'B', beside: 'one measurement' }
  ]
}
