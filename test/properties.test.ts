import fc from 'fast-check'
import { parseRetryAfter, serverRequestedWait } from '../src/http.js'
import { parseTokenResponse } from '../src/idp.js'
import { readClaims } from '../src/jwt.js'
import { nextFromLinkHeader, parseTargetsBody } from '../src/targets.js'

// Random input never crashes a parser: it yields a value or an Error with a message that says
// what failed. Anything else (a TypeError from deep inside, a non-Error throw) fails the property.
function valueOrClearError<T>(parse: () => T, prefix: string): boolean {
  try {
    parse()
    return true
  } catch (err) {
    return err instanceof Error && err.message.startsWith(prefix) && !/undefined|\[object Object\]/.test(err.message)
  }
}

const jsonish = fc.oneof(
  fc.string(),
  fc.json(),
  fc.jsonValue().map(v => JSON.stringify(v)),
  fc
    .record(
      {
        access_token: fc.oneof(fc.string(), fc.integer(), fc.constant(null)),
        token_type: fc.oneof(fc.constantFrom('Bearer', 'bearer', 'MAC', ''), fc.string(), fc.integer()),
        expires_in: fc.oneof(fc.integer(), fc.double(), fc.string()),
        scope: fc.oneof(fc.string(), fc.array(fc.string()))
      },
      { requiredKeys: [] }
    )
    .map(v => JSON.stringify(v))
)

describe('parsers under random input', () => {
  it('parseTokenResponse yields a Bearer token or a clear error, and hands every access_token to onSecret first', () => {
    fc.assert(
      fc.property(jsonish, text => {
        const secrets: string[] = []
        const ok = valueOrClearError(
          () => parseTokenResponse(text, s => secrets.push(s)),
          'Failed to exchange client credentials for a token: '
        )
        if (!ok) return false
        try {
          const token = parseTokenResponse(text, () => undefined)
          return token.tokenType === 'Bearer' && token.accessToken.trim() !== '' && secrets.includes(token.accessToken)
        } catch (err) {
          // Errors never carry the token.
          return secrets.every(s => s.length < 4 || !(err as Error).message.includes(s))
        }
      }),
      { numRuns: 2000 }
    )
  })

  it('parseTargetsBody yields an array or a clear error', () => {
    const bodies = fc.oneof(
      jsonish,
      fc
        .record(
          {
            targets: fc.anything(),
            data: fc.anything(),
            items: fc.array(fc.anything()),
            next: fc.oneof(fc.string(), fc.integer(), fc.constant(null))
          },
          { requiredKeys: [] }
        )
        .map(v => JSON.stringify(v))
    )
    fc.assert(
      fc.property(bodies, text => {
        if (!valueOrClearError(() => parseTargetsBody(text), 'Failed to list targets: ')) return false
        try {
          const page = parseTargetsBody(text)
          return Array.isArray(page.targets) && (page.next === undefined || typeof page.next === 'string')
        } catch {
          return true
        }
      }),
      { numRuns: 2000 }
    )
  })

  it('nextFromLinkHeader never throws and only returns what was between < and >', () => {
    const linkish = fc.oneof(
      fc.string(),
      fc
        .array(
          fc.record({
            url: fc.webUrl(),
            rel: fc.constantFrom('next', 'prev', 'last', '"next"', '"prev next"', 'NEXT', 'nextpage'),
            extra: fc.constantFrom('', '; title="a, b; c"', '; type=text/html', ';;')
          })
        )
        .map(links => links.map(l => `<${l.url}>; rel=${l.rel}${l.extra}`).join(', '))
    )
    fc.assert(
      fc.property(linkish, header => {
        const next = nextFromLinkHeader(header)
        return next === undefined || header.includes(`<${next}>`) || header.includes(`<${next}`)
      }),
      { numRuns: 3000 }
    )
  })

  it('finds the next link among generated links exactly when one has rel next', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ url: fc.webUrl(), rel: fc.constantFrom('next', 'prev', 'last', 'first') }), {
          minLength: 1,
          maxLength: 5
        }),
        links => {
          const header = links.map(l => `<${l.url}>; rel="${l.rel}"`).join(', ')
          const expected = links.find(l => l.rel === 'next')?.url
          return nextFromLinkHeader(header) === expected
        }
      ),
      { numRuns: 2000 }
    )
  })

  it('Retry-After and x-ratelimit-reset give undefined or a finite wait of zero or more', () => {
    const now = Date.parse('2026-11-22T06:00:00Z')
    const values = fc.oneof(
      fc.string(),
      fc.nat().map(String),
      fc.integer().map(String),
      fc.date({ noInvalidDate: true }).map(d => d.toUTCString())
    )
    fc.assert(
      fc.property(values, values, (retryAfter, reset) => {
        for (const wait of [
          parseRetryAfter(retryAfter, now),
          serverRequestedWait({ 'retry-after': retryAfter, 'x-ratelimit-reset': reset }, now)
        ]) {
          if (wait !== undefined && !(Number.isFinite(wait) && wait >= 0)) return false
        }
        return true
      }),
      { numRuns: 3000 }
    )
  })

  it('a Retry-After in seconds is read exactly', () => {
    fc.assert(fc.property(fc.integer({ min: 0, max: 1_000_000 }), s => parseRetryAfter(String(s), 0) === s * 1000))
  })

  it('readClaims never throws on any string', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc
            .tuple(fc.string(), fc.jsonValue(), fc.string())
            .map(([a, b, c]) => `${a}.${Buffer.from(JSON.stringify(b) ?? '').toString('base64url')}.${c}`)
        ),
        token => {
          const claims = readClaims(token)
          return typeof claims === 'object' && (claims.exp === undefined || Number.isFinite(claims.exp))
        }
      ),
      { numRuns: 2000 }
    )
  })
})
