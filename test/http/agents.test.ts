import * as http from 'node:http'
import * as https from 'node:https'
import { Agents, trustEnvironment } from '../../src/http/agents.js'

describe('Agents', () => {
  const saved = { ...process.env }
  beforeEach(() => {
    for (const name of ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy', 'NO_PROXY', 'no_proxy'])
      delete process.env[name]
  })
  afterEach(() => {
    process.env = { ...saved }
  })

  it('keeps one keep-alive agent per protocol for direct connections', async () => {
    const agents = new Agents()
    const a = await agents.connectionFor(new URL('https://api.service.test/v1/targets'))
    const b = await agents.connectionFor(new URL('https://idp.service.test/oauth/token'))
    const plain = await agents.connectionFor(new URL('http://127.0.0.1:8080/'))
    expect(b.agent).toBe(a.agent)
    expect(plain.agent).not.toBe(a.agent)
    expect(a.proxy).toBeUndefined()
    expect((a.agent as unknown as { keepAlive: boolean }).keepAlive).toBe(true)
    agents.dispose()
  })

  it('makes one connection per origin, cached for the calls after the first', async () => {
    const agents = new Agents()
    const url = new URL('https://api.service.test/v1/targets')
    expect(agents.cached(url)).toBeUndefined()
    const first = await agents.connectionFor(url)
    expect(agents.cached(new URL('https://api.service.test/v1/other'))).toBe(first)
    expect(await agents.connectionFor(new URL('https://api.service.test/v2'))).toBe(first)
    expect(agents.cached(new URL('https://idp.service.test/'))).toBeUndefined()
    agents.dispose()
    expect(agents.cached(url)).toBeUndefined()
  })

  it('answers a URL of the origin last used from its text, and no other origin from it', async () => {
    const agents = new Agents()
    const first = await agents.connectionFor(new URL('https://api.service.test/v1/targets'))
    const other = await agents.connectionFor(new URL('https://idp.service.test/oauth/token'))
    expect(agents.cached(new URL('https://api.service.test/v1/targets/1'))).toBe(first)
    expect(agents.cached(new URL('https://api.service.test/v1/targets/2'))).toBe(first)
    // Origins whose text starts the same: never the last one's connection.
    expect(agents.cached(new URL('https://api.service.test.evil/v1'))).toBeUndefined()
    expect(agents.cached(new URL('https://api.service.test:8443/v1'))).toBeUndefined()
    expect(agents.cached(new URL('http://api.service.test/v1'))).toBeUndefined()
    expect(agents.cached(new URL('https://user@api.service.test/v1'))).toBe(first)
    expect(agents.cached(new URL('https://idp.service.test/x'))).toBe(other)
    expect(agents.cached(new URL('https://api.service.test/v2'))).toBe(first)
    agents.dispose()
    expect(agents.cached(new URL('https://api.service.test/v2'))).toBeUndefined()
  })

  it('uses the https module for https, http for http, and verifies certificates', async () => {
    const agents = new Agents()
    const secure = await agents.connectionFor(new URL('https://api.service.test/'))
    const plain = await agents.connectionFor(new URL('http://127.0.0.1:8080/'))
    expect(secure.request).toBe(https.request)
    expect(secure.agent).toBeInstanceOf(https.Agent)
    expect((secure.agent as unknown as { options: { rejectUnauthorized?: boolean } }).options.rejectUnauthorized).toBe(
      true
    )
    expect(plain.request).toBe(http.request)
    expect(plain.agent).not.toBeInstanceOf(https.Agent)
    agents.dispose()
  })

  it('sends what HTTPS_PROXY names through the proxy, minding NO_PROXY and loopback hosts', async () => {
    process.env.HTTPS_PROXY = 'http://proxy.corp.test:3128'
    process.env.NO_PROXY = '.internal.test'
    const agents = new Agents()
    const proxied = await agents.connectionFor(new URL('https://api.service.test/v1/targets'))
    expect(proxied.proxy).toBe('http://proxy.corp.test:3128')
    expect((proxied.agent as unknown as { options?: { proxy?: { host?: string } } }).options?.proxy?.host).toBe(
      'proxy.corp.test'
    )
    expect((await agents.connectionFor(new URL('https://other.service.test/'))).agent).toBe(proxied.agent)
    expect((await agents.connectionFor(new URL('https://idp.internal.test/token'))).proxy).toBeUndefined()
    expect((await agents.connectionFor(new URL('http://127.0.0.1:8080/'))).proxy).toBeUndefined()
    agents.dispose()
    const fresh = await agents.connectionFor(new URL('https://api.service.test/v1/targets'))
    expect(fresh.agent).not.toBe(proxied.agent)
    agents.dispose()
  })

  it('makes one tunnelling agent per protocol, even for origins asked for at once', async () => {
    process.env.HTTPS_PROXY = 'http://proxy.corp.test:3128'
    process.env.HTTP_PROXY = 'http://proxy.corp.test:3128'
    const agents = new Agents()
    const [a, b, plain] = await Promise.all([
      agents.connectionFor(new URL('https://api.service.test/')),
      agents.connectionFor(new URL('https://idp.service.test/')),
      agents.connectionFor(new URL('http://plain.service.test/'))
    ])
    expect(b.agent).toBe(a.agent)
    expect(plain.agent).not.toBe(a.agent)
    expect(plain.proxy).toBe('http://proxy.corp.test:3128')
    agents.dispose()
  })
})

describe('trustEnvironment', () => {
  const saved = { ...process.env }
  afterEach(() => {
    process.env = { ...saved }
  })

  it('removes NODE_TLS_REJECT_UNAUTHORIZED=0 with a warning, and leaves other values alone', () => {
    const warnings: string[] = []
    process.env.NODE_TLS_REJECT_UNAUTHORIZED = '0'
    trustEnvironment(
      m => warnings.push(m),
      () => undefined
    )
    expect(process.env.NODE_TLS_REJECT_UNAUTHORIZED).toBeUndefined()
    expect(warnings).toEqual([
      'NODE_TLS_REJECT_UNAUTHORIZED=0 is set in the job: this step verifies TLS certificates anyway, as it sends credentials. ' +
        'To trust an internal CA, set NODE_EXTRA_CA_CERTS to its certificate (PEM) instead.'
    ])
    process.env.NODE_TLS_REJECT_UNAUTHORIZED = '1'
    trustEnvironment(
      m => warnings.push(m),
      () => undefined
    )
    expect(warnings).toHaveLength(1)
  })

  it('registers a proxy password, user:password and its base64', () => {
    for (const name of ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy']) delete process.env[name]
    process.env.HTTP_PROXY = 'http://u%20ser:p%40ss@proxy.test:3128'
    const secrets: string[] = []
    trustEnvironment(
      () => undefined,
      s => secrets.push(s)
    )
    expect(secrets).toEqual(['p@ss', 'p%40ss', 'u ser:p@ss', Buffer.from('u ser:p@ss').toString('base64')])
    process.env.HTTP_PROXY = 'http://proxy.test:3128'
    secrets.length = 0
    trustEnvironment(
      () => undefined,
      s => secrets.push(s)
    )
    expect(secrets).toEqual([])
  })
})
