import type { Agent } from 'node:http'
import { getProxyUrl } from '@actions/http-client/lib/proxy'

// The package entry by path, not by name: in the bundle the name stands for a start-up stub
// (src/vendor/README.md), and this is the one place that needs the real client.
type HttpClientModule = typeof import('../node_modules/@actions/http-client/lib/index.js')
const load = (): Promise<HttpClientModule> => import('../node_modules/@actions/http-client/lib/index.js')

export { getProxyUrl }

/**
 * The agent for a URL that HTTPS_PROXY / HTTP_PROXY / NO_PROXY send through a proxy: the
 * tunnelling agent of @actions/http-client, one client per protocol, loaded on first use.
 */
export class ProxyAgents {
  private readonly clients = new Map<string, InstanceType<HttpClientModule['HttpClient']>>()

  constructor(private readonly userAgent: string) {}

  async agentFor(url: URL): Promise<Agent> {
    let client = this.clients.get(url.protocol)
    if (!client) {
      const { HttpClient } = await load()
      // http-client caches one agent per client whatever the protocol: keep a client per protocol.
      client = new HttpClient(this.userAgent, [], { keepAlive: true })
      this.clients.set(url.protocol, client)
    }
    return client.getAgent(url.href)
  }

  dispose(): void {
    for (const client of this.clients.values()) client.dispose()
    this.clients.clear()
  }
}
