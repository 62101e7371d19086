import { HttpClient } from '@actions/http-client'
import { getProxyUrl } from '@actions/http-client/lib/proxy'
import * as http from 'node:http'
import * as https from 'node:https'
import { tunnelAgent } from '../../src/http/tunnel.js'

interface TunnelAgent {
  readonly options: Record<string, unknown>
  readonly request: unknown
  readonly createSocket: unknown
  readonly defaultPort?: number
}

describe('tunnelAgent', () => {
  const saved = { ...process.env }
  afterEach(() => {
    process.env = { ...saved }
  })

  const cases: [string, string, string, typeof http.request][] = [
    ['https target, http proxy', 'https://api.service.test/v1', 'http://u%20ser:p%40ss@proxy.test:3128', http.request],
    ['https target, https proxy', 'https://api.service.test/v1', 'https://proxy.test', https.request],
    ['http target, http proxy', 'http://api.service.test/v1', 'http://proxy.test:3128', http.request],
    ['http target, https proxy', 'http://api.service.test/v1', 'https://user@proxy.test:8443', https.request]
  ]

  it.each(cases)('%s: the agent @actions/http-client makes', async (_name, target, proxyVar, connect) => {
    for (const name of ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy', 'NO_PROXY', 'no_proxy'])
      delete process.env[name]
    process.env[target.startsWith('https:') ? 'HTTPS_PROXY' : 'HTTP_PROXY'] = proxyVar
    const url = new URL(target)
    const ours = (await tunnelAgent(url, getProxyUrl(url)!)) as unknown as TunnelAgent
    const client = new HttpClient('test/1', [], { keepAlive: true })
    const theirs = client.getAgent(target) as unknown as TunnelAgent
    client.dispose()
    expect(ours.options).toEqual({ ...theirs.options, maxSockets: undefined })
    expect(ours.request).toBe(connect)
    expect(ours.request).toBe(theirs.request)
    expect(ours.createSocket).toBe(theirs.createSocket)
    expect(ours.defaultPort).toBe(theirs.defaultPort)
  })

  it('sends the decoded user and password, and no credentials when the proxy URL has none', async () => {
    const target = new URL('https://api.service.test/')
    const withAuth = (await tunnelAgent(target, new URL('http://u:p@proxy.test:3128'))) as unknown as TunnelAgent
    expect(withAuth.options).toEqual({
      keepAlive: true,
      proxy: { proxyAuth: 'u:p', host: 'proxy.test', port: '3128' }
    })
    const without = (await tunnelAgent(target, new URL('http://proxy.test'))) as unknown as TunnelAgent
    expect(without.options).toEqual({ keepAlive: true, proxy: { host: 'proxy.test', port: '' } })
  })
})
