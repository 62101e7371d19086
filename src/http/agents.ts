import * as http from 'node:http'
import { HttpClient } from '@actions/http-client'
import { getProxyUrl } from '@actions/http-client/lib/proxy'
import { Connection } from './attempt.js'

/**
 * Keep-alive agents, one per protocol, and for URLs that HTTPS_PROXY / HTTP_PROXY / NO_PROXY
 * send through a proxy, the tunnelling agent of @actions/http-client (one client per protocol:
 * it caches one agent per client whatever the protocol).
 */
export class Agents {
  private readonly direct = new Map<string, http.Agent>()
  private readonly proxied = new Map<string, HttpClient>()
  private readonly connections = new Map<string, Connection>()

  constructor(private readonly userAgent: string) {}

  /** https (and so tls) is loaded only when a URL needs it. */
  async connectionFor(url: URL): Promise<Connection> {
    // One answer per origin: a routine asks for every call, and the proxy settings do not change.
    let connection = this.connections.get(url.origin)
    if (!connection) {
      connection = await this.connect(url)
      this.connections.set(url.origin, connection)
    }
    return connection
  }

  private async connect(url: URL): Promise<Connection> {
    const module = url.protocol === 'https:' ? await import('node:https') : http
    const proxy = getProxyUrl(url)
    if (proxy)
      return { request: module.request, agent: this.proxyAgent(url), proxy: `${proxy.protocol}//${proxy.host}` }
    let agent = this.direct.get(url.protocol)
    if (!agent) {
      agent = new module.Agent({ keepAlive: true })
      this.direct.set(url.protocol, agent)
    }
    return { request: module.request, agent }
  }

  private proxyAgent(url: URL): http.Agent {
    let client = this.proxied.get(url.protocol)
    if (!client) {
      client = new HttpClient(this.userAgent, [], { keepAlive: true })
      this.proxied.set(url.protocol, client)
    }
    return client.getAgent(url.href)
  }

  dispose(): void {
    this.connections.clear()
    for (const agent of this.direct.values()) agent.destroy()
    this.direct.clear()
    for (const client of this.proxied.values()) client.dispose()
    this.proxied.clear()
  }
}
