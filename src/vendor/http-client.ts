export class HttpClient {
  constructor() {
    throw new Error('@actions/http-client is loaded on demand in this action: see src/proxy.ts')
  }
}
