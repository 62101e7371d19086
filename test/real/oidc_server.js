// A real, certified OpenID Connect / OAuth 2.0 server for the end-to-end tests: oidc-provider from
// npm, with one confidential client allowed the client-credentials grant (client_secret_post).
//   node oidc_server.js CLIENT_ID CLIENT_SECRET
// Prints one line, {"port": N}, once it listens on 127.0.0.1. Its token endpoint is /token.
import { createServer } from 'node:http'
import Provider from 'oidc-provider'

const [clientId, clientSecret] = process.argv.slice(2)
const server = createServer()
await new Promise(resolve => server.listen(0, '127.0.0.1', resolve))
const { port } = server.address()

const provider = new Provider(`http://127.0.0.1:${port}`, {
  clients: [
    {
      client_id: clientId,
      client_secret: clientSecret,
      grant_types: ['client_credentials'],
      redirect_uris: [],
      response_types: [],
      token_endpoint_auth_method: 'client_secret_post'
    }
  ],
  features: { clientCredentials: { enabled: true }, devInteractions: { enabled: false } },
  clientBasedCORS: () => false
})
provider.on('server_error', (_ctx, err) => console.error(err))
server.on('request', provider.callback())
console.log(JSON.stringify({ port }))
