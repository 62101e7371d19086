// Stands in for undici in the bundle: @actions/http-client imports its ProxyAgent only for
// getAgentDispatcher(), a proxy for fetch(), which this action never calls.
export class ProxyAgent {
  constructor() {
    throw new Error('undici is not bundled with this action')
  }
}
