import * as http from 'node:http'
import { getProxyUrl } from '@actions/http-client/lib/proxy'
import { Connection } from './attempt.js'
import { tunnelAgent } from './tunnel.js'

/**
 * Keep-alive agents, one per protocol, and for URLs that HTTPS_PROXY / HTTP_PROXY / NO_PROXY
 * send through a proxy (as @actions/http-client reads them), a tunnelling agent per protocol. https
 * (and so tls) is loaded only when a URL or a proxy needs it.
 */
export class Agents {
  private readonly direct = new Map<string, http.Agent>()
  private readonly proxied = new Map<string, Promise<http.Agent>>()
  private readonly connections = new Map<string, Connection>()
  private last: { readonly prefix: string; readonly connection: Connection } | undefined

  /** The connection already made for the URL's origin: the routine's every call but the first. */
  cached(url: URL): Connection | undefined {
    // A routine's every call goes where the one before it went: no origin is worked out for it.
    const last = this.last
    if (last !== undefined && url.href.startsWith(last.prefix)) return last.connection
    const connection = this.connections.get(url.origin)
    if (connection) this.last = { prefix: `${url.origin}/`, connection }
    return connection
  }

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
    if (proxy) {
      let tunnel = this.proxied.get(url.protocol)
      if (!tunnel) {
        tunnel = tunnelAgent(url, proxy)
        this.proxied.set(url.protocol, tunnel)
      }
      return { request: module.request, agent: await tunnel, proxy: `${proxy.protocol}//${proxy.host}` }
    }
    let agent = this.direct.get(url.protocol)
    if (!agent) {
      // Certificates are verified whatever NODE_TLS_REJECT_UNAUTHORIZED says (see trustEnvironment).
      agent = new module.Agent({ keepAlive: true, rejectUnauthorized: true })
      this.direct.set(url.protocol, agent)
    }
    return { request: module.request, agent }
  }

  dispose(): void {
    this.last = undefined
    this.connections.clear()
    for (const agent of this.direct.values()) agent.destroy()
    this.direct.clear()
    this.proxied.clear()
  }
}

/**
 * Makes the job's environment safe to send credentials through. NODE_TLS_REJECT_UNAUTHORIZED=0
 * would send the client secret to a server whose certificate nobody checked: it is removed for
 * this step, with a warning (NODE_EXTRA_CA_CERTS is the way to trust an internal CA). A proxy's
 * credentials are registered as secrets in every form a debug log could show them.
 */
export function trustEnvironment(warn: (message: string) => void, secret: (value: string) => void): void {
  if (process.env.NODE_TLS_REJECT_UNAUTHORIZED === '0') {
    delete process.env.NODE_TLS_REJECT_UNAUTHORIZED
    warn(
      'NODE_TLS_REJECT_UNAUTHORIZED=0 is set in the job: this step verifies TLS certificates anyway, as it sends credentials. ' +
        'To trust an internal CA, set NODE_EXTRA_CA_CERTS to its certificate (PEM) instead.'
    )
  }
  for (const name of ['https_proxy', 'HTTPS_PROXY', 'http_proxy', 'HTTP_PROXY']) {
    const value = process.env[name]
    if (!value) continue
    try {
      const { username, password } = new URL(value)
      if (!password) continue
      const user = decodeURIComponent(username)
      const pass = decodeURIComponent(password)
      for (const form of [pass, password, `${user}:${pass}`, Buffer.from(`${user}:${pass}`).toString('base64')]) {
        secret(form)
      }
    } catch {
      // not a URL: nothing a proxy client would use
    }
  }
}
