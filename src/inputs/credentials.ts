import * as core from '@actions/core'
import { createPrivateKey, KeyObject } from 'node:crypto'
import { clientSecretBasic, clientSecretPost, maskBasicCredentials } from '../auth/client-secret.js'
import { ClientAuth, Credentials } from '../auth/credentials.js'
import { DEFAULT_OIDC_AUDIENCE, githubOidc, idTokenSource } from '../auth/github-oidc.js'
import { HandoffSettings } from '../auth/handoff.js'
import { AssertionAlgorithm, privateKeyJwt } from '../auth/private-key-jwt.js'
import { joinPath } from '../url.js'
import { choice, read, url } from './read.js'

/**
 * The client credentials inputs, checked before any request: which method proves the client, and
 * where the token endpoint is. The secrets are already masked by the caller.
 */
export function readCredentials(clientSecret: string, privateKeyText: string): Credentials {
  const bodyFormat = choice('token-request-format', ['json', 'form']) as Credentials['bodyFormat']
  const method = choice('client-auth', ['post', 'basic', 'private-key-jwt', 'github-oidc'])
  const clientId = core.getInput('client-id', { trimWhitespace: false })
  const audience = core.getInput('audience', { trimWhitespace: false })
  const scope = core.getInput('scope')
  for (const [name, value] of [
    ['client-id', clientId],
    ['client-secret', clientSecret]
  ]) {
    if (value !== value.trim()) {
      core.warning(
        `Input ${name} has leading or trailing whitespace, which is sent as it is: if it was pasted with a space or newline, remove it from the secret`
      )
    }
  }
  const tokenUrlFrom = core.getInput('token-url') ? 'token-url' : 'auth-url'
  if (tokenUrlFrom === 'token-url' && core.getInput('auth-url')) {
    core.warning('Inputs token-url and auth-url are both set: token-url is used, and auth-url is not')
  }
  const tokenUrl =
    tokenUrlFrom === 'token-url' ? url('token-url', { allowQuery: true }) : joinPath(authUrl(), 'oauth/token')
  const orToken = ' (or give a pre-issued token in the token input)'
  if (clientId.trim() === '') throw new Error(`Input required and not supplied: client-id${orToken}`)
  if (audience.trim() === '' && bodyFormat === 'json') {
    throw new Error(
      `Input required and not supplied: audience${orToken}; it is optional only with token-request-format: form`
    )
  }
  let auth: ClientAuth
  if (method === 'github-oidc') {
    // No secret at all: checked here, before any request to the identity provider.
    auth = githubOidc(idTokenSource(), read('oidc-audience'))
  } else if (method === 'private-key-jwt') {
    auth = privateKeyJwt({ ...privateKey(privateKeyText), keyId: core.getInput('private-key-id') || undefined })
  } else {
    if (clientSecret.trim() === '') throw new Error(`Input required and not supplied: client-secret${orToken}`)
    maskBasicCredentials(clientId, clientSecret)
    auth = method === 'basic' ? clientSecretBasic(clientSecret) : clientSecretPost(clientSecret)
  }
  return {
    clientId,
    auth,
    audience: audience.trim() === '' ? undefined : audience,
    scope: scope || undefined,
    tokenUrl,
    tokenUrlFrom,
    bodyFormat
  }
}

/**
 * A shard door's credentials: the listing job's settings, from its sealed token (handoff.ts), and
 * this job's own secret. The settings decide how the client authenticates; the secret is the input
 * that method needs, and is checked here, before any request.
 */
export function credentialsFrom(settings: HandoffSettings, clientSecret: string, privateKeyText: string): Credentials {
  const { method } = settings.auth
  let auth: ClientAuth
  if (method === 'github-oidc') {
    auth = githubOidc(idTokenSource(), settings.auth.audience ?? DEFAULT_OIDC_AUDIENCE)
  } else if (method === 'private-key-jwt') {
    auth = privateKeyJwt({ ...privateKey(privateKeyText), keyId: settings.auth.keyId })
  } else if (method === 'post' || method === 'basic') {
    if (clientSecret.trim() === '') {
      throw new Error(
        `Input required and not supplied: client-secret (the listing job's client authenticates with ${method}: its secret opens the sealed token)`
      )
    }
    maskBasicCredentials(settings.clientId, clientSecret)
    auth = method === 'basic' ? clientSecretBasic(clientSecret) : clientSecretPost(clientSecret)
  } else {
    throw new Error(`Input sealed-token names client-auth ${method}, which this version of the action does not know`)
  }
  return {
    clientId: settings.clientId,
    auth,
    audience: settings.audience,
    scope: settings.scope,
    tokenUrl: new URL(settings.tokenUrl),
    bodyFormat: settings.bodyFormat
  }
}

/** auth-url, which must not already name the token endpoint that the action appends. */
function authUrl(): URL {
  const parsed = url('auth-url', { what: 'the identity provider (or set token-url)' })
  if (/\/oauth\/token$/i.test(parsed.pathname)) {
    throw new Error(
      `Input auth-url ends in /oauth/token, which the action appends itself: give the identity provider's base URL ` +
        `(${parsed.origin}${parsed.pathname.replace(/\/oauth\/token$/i, '')}), or the whole endpoint as token-url`
    )
  }
  return parsed
}

/** The private-key input as a signing key: RSA (RS256) or P-256 EC (ES256), PKCS#8, PKCS#1 or SEC1 PEM. */
function privateKey(pem: string): { privateKey: KeyObject; algorithm: AssertionAlgorithm } {
  if (!pem) throw new Error('Input required and not supplied: private-key (client-auth: private-key-jwt signs with it)')
  if (!/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(pem)) {
    throw new Error('Input private-key is not a PEM private key: give the whole "-----BEGIN … PRIVATE KEY-----" block')
  }
  if (/ENCRYPTED/.test(pem)) {
    throw new Error(
      "Input private-key is encrypted: store the key unencrypted in a secret (its secrecy is the secret's)"
    )
  }
  let key: KeyObject
  try {
    key = createPrivateKey({ key: pem, format: 'pem' })
  } catch {
    throw new Error('Input private-key could not be read as a PEM private key (PKCS#8, PKCS#1 RSA or SEC1 EC)')
  }
  if (key.asymmetricKeyType === 'rsa') return { privateKey: key, algorithm: 'RS256' }
  // Only an EC key names a curve.
  const curve = key.asymmetricKeyDetails?.namedCurve
  if (curve === 'prime256v1') return { privateKey: key, algorithm: 'ES256' }
  const type = curve ? `EC ${curve}` : key.asymmetricKeyType
  throw new Error(`Input private-key is a ${type} key; only RSA (RS256) and P-256 EC (ES256) keys are supported`)
}
