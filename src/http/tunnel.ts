import type * as http from 'node:http'

/**
 * The agent that sends requests for `target` through `proxy` (a URL as @actions/http-client's
 * getProxyUrl gives it: user and password decoded), made as @actions/http-client makes it, with
 * the tunnel package: CONNECT for an https target, the proxy's credentials as Proxy-Authorization.
 * tunnel loads https and tls as it loads, so it is loaded only when a proxy is used.
 */
export async function tunnelAgent(target: URL, proxy: URL): Promise<http.Agent> {
  const tunnel = (await import('tunnel')).default
  const credentials = proxy.username || proxy.password ? { proxyAuth: `${proxy.username}:${proxy.password}` } : {}
  const options = { keepAlive: true, proxy: { ...credentials, host: proxy.hostname, port: proxy.port } }
  const viaHttps = proxy.protocol === 'https:'
  if (target.protocol === 'https:') return (viaHttps ? tunnel.httpsOverHttps : tunnel.httpsOverHttp)(options)
  return (viaHttps ? tunnel.httpOverHttps : tunnel.httpOverHttp)(options)
}
