import type { Agent } from 'node:http'
import { HttpClient } from '@actions/http-client'
import { getProxyUrl } from '@actions/http-client/lib/proxy'

export { getProxyUrl }

/**
 * The agent for a URL that HTTPS_PROXY / HTTP_PROXY / NO_PROXY send through a proxy: the
 * tunnelling agent of @actions/http-client, one client per protocol, made on first use.
 */
export class ProxyAgents {
  private readonly clients = new Map<string, HttpClient>()

  constructor(private readonly userAgent: string) {}

  agentFor(url: URL): Agent {
    let client = this.clients.get(url.protocol)
    if (!client) {
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
