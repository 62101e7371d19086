export class ProxyAgent {
  constructor() {
    throw new Error('undici is not bundled with this action')
  }
}
