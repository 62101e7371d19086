// A real, certified OpenID Connect / OAuth 2.0 server for the end-to-end tests: oidc-provider from
// npm, with the confidential clients the tests give it, each allowed the client-credentials grant.
//   node oidc_server.js '<JSON array of client metadata>'
// A client's metadata is oidc-provider's own: token_endpoint_auth_method client_secret_post,
// client_secret_basic or private_key_jwt (public keys inline as jwks), and the scope it may ask
// for. Prints one line, {"port": N}, once it listens on 127.0.0.1. Its token endpoint is /token.
import { createServer } from 'node:http'
import Provider from 'oidc-provider'

const clients = JSON.parse(process.argv[2]).map(client => ({
  grant_types: ['client_credentials'],
  redirect_uris: [],
  response_types: [],
  ...client
}))
const scopes = [...new Set(clients.flatMap(c => (c.scope ?? '').split(' ').filter(Boolean)))]
const server = createServer()
await new Promise(resolve => server.listen(0, '127.0.0.1', resolve))
const { port } = server.address()

const provider = new Provider(`http://127.0.0.1:${port}`, {
  clients,
  scopes,
  features: { clientCredentials: { enabled: true }, devInteractions: { enabled: false } },
  clientBasedCORS: () => false
})
provider.on('server_error', (_ctx, err) => console.error(err))
server.on('request', provider.callback())
console.log(JSON.stringify({ port }))
