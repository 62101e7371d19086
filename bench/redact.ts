// npx tsx bench/redact.ts: the cost of redact() on the texts a routine writes for every call, with
// a client secret and a JWT access token registered. Prints microseconds per call (median of 9 runs).
import { randomBytes } from 'node:crypto'
import { mask, redact } from '../src/secrets.js'

const secret = randomBytes(30).toString('base64')
const payload = Buffer.from(JSON.stringify({ sub: 'bot', aud: 'api', exp: 1_900_000_000, scope: 'targets:read' }))
const token = `eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9.${payload.toString('base64url')}.${randomBytes(256).toString('base64url')}`
const write = process.stdout.write.bind(process.stdout)
process.stdout.write = () => true // mask() writes ::add-mask:: lines
mask(secret)
mask(token)
process.stdout.write = write

const plain = JSON.stringify({
  id: 't-000123',
  name: 'build-server-eu-west',
  status: 'scheduled',
  scan: { id: 48213, queued: true, priority: 3 },
  owner: 'team-platform',
  at: '2026-11-24T10:00:00Z'
})
const bodies: Record<string, string> = {
  'JSON, no encodings': plain,
  'JSON with escapes': plain.replace('build-server-eu-west', 'build\\/server \\u00fc \\"eu\\"'),
  'JSON with a UUID': plain.replace('t-000123', '3f2504e0-4f89-11d3-9a0c-0305e82c3301'),
  'results line': `{"index":122,"id":"t-000123","status":200,"attempts":1,"ms":4,"body":${plain}}`,
  "npm run bench's results line": '{"index":122,"id":"t-000123","status":200,"attempts":1,"ms":0,"body":{"ok":true}}'
}

const N = 200_000
for (const [name, body] of Object.entries(bodies)) {
  const runs: number[] = []
  for (let r = 0; r < 9; r++) {
    const t0 = process.hrtime.bigint()
    for (let i = 0; i < N; i++) if (redact(body) !== body) throw new Error('redacted an ordinary body')
    runs.push(Number(process.hrtime.bigint() - t0) / N / 1000)
  }
  runs.sort((a, b) => a - b)
  console.log(`${name} (${body.length} chars): ${runs[4].toFixed(2)} µs`)
}
