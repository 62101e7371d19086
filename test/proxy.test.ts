import { getProxyUrl, ProxyAgents } from '../src/proxy.js'

describe('ProxyAgents', () => {
  const saved = { ...process.env }
  beforeEach(() => {
    for (const name of ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy', 'NO_PROXY', 'no_proxy'])
      delete process.env[name]
  })
  afterEach(() => {
    process.env = { ...saved }
  })

  it('finds the proxy for a URL from HTTPS_PROXY, minding NO_PROXY and loopback hosts', () => {
    process.env.HTTPS_PROXY = 'http://proxy.corp.test:3128'
    process.env.NO_PROXY = '.internal.test'
    expect(getProxyUrl(new URL('https://api.service.test/v1/targets'))?.host).toBe('proxy.corp.test:3128')
    expect(getProxyUrl(new URL('https://idp.internal.test/oauth/token'))).toBeUndefined()
    expect(getProxyUrl(new URL('http://127.0.0.1:8080/'))).toBeUndefined()
  })

  it('gives one tunnelling agent per protocol, kept alive, until disposed', async () => {
    process.env.HTTPS_PROXY = 'http://proxy.corp.test:3128'
    const agents = new ProxyAgents('test-agent/1')
    const url = new URL('https://api.service.test/v1/targets')
    const first = await agents.agentFor(url)
    expect(first).toBeDefined()
    expect(await agents.agentFor(new URL('https://other.service.test/'))).toBe(first)
    expect((first as unknown as { options?: { proxy?: { host?: string } } }).options?.proxy?.host).toBe(
      'proxy.corp.test'
    )
    agents.dispose()
    const fresh = await agents.agentFor(url)
    expect(fresh).not.toBe(first)
    agents.dispose()
  })
})
