// Bundled in place of the real undici: http-client imports it only for
// getAgentDispatcher(), a fetch() proxy dispatcher this action never uses.
export class ProxyAgent {
  constructor() {
    throw new Error('undici is not bundled with this action')
  }
}
