// A small demo identity provider and service on 127.0.0.1, behaving as the real ones are documented:
// POST /oauth/token takes the JSON client-credentials body and issues a signed JWT;
// GET /v1/targets takes that JWT as a bearer token and lists targets, two pages linked by Link;
// POST /v1/targets/{id}/scans queues a scan: 409 for ever for the paused target, and a 503 for the
// first scan of the busy one (its scanner is busy once, then free), so a re-run has work left.
import { createHmac, randomBytes } from 'node:crypto'
import { createServer } from 'node:http'

export const DEMO_CLIENT = {
  id: 'demo-client',
  secret: 'demo-secret-Zq8#"\\ü',
  audience: 'https://demo.idp.local/api/v2/'
}

const TARGETS = [
  { id: 'tgt-001', name: 'payments-api', type: 'service', status: 'active' },
  { id: 'tgt-002', name: 'billing-db', type: 'database', status: 'active' },
  { id: 'tgt-003', name: 'edge-proxy', type: 'host', status: 'paused' },
  { id: 'tgt-004', name: 'ci-runner-pool', type: 'host', status: 'active' },
  { id: 'tgt-005', name: 'reports-bucket', type: 'storage', status: 'active' }
]
/** Targets whose first scan gets a 503 (the scanner is busy) and every later one a 202. */
const BUSY_ONCE = new Set(['tgt-004'])

const b64 = value => Buffer.from(JSON.stringify(value)).toString('base64url')

function listen(server) {
  return new Promise(resolve =>
    server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${server.address().port}`))
  )
}

function send(res, status, body, headers = {}) {
  res.writeHead(status, { 'Content-Type': 'application/json', ...headers })
  res.end(JSON.stringify(body))
}

function readBody(req) {
  return new Promise(resolve => {
    let body = ''
    req
      .setEncoding('utf8')
      .on('data', d => (body += d))
      .on('end', () => resolve(body))
  })
}

export async function startDemoServers() {
  const key = randomBytes(32)
  const sign = data => createHmac('sha256', key).update(data).digest('base64url')
  let tokenRequests = 0
  const scanned = new Set()
  const idp = createServer(async (req, res) => {
    if (req.method !== 'POST' || req.url !== '/oauth/token') return send(res, 404, { error: 'not_found' })
    tokenRequests++
    let body
    try {
      body = JSON.parse(await readBody(req))
    } catch {
      return send(res, 400, { error: 'invalid_request', error_description: 'Body must be JSON' })
    }
    if (body.grant_type !== 'client_credentials') return send(res, 400, { error: 'unsupported_grant_type' })
    if (body.client_id !== DEMO_CLIENT.id || body.client_secret !== DEMO_CLIENT.secret) {
      return send(res, 401, { error: 'access_denied', error_description: 'Unauthorized' })
    }
    if (body.audience !== DEMO_CLIENT.audience) {
      return send(res, 403, {
        error: 'access_denied',
        error_description: `Client has not been granted scopes for ${body.audience}`
      })
    }
    const now = Math.floor(Date.now() / 1000)
    const unsigned = `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64({ iss: 'demo-idp', sub: `${DEMO_CLIENT.id}@clients`, aud: body.audience, iat: now, exp: now + 86400, scope: 'read:client_grants' })}`
    send(res, 200, {
      access_token: `${unsigned}.${sign(unsigned)}`,
      scope: 'read:client_grants',
      expires_in: 86400,
      token_type: 'Bearer'
    })
  })
  const service = createServer((req, res) => {
    const url = new URL(req.url, 'http://127.0.0.1')
    const [, unsigned, signature] =
      /^Bearer ((?:[\w-]+)\.(?:[\w-]+))\.([\w-]+)$/.exec(req.headers.authorization ?? '') ?? []
    if (!unsigned || signature !== sign(unsigned)) return send(res, 401, { message: 'Invalid token' })
    // POST /v1/targets/{id}/scans: an operation to call per target; the paused target refuses it.
    const scan = /^\/v1\/targets\/([^/]+)\/scans$/.exec(url.pathname)
    if (req.method === 'POST' && scan) {
      const target = TARGETS.find(t => t.id === decodeURIComponent(scan[1]))
      if (!target) return send(res, 404, { message: 'No such target' })
      if (target.status === 'paused') return send(res, 409, { code: 'paused', message: 'The target is paused' })
      const first = !scanned.has(target.id)
      scanned.add(target.id)
      if (BUSY_ONCE.has(target.id) && first) return send(res, 503, { code: 'busy', message: 'The scanner is busy' })
      return send(res, 202, { scan: `scan-${target.id}`, state: 'queued' })
    }
    if (req.method !== 'GET' || url.pathname !== '/v1/targets') return send(res, 404, { message: 'Not found' })
    const page = url.searchParams.get('page') === '2' ? 2 : 1
    const items = page === 1 ? TARGETS.slice(0, 3) : TARGETS.slice(3)
    const headers = page === 1 ? { Link: '</v1/targets?page=2>; rel="next"' } : {}
    send(res, 200, { targets: items }, headers)
  })
  const [authUrl, baseUrl] = await Promise.all([listen(idp), listen(service)])
  return {
    authUrl,
    baseUrl,
    /** How many token requests the identity provider has answered. */
    get tokenRequests() {
      return tokenRequests
    },
    close: () => Promise.all([idp, service].map(s => new Promise(resolve => s.close(resolve))))
  }
}
