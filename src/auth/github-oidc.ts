import { Transport } from '../http/client.js'
import { parseJsonObject } from '../json.js'
import { perform, ResponseError } from '../http/operation.js'
import { mask } from '../secrets.js'
import { ClientAuth } from './credentials.js'
import { ASSERTION_TYPE } from './private-key-jwt.js'

/** Entra ID's audience for workload identity federation: the default of oidc-audience. */
export const DEFAULT_OIDC_AUDIENCE = 'api://AzureADTokenExchange'
/** A compact JWS: three base64url parts and nothing else (no line break, no space, no padding). */
const JWT = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/
const PERMISSION = 'add "permissions: id-token: write" to the job (or the workflow)'

/** Where the runner hands out the job's OIDC ID token: set only with id-token: write. */
export interface IdTokenSource {
  readonly url: string
  readonly requestToken: string
}

/** The runner's ID token endpoint, or an error naming the permission to add. Masks the request token. */
export function idTokenSource(env: NodeJS.ProcessEnv = process.env): IdTokenSource {
  const url = env.ACTIONS_ID_TOKEN_REQUEST_URL
  const requestToken = env.ACTIONS_ID_TOKEN_REQUEST_TOKEN
  if (!url || !requestToken) {
    throw new Error(
      `Input client-auth is github-oidc, but the job cannot get an OIDC ID token from GitHub: ${PERMISSION}. ` +
        'It works only in a GitHub Actions job.'
    )
  }
  mask(requestToken)
  return { url, requestToken }
}

/**
 * github-oidc: no stored secret. The job's GitHub OIDC ID token, for `audience`, is sent as an
 * RFC 7523 client assertion (Microsoft Entra ID workload identity federation, Keycloak 26.6+).
 * It is fetched once per exchange, through the action's own HTTP layer and failure policy.
 */
export function githubOidc(source: IdTokenSource, audience: string): ClientAuth {
  return {
    method: 'github-oidc',
    proof: async (clientId, _tokenEndpoint, transport) => {
      if (!transport) throw new Error('github-oidc needs a transport to fetch the ID token')
      const idToken = await fetchIdToken(transport, source, audience)
      return {
        headers: {},
        fields: () => ({ client_id: clientId, client_assertion_type: ASSERTION_TYPE, client_assertion: idToken })
      }
    },
    keyMaterial: () => undefined,
    bound: { audience, method: 'github-oidc' },
    proofInputs: `the client-id and oidc-audience (${audience}) inputs, and the identity provider's federated credential (issuer, subject, audience)`
  }
}

async function fetchIdToken(transport: Transport, source: IdTokenSource, audience: string): Promise<string> {
  const url = new URL(source.url)
  url.searchParams.set('audience', audience)
  return perform(transport, {
    action: "get the job's OIDC ID token from GitHub",
    request: {
      method: 'GET',
      url,
      headers: { Accept: 'application/json', Authorization: `Bearer ${source.requestToken}` },
      maxBytes: 64 * 1024,
      label: 'ID token request'
    },
    redirect: "the runner's request token is never sent elsewhere",
    advice: status =>
      status === 401 || status === 403
        ? `The runner refused the request token: ${PERMISSION}.`
        : 'The runner failed to issue an ID token: re-run the job.',
    parse: res => {
      const value = parseJsonObject(res.body.toString('utf8'))?.value
      if (typeof value !== 'string' || !JWT.test(value)) {
        throw new ResponseError("the runner's response has no ID token (a JWT in value: three base64url parts)")
      }
      mask(value)
      return value
    }
  })
}
