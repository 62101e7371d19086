import nock from 'nock'
import { Bearer } from '../../src/auth/bearer.js'
import { listTargets, ListOptions, nextFromLinkHeader, parseTargetsBody } from '../../src/service/targets.js'
import { ResponseError } from '../../src/http/operation.js'
import { MAX_TARGET_DEPTH } from '../../src/json.js'
import type { HttpResponse, Transport } from '../../src/http/client.js'
import { captureStdout, recordingHttp } from '../helpers.js'
import { mask, maskPrivateKey } from '../../src/secrets.js'
import { useNock } from '../nock.js'

/** A bearer that never renews: the token as given. */
const fixed = (token: string) => ({ current: async () => token, recover: async () => undefined })
import fc from 'fast-check'
import { jsonish, valueOrClearError } from '../helpers.js'

useNock()

const API = 'https://api.service.test'
const TOKEN = 'header.payload.signature'

/** Lists, collecting the targets as they stream; resolves to the whole list. */
async function list(baseUrl = `${API}/`, maxPages = 1000, pages: number[] = []): Promise<unknown[]> {
  const targets: unknown[] = []
  const total = await listTargets(recordingHttp().http, {
    baseUrl: new URL(baseUrl),
    bearer: fixed(TOKEN),
    maxPages,
    onTargets: page => targets.push(...page),
    onPage: (_page, count) => pages.push(count)
  })
  expect(total).toBe(targets.length)
  return targets
}

describe('listTargets', () => {
  it('sends the bearer token and Accept header to {base-url}/v1/targets', async () => {
    nock(API, { reqheaders: { authorization: `Bearer ${TOKEN}`, accept: 'application/json' } })
      .get('/prefix/v1/targets')
      .reply(200, [{ id: 1 }])
    await expect(list(`${API}/prefix/`)).resolves.toEqual([{ id: 1 }])
  })

  it.each(['targets', 'data', 'items', 'results'])('accepts an object holding the list under %s', async key => {
    nock(API)
      .get('/v1/targets')
      .reply(200, { [key]: ['a', 'b'], total: 2 })
    await expect(list()).resolves.toEqual(['a', 'b'])
  })

  it('follows Link rel="next" headers, relative and absolute, to the end', async () => {
    const pages: number[] = []
    nock(API)
      .get('/v1/targets')
      .reply(200, [1, 2], { Link: '</v1/targets?page=2>; rel="next", </v1/targets?page=9>; rel="last"' })
      .get('/v1/targets?page=2')
      .reply(200, [3], { Link: `<${API}/v1/targets?page=3>; rel=next` })
      .get('/v1/targets?page=3')
      .reply(200, [4])
    await expect(list(API, 1000, pages)).resolves.toEqual([1, 2, 3, 4])
    expect(pages).toEqual([2, 1, 1])
  })

  it('follows a next URL in the body', async () => {
    nock(API)
      .get('/v1/targets')
      .reply(200, { targets: [1], next: 'v1/targets?cursor=abc' })
      .get('/v1/v1/targets?cursor=abc')
      .reply(200, { targets: [2], next: '/v1/targets?cursor=def' })
      .get('/v1/targets?cursor=def')
      .reply(200, { targets: [3], next: null })
    await expect(list()).resolves.toEqual([1, 2, 3])
  })

  it('refuses a next link to another origin, and sends nothing there', async () => {
    nock(API).get('/v1/targets').reply(200, [1], { Link: '<https://evil.test/v1/targets?page=2>; rel="next"' })
    const evil = nock('https://evil.test').get(/.*/).reply(200, [])
    await expect(list()).rejects.toThrow(
      'Failed to list targets: the next-page link points to another origin (https://evil.test, not https://api.service.test)'
    )
    expect(evil.isDone()).toBe(false)
  })

  it('refuses a next link seen before', async () => {
    nock(API)
      .get('/v1/targets')
      .reply(200, { items: [1], next: '/v1/targets?page=2' })
      .get('/v1/targets?page=2')
      .reply(200, { items: [2], next: '/v1/targets' })
    await expect(list()).rejects.toThrow('was already listed (a pagination loop)')
  })

  it('refuses a loop that does not pass the first page', async () => {
    const page3 = nock(API)
      .get('/v1/targets')
      .reply(200, { items: [1], next: '/v1/targets?page=2' })
      .get('/v1/targets?page=2')
      .reply(200, { items: [2], next: '/v1/targets?page=3' })
      .get('/v1/targets?page=3')
      .reply(200, { items: [3], next: '/v1/targets?page=2' })
    await expect(list()).rejects.toThrow(
      'the next-page link https://api.service.test/v1/targets?page=2 was already listed (a pagination loop)'
    )
    expect(page3.isDone()).toBe(true)
  })

  it('fails rather than cutting the list at max-pages', async () => {
    nock(API)
      .get('/v1/targets')
      .reply(200, { items: [1], next: '/v1/targets?page=2' })
      .get('/v1/targets?page=2')
      .reply(200, { items: [2], next: '/v1/targets?page=3' })
    await expect(list(API, 2)).rejects.toThrow(
      'the list has more than max-pages (2) pages; 2 targets so far. Raise max-pages'
    )
  })

  it('stops at max-pages exactly when the last page has no next link', async () => {
    nock(API)
      .get('/v1/targets')
      .reply(200, { items: [1], next: '/v1/targets?page=2' })
      .get('/v1/targets?page=2')
      .reply(200, { items: [2] })
    await expect(list(API, 2)).resolves.toEqual([1, 2])
  })

  it.each([
    [401, /HTTP 401 Unauthorized \(Invalid token\)\. The service refused the token/],
    [
      403,
      /HTTP 403 Forbidden \(Invalid token\)\. The token is valid but the organisation's bot user may not list targets: add the bot user to a group/
    ],
    [
      404,
      /HTTP 404 Not Found \(Invalid token\)\. Check base-url \(https:\/\/api\.service\.test\/\): targets are listed at \{base-url\}\/v1\/targets/
    ],
    [500, /HTTP 500 Internal Server Error after 3 attempts \(Invalid token\)\. The service failed: re-run later/],
    [
      429,
      /HTTP 429 Too Many Requests after 3 attempts \(Invalid token\)\. The service is rate-limiting requests: re-run later\.$/
    ],
    [409, /HTTP 409 Conflict \(Invalid token\)\. Check the base-url input\.$/]
  ])('turns HTTP %i into an error that says what to do', async (status, message) => {
    nock(API).get('/v1/targets').times(3).reply(status, { message: 'Invalid token' })
    await expect(list()).rejects.toThrow(message)
  })
})

describe('parseTargetsBody', () => {
  it.each([
    ['<html>login</html>', 'is not valid JSON: "<html>login</html>"'],
    [
      '{"count": 3, "page": 1}',
      'is a JSON object without a targets, data, items, results array (its keys: count, page)'
    ],
    ['"targets"', 'is JSON string, not a list of targets'],
    ['null', 'is JSON null, not a list of targets'],
    ['{"targets": [], "next": 5}', 'has a next field that is not a URL string']
  ])('names what is wrong with %s', (body, message) => {
    expect(() => parseTargetsBody(body)).toThrow(`the service's response ${message}`)
    expect(() => parseTargetsBody(body)).toThrow(ResponseError)
  })

  it('lists no more than ten of the keys of an object without a list', () => {
    const keys = Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`k${i}`, i]))
    expect(() => parseTargetsBody(JSON.stringify(keys))).toThrow('(its keys: k0, k1, k2, k3, k4, k5, k6, k7, k8, k9)')
    expect(() => parseTargetsBody('{}')).toThrow('(its keys: none)')
  })

  it('accepts a null next as the end', () => {
    expect(parseTargetsBody('{"results": [1], "next": null}')).toEqual({ targets: [1], next: undefined })
  })

  it('prefers the first list key in order and treats an empty next as the end', () => {
    expect(parseTargetsBody('{"data": [1], "items": [2], "next": ""}')).toEqual({ targets: [1], next: undefined })
  })
})

describe('a page nested deeper than a targets file may be', () => {
  const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`

  it('takes targets nested as deep as a targets file may hold them, in an array or an object', () => {
    expect(parseTargetsBody(`[${nested(MAX_TARGET_DEPTH)}]`).targets).toHaveLength(1)
    expect(parseTargetsBody(` {"targets":[{"a":${nested(MAX_TARGET_DEPTH - 1)}}]}`).targets).toHaveLength(1)
  })

  it.each([
    ['an array', (t: string) => `[${t}]`],
    ['an object', (t: string) => `{"next":null,"items":[${t}]}`]
  ])('refuses a target one level deeper, in %s, naming the page and the limit', (_form, page) => {
    for (const depth of [MAX_TARGET_DEPTH + 1, 200_000]) {
      expect(() => parseTargetsBody(page(`{"id":"a","status":${nested(depth - 1)}}`), 3)).toThrow(
        new ResponseError(
          `page 3 of the list nests JSON more than ${MAX_TARGET_DEPTH} levels deep, the most a targets file ` +
            'may (deeper would overflow the stack of later steps). Ask the service operator to nest its answers less deeply.'
        )
      )
    }
  })

  it('refuses a page nested too deep outside its targets, not blaming them', () => {
    expect(() => parseTargetsBody(`{"targets":[],"meta":${nested(MAX_TARGET_DEPTH + 100)}}`, 2)).toThrow(
      /^page 2 of the list nests JSON more than 512 levels deep, the most/
    )
  })

  it('fails the listing at that page, before its targets are handed on', async () => {
    nock(API)
      .get('/v1/targets')
      .reply(200, [{ id: 'a' }], { Link: '</v1/targets?page=2>; rel="next"' })
      .get('/v1/targets?page=2')
      .reply(200, `[{"id":"b","status":${nested(200_000)}}]`)
    const pages: number[] = []
    await expect(list(`${API}/`, 1000, pages)).rejects.toThrow(
      `Failed to list targets: page 2 of the list nests JSON more than ${MAX_TARGET_DEPTH} levels deep`
    )
    expect(pages).toEqual([1])
  })
})

describe('nextFromLinkHeader', () => {
  it.each([
    ['<https://a.test/?p=2>; rel="next"', 'https://a.test/?p=2'],
    ['<https://a.test/?p=1>; rel="prev", <https://a.test/?p=3>; rel="next"', 'https://a.test/?p=3'],
    ['</x?a=1,2>; title="a, b"; rel="prev next"', '/x?a=1,2'],
    ['<https://a.test/?p=2>; REL=NEXT', 'https://a.test/?p=2'],
    ['<https://a.test/?p=2>; rel="nextpage"', undefined],
    ['<https://a.test/?p=2>; rel="last"', undefined],
    ['garbage', undefined],
    ['', undefined]
  ])('%s -> %s', (header, next) => {
    expect(nextFromLinkHeader(header)).toBe(next)
  })
})

describe('under random input', () => {
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
        if (!valueOrClearError(() => parseTargetsBody(text), "the service's response ")) return false
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
})

describe('advice for a 404', () => {
  it('shows the URL requested, and says to drop /v1 when base-url already ends in it', async () => {
    nock('https://api.service.test').get('/v1/v1/targets').reply(404, { message: 'Not found' })
    const { http } = recordingHttp({ maxAttempts: 1 })
    await expect(
      listTargets(http, {
        baseUrl: new URL('https://api.service.test/v1'),
        bearer: fixed('t'),
        maxPages: 1,
        onTargets: () => undefined
      })
    ).rejects.toThrow(
      'The request went to https://api.service.test/v1/v1/targets: base-url (https://api.service.test/v1) already ends in /v1, which the action appends. Drop /v1 from base-url.'
    )
  })
})

describe('a token echoed into target data', () => {
  it('fails the listing, naming where it stands, and hands no target on', async () => {
    const token = 'eyJhbGciOiJub25lIn0.eyJzdWIiOiJib3QifQ.c2ln'
    nock('https://api.service.test')
      .get('/v1/targets')
      .reply(200, [{ id: 'a' }, { id: 'b', owner: { note: `token was Bearer ${token}` } }])
    const { http } = recordingHttp({ maxAttempts: 1 })
    const got: unknown[] = []
    await expect(
      listTargets(http, {
        baseUrl: new URL('https://api.service.test'),
        bearer: fixed(token),
        maxPages: 1,
        onTargets: t => got.push(...t)
      })
    ).rejects.toThrow(
      "Failed to list targets: the service's response holds the bearer token at targets[1].owner.note; it is never written to targets or targets-file."
    )
    expect(got).toEqual([])
  })
})

describe('a token echoed into target data in another form', () => {
  const token = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJib3QiLCJqdGkiOiI0MiJ9.c2lnbmF0dXJlLW9mLXRoZS10b2tlbg'
  const listWith = (targets: unknown[]) => {
    nock('https://api.service.test').get('/v1/targets').reply(200, targets)
    const { http } = recordingHttp({ maxAttempts: 1 })
    return listTargets(http, {
      baseUrl: new URL('https://api.service.test'),
      bearer: fixed(token),
      maxPages: 1,
      onTargets: () => undefined
    })
  }

  it.each([
    ['base64', Buffer.from(`Bearer ${token}`).toString('base64')],
    ['base64url', Buffer.from(`x${token}`).toString('base64url')],
    ['percent-encoded', encodeURIComponent(`a ${token}`)],
    ['in part', token.slice(40, 60)]
  ])('fails the listing like the raw form: %s', async (_form, echoed) => {
    await expect(listWith([{ id: 'a', note: echoed }])).rejects.toThrow(
      "the service's response holds the bearer token at targets[0].note"
    )
  })

  it('lists a target that holds another token of the same issuer: the header is no part of the secret', async () => {
    const other = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJvdGhlciJ9.YW5vdGhlciBvbmU' // {"sub":" alike
    await expect(listWith([{ id: 'a', note: other }])).resolves.toBe(1)
  })
})

describe('another secret of the step echoed into target data', () => {
  captureStdout() // mask() writes ::add-mask:: lines
  const clientSecret = 'Qx8~Lm2.Zp_Vb7-Kd9~Rt4.Wn6_Hs1-Jf3~Gc5.Ya0'
  const keyLine = 'MHcCAQEEIGx9v3bZ0kq8NfR2pT7sW1yU4oA6cE5dH9jL3mQ0nB8xoAoGCCqGSM49'
  const oidc = 'eyJhbGciOiJSUzI1NiIsImtpZCI6ImdoIn0.eyJzdWIiOiJyZXBvOm8vcjpyZWY6cmVmcy9oZWFkcy9tYWluIn0.Z2l0aHViLW9pZGM'
  const earlier = 'eyJhbGciOiJSUzI1NiJ9.eyJqdGkiOiJmaXJzdC1vZi10d28ifQ.Zmlyc3QtdG9rZW4tc2lnbmF0dXJl'
  const current = 'eyJhbGciOiJSUzI1NiJ9.eyJuIjoyLCJzdWIiOiJyb2JvdCJ9.c2Vjb25kLXRva2VuLXNpZ25hdHVyZQ'
  const listWith = (targets: unknown[]) => {
    nock('https://api.service.test').get('/v1/targets').reply(200, targets)
    const { http } = recordingHttp({ maxAttempts: 1 })
    const got: unknown[] = []
    const listed = listTargets(http, {
      baseUrl: new URL('https://api.service.test'),
      bearer: fixed(current),
      maxPages: 1,
      onTargets: t => got.push(...t)
    })
    return listed.then(
      count => ({ count, error: undefined as string | undefined, got }),
      (err: Error) => ({ count: undefined, error: err.message, got })
    )
  }
  beforeEach(() => {
    mask(clientSecret)
    mask(Buffer.from(`client-abc:${clientSecret}`).toString('base64'))
    maskPrivateKey(`-----BEGIN EC PRIVATE KEY-----\n${keyLine}\n-----END EC PRIVATE KEY-----\n`)
    mask(oidc)
    mask(earlier)
    mask(current)
  })

  it.each([
    ['the client secret', clientSecret],
    ['the client secret in base64', Buffer.from(`x${clientSecret}`).toString('base64')],
    ['the client secret in hex', Buffer.from(clientSecret).toString('hex')],
    ['the client secret in hex with spaces', (Buffer.from(clientSecret).toString('hex').match(/../g) ?? []).join(' ')],
    ['the Basic pair', `Basic ${Buffer.from(`client-abc:${clientSecret}`).toString('base64')}`],
    ["a private key's line", keyLine],
    ['the GitHub ID token', oidc],
    ['a token before a renewal', earlier],
    ['12 characters of a token before a renewal', earlier.slice(40, 52)]
  ])(
    'fails the listing on %s, naming where it stands but not what it is, and hands no target on',
    async (_what, echoed) => {
      const { error, got } = await listWith([{ id: 'a' }, { id: 'b', owner: { note: `was ${echoed}` } }])
      expect(error).toBe(
        "Failed to list targets: the service's response holds a secret of this step other than its bearer token " +
          '(the client secret or private key, a client assertion, an ID token, an earlier token) at ' +
          'targets[1].owner.note; it is never written to targets or targets-file. Ask the service operator why it ' +
          'echoes credentials.'
      )
      expect(got).toEqual([])
    }
  )

  it('names the bearer token when it is the one echoed, registered or not', async () => {
    const { error } = await listWith([{ id: 'a', note: current }])
    expect(error).toMatch(/holds the bearer token at targets\[0\]\.note;/)
  })

  it('lists targets that hold a registered secret under 12 characters, or its hex: ordinary data may', async () => {
    // A short key line ("AQAB") or a short secret is found only whole: a word, or 8 digits of a digest.
    mask('AQAB')
    mask('s3cr3t')
    const digest = `00ab${Buffer.from('s3cr3t').toString('hex')}99`
    const targets = [{ id: 'a', note: 'rotate s3cr3t weekly', exponent: 'AQAB', sha: digest }]
    await expect(listWith(targets)).resolves.toEqual({ count: 1, error: undefined, got: targets })
  })

  it('lists targets that hold none of them', async () => {
    await expect(listWith([{ id: 'a', note: clientSecret.slice(0, 11) }])).resolves.toEqual({
      count: 1,
      error: undefined,
      got: [{ id: 'a', note: clientSecret.slice(0, 11) }]
    })
  })
})

describe('next-page links', () => {
  it('refuses a link over 8 KiB rather than keep it', async () => {
    nock('https://api.service.test')
      .get('/v1/targets')
      .reply(200, { targets: [{ id: 'a' }], next: `/v1/targets?cursor=${'x'.repeat(9000)}` })
    const { http } = recordingHttp({ maxAttempts: 1 })
    await expect(
      listTargets(http, {
        baseUrl: new URL('https://api.service.test'),
        bearer: fixed('t'),
        maxPages: 5,
        onTargets: () => undefined
      })
    ).rejects.toThrow('Failed to list targets: the next-page link is 9019 characters long, more than 8192')
  })
})

describe('a long listing', () => {
  it('renews the token as it nears expiry between pages: no page is sent with a token about to expire', async () => {
    const clock = { now: Date.parse('2026-11-23T06:00:00Z') }
    let renewed = 0
    const bearer = new Bearer(
      { accessToken: 'sealed-token-1', tokenType: 'Bearer', source: 'sealed', expiresAtMs: clock.now + 120_000 },
      async () => ({
        accessToken: `fresh-token-${++renewed}`,
        tokenType: 'Bearer',
        source: 'exchange',
        expiresAtMs: clock.now + 3_600_000
      }),
      () => undefined,
      () => clock.now
    )
    nock('https://api.service.test')
      .matchHeader('authorization', 'Bearer sealed-token-1')
      .get('/v1/targets')
      .reply(() => {
        clock.now += 61_000 // the page took a while: the token now has 59 s left
        return [200, { targets: [{ id: 'a' }], next: '/v1/targets?page=2' }]
      })
    nock('https://api.service.test')
      .matchHeader('authorization', 'Bearer fresh-token-1')
      .get('/v1/targets?page=2')
      .reply(200, { targets: [{ id: 'b' }] })
    const { http } = recordingHttp({ maxAttempts: 1 })
    const got: unknown[] = []
    await listTargets(http, {
      baseUrl: new URL('https://api.service.test'),
      bearer,
      maxPages: 5,
      onTargets: t => got.push(...t)
    })
    expect(got).toEqual([{ id: 'a' }, { id: 'b' }])
    expect(nock.isDone()).toBe(true)
    expect(renewed).toBe(1)
  })
})

describe('each rule of a page', () => {
  const base = 'https://api.service.test'
  /** A bearer whose recover() is recorded and gives `fresh` (or nothing). */
  const recovering = (fresh?: string) => {
    const refused: string[] = []
    return {
      refused,
      bearer: {
        current: async () => 'old-token',
        recover: async (token: string) => {
          refused.push(token)
          return fresh
        }
      }
    }
  }
  const run = (bearer: ListOptions['bearer'], overrides: Partial<ListOptions> = {}, http = recordingHttp().http) => {
    const got: unknown[] = []
    return listTargets(http, {
      baseUrl: new URL(base),
      bearer,
      maxPages: 5,
      onTargets: t => got.push(...t),
      ...overrides
    }).then(() => got)
  }

  it('after a 401, asks the bearer once for a fresh token and sends the page again with it', async () => {
    nock(base).matchHeader('authorization', 'Bearer old-token').get('/v1/targets').reply(401)
    nock(base)
      .matchHeader('authorization', 'Bearer new-token')
      .get('/v1/targets')
      .reply(200, [{ id: 'a' }])
    const { bearer, refused } = recovering('new-token')
    await expect(run(bearer)).resolves.toEqual([{ id: 'a' }])
    expect(refused).toEqual(['old-token'])
  })

  it('fails on a 401 when the bearer has no fresh token', async () => {
    nock(base).get('/v1/targets').reply(401)
    const { bearer, refused } = recovering(undefined)
    await expect(run(bearer)).rejects.toThrow('answered HTTP 401 Unauthorized')
    expect(refused).toEqual(['old-token'])
  })

  it('asks for no fresh token after another status', async () => {
    nock(base).get('/v1/targets').reply(403)
    const { bearer, refused } = recovering('new-token')
    await expect(run(bearer, {}, recordingHttp({ maxAttempts: 1 }).http)).rejects.toThrow('HTTP 403 Forbidden')
    expect(refused).toEqual([])
  })

  it('names the page in retry lines, and says after each page whether more follow', async () => {
    nock(base)
      .get('/v1/targets')
      .reply(503)
      .get('/v1/targets')
      .reply(200, { targets: [1], next: '/v1/targets?page=2' })
      .get('/v1/targets?page=2')
      .reply(503)
      .get('/v1/targets?page=2')
      .reply(200, { targets: [2, 3] })
    const recorded = recordingHttp()
    const pages: unknown[][] = []
    await run(fixed('t'), { onPage: (...args) => pages.push(args) }, recorded.http)
    expect(recorded.infos.map(l => l.slice(0, l.indexOf(' failed')))).toEqual([
      'The targets request',
      'The targets request (page 2)'
    ])
    expect(pages).toEqual([
      [1, 1, 1, true],
      [2, 2, 3, false]
    ])
  })

  it('refuses a page that echoes a token of 8 characters', async () => {
    nock(base)
      .get('/v1/targets')
      .reply(200, [{ id: 'x', note: 'abcdefgh' }])
    await expect(run(fixed('abcdefgh'))).rejects.toThrow(
      "the service's response holds the bearer token at targets[0].note"
    )
  })

  it('follows a next link of exactly 8 KiB', async () => {
    const next = `/v1/targets?c=${'x'.repeat(8192 - 14)}`
    nock(base)
      .get('/v1/targets')
      .reply(200, { targets: [1], next })
      .get(next)
      .reply(200, { targets: [2] })
    await expect(run(fixed('t'))).resolves.toEqual([1, 2])
  })
})

describe('the next page, asked for ahead', () => {
  /** A service of `pages` pages, each linking to the next; records what happens, in order. */
  function service(pages: number, answer?: (page: number) => Promise<HttpResponse> | undefined) {
    const events: string[] = []
    const transport: Transport = {
      send: async request => {
        // Every ask is recorded, one without a URL too.
        if (!request.url) events.push('ask without a URL')
        const page = Number(request.url.searchParams.get('page') ?? 1)
        events.push(`ask ${page}`)
        const answered = answer?.(page)
        if (answered) return answered
        const headers = page < pages ? { link: `<${API}/v1/targets?page=${page + 1}>; rel="next"` } : {}
        return { status: 200, headers, body: Buffer.from(JSON.stringify([{ id: `t${page}` }])), attempts: 1 }
      }
    }
    return { events, transport }
  }
  const options = (events: string[], maxPages = 10, onTargets?: (targets: unknown[]) => void): ListOptions => ({
    baseUrl: new URL(`${API}/`),
    bearer: fixed(TOKEN),
    maxPages,
    onTargets: onTargets ?? (targets => events.push(`write ${(targets[0] as { id: string }).id}`))
  })

  it("asks for the next page before writing this one's targets, one request at a time", async () => {
    const { events, transport } = service(3)
    await expect(listTargets(transport, options(events))).resolves.toBe(3)
    expect(events).toEqual(['ask 1', 'ask 2', 'write t1', 'ask 3', 'write t2', 'write t3'])
  })

  it('asks for no page past max-pages', async () => {
    const { events, transport } = service(5)
    await expect(listTargets(transport, options(events, 2))).rejects.toThrow('more than max-pages (2) pages')
    expect(events).toEqual(['ask 1', 'ask 2', 'write t1', 'write t2'])
  })

  it("fails with the page's own failure, and the next page's failure is nobody's unhandled rejection", async () => {
    const unhandled: unknown[] = []
    const listener = (reason: unknown): void => {
      unhandled.push(reason)
    }
    process.on('unhandledRejection', listener)
    try {
      const { events, transport } = service(3, page =>
        page === 2 ? new Promise((_, reject) => setImmediate(() => reject(new Error('socket closed')))) : undefined
      )
      const failing = options(events, 10, () => {
        throw new Error('Failed to write the targets file: disk full')
      })
      await expect(listTargets(transport, failing)).rejects.toThrow('disk full')
      await new Promise(resolve => setTimeout(resolve, 20))
      expect(events).toEqual(['ask 1', 'ask 2'])
      expect(unhandled).toEqual([])
    } finally {
      process.off('unhandledRejection', listener)
    }
  })

  it("writes a page's targets before failing on its next link, and asks for nothing there", async () => {
    const { events, transport } = service(1, page =>
      page === 1
        ? Promise.resolve({
            status: 200,
            headers: { link: '<https://elsewhere.test/v1/targets?page=2>; rel="next"' },
            body: Buffer.from('[{"id":"t1"}]'),
            attempts: 1
          })
        : undefined
    )
    await expect(listTargets(transport, options(events))).rejects.toThrow('elsewhere.test')
    expect(events).toEqual(['ask 1', 'write t1'])
  })
})
