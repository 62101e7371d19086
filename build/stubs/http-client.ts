// Stands in for @actions/http-client in the bundle, where only @actions/core imports it: for
// getIDToken() (oidc-utils.ts), which this action never calls (src/auth/github-oidc.ts asks for
// its own token through src/http). The real package loads https, tls and tunnel as it loads.
export class HttpClient {
  constructor() {
    throw new Error('@actions/http-client is not bundled with this action')
  }
}
