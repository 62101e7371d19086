// The part of the tunnel package (it ships no types) that src/http/tunnel.ts uses.
declare module 'tunnel' {
  import type { Agent } from 'node:http'

  export interface TunnelOptions {
    readonly keepAlive?: boolean
    readonly proxy: { readonly host: string; readonly port: string; readonly proxyAuth?: string }
  }
  type MakeAgent = (options: TunnelOptions) => Agent
  const tunnel: {
    readonly httpOverHttp: MakeAgent
    readonly httpsOverHttp: MakeAgent
    readonly httpOverHttps: MakeAgent
    readonly httpsOverHttps: MakeAgent
  }
  export default tunnel
}
