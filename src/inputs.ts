import * as core from '@actions/core'
import { createPrivateKey, KeyObject } from 'node:crypto'
import { clientSecretBasic, clientSecretPost, maskBasicCredentials } from './auth/client-secret.js'
import { ClientAuth, Credentials } from './auth/credentials.js'
import { DEFAULT_OIDC_AUDIENCE, githubOidc, idTokenSource } from './auth/github-oidc.js'
import { AssertionAlgorithm, privateKeyJwt } from './auth/private-key-jwt.js'
import { mask, maskPrivateKey } from './secrets.js'
import { MAX_SHARDS, parseShard, Shard } from './targets/shards.js'
import { CallSpec, parseCall } from './service/call.js'
import { joinPath } from './url.js'

export interface Inputs {
  /** Absent when a pre-issued `token` is given. */
  readonly credentials?: Credentials
  readonly token?: string
  readonly sealedToken?: string
  readonly minValiditySeconds: number
  readonly baseUrl: URL
  readonly listTargets: boolean
  readonly exportVariable?: string
  readonly timeoutSeconds: number
  readonly maxAttempts: number
  readonly maxPages: number
  /** How many targets one shard should get: the shards output is ceil(count / shardSize), at most 256. */
  readonly shardSize: number
  /** Keep only this shard of the listing. */
  readonly shard?: Shard
  /** Read the targets from this file or directory (a snapshot an earlier step wrote) instead of listing. */
  readonly targetsFrom?: string
  /** The digest the snapshot must have: sha256:<hex>. */
  readonly targetsDigest?: string
  /** Whether to set the targets output (a fan-out's mint step does not need it). */
  readonly targetsOutput: boolean
  /** The operation to call for every target (or once, without targets). */
  readonly call?: CallInputs
  readonly summary: boolean
}

export interface CallInputs {
  readonly spec: CallSpec
  /** The input as written. */
  readonly text: string
  readonly concurrency: number
  readonly rate?: number
  readonly idempotent: boolean
  readonly accept: ReadonlySet<number>
  readonly maxFailures: number
}

/** The defaults action.yml declares; applied here too when a workflow passes an empty value. */
export const DEFAULTS: Readonly<Record<string, string>> = {
  'list-targets': 'true',
  'timeout-seconds': '30',
  'max-attempts': '6',
  'max-pages': '1000',
  'shard-size': '100',
  summary: 'true',
  'targets-output': 'true',
  'call-concurrency': '4',
  'call-idempotent': 'false',
  'call-max-failures': '100',
  'min-validity-seconds': '300',
  'token-request-format': 'json',
  'client-auth': 'post',
  'oidc-audience': 'api://AzureADTokenExchange'
}

function read(name: string): string {
  return core.getInput(name) || DEFAULTS[name] || ''
}

/** Reads and validates every input; the only place that calls getInput. Masks secrets as they are read. */
export function getInputs(): Inputs {
  // Secrets first, so nothing below can print them unmasked.
  const clientSecret = core.getInput('client-secret', { trimWhitespace: false })
  mask(clientSecret)
  const privateKeyText = core.getInput('private-key')
  maskPrivateKey(privateKeyText)
  // A token copied from an Authorization header may keep its scheme: it is sent with one anyway.
  const token = core.getInput('token').replace(/^bearer\s+/i, '')
  mask(token)

  const common = {
    timeoutSeconds: number('timeout-seconds', 1, 600),
    maxAttempts: integer('max-attempts', 1, 10),
    maxPages: integer('max-pages', 1, 100_000),
    shardSize: integer('shard-size', 1, 100_000),
    minValiditySeconds: integer('min-validity-seconds', 0, 31_536_000),
    listTargets: boolean('list-targets'),
    shard: shard('list-targets'),
    ...snapshot('list-targets'),
    targetsOutput: boolean('targets-output'),
    call: call('list-targets'),
    summary: boolean('summary'),
    baseUrl: url('base-url', { required: true }),
    exportVariable: variableName('export-variable')
  }
  const bodyFormat = choice('token-request-format', ['json', 'form']) as Credentials['bodyFormat']
  const method = choice('client-auth', ['post', 'basic', 'private-key-jwt', 'github-oidc'])
  if (token) {
    if (core.getInput('client-id') || clientSecret || privateKeyText) {
      core.warning(
        'Input token is set, so no exchange is made and the client credentials inputs are not used: remove token to exchange them'
      )
    }
    return { ...common, token }
  }

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
    auth = githubOidc(idTokenSource(), read('oidc-audience') || DEFAULT_OIDC_AUDIENCE)
  } else if (method === 'private-key-jwt') {
    auth = privateKeyJwt({ ...privateKey(privateKeyText), keyId: core.getInput('private-key-id') || undefined })
  } else {
    if (clientSecret.trim() === '') throw new Error(`Input required and not supplied: client-secret${orToken}`)
    maskBasicCredentials(clientId, clientSecret)
    auth = method === 'basic' ? clientSecretBasic(clientSecret) : clientSecretPost(clientSecret)
  }
  return {
    ...common,
    credentials: {
      clientId,
      auth,
      audience: audience.trim() === '' ? undefined : audience,
      scope: scope || undefined,
      tokenUrl,
      tokenUrlFrom,
      bodyFormat
    },
    sealedToken: core.getInput('sealed-token') || undefined
  }
}

/** auth-url, which must not already name the token endpoint that the action appends. */
function authUrl(): URL {
  const parsed = url('auth-url', { required: true, what: 'the identity provider (or set token-url)' })
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
  if (key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1') {
    return { privateKey: key, algorithm: 'ES256' }
  }
  const type = key.asymmetricKeyType === 'ec' ? `EC ${key.asymmetricKeyDetails?.namedCurve}` : key.asymmetricKeyType
  throw new Error(`Input private-key is a ${type} key; only RSA (RS256) and P-256 EC (ES256) keys are supported`)
}

function url(name: string, options: { required?: boolean; allowQuery?: boolean; what?: string } = {}): URL {
  const value = core.getInput(name)
  if (!value) throw new Error(`Input required and not supplied: ${name}${options.what ? ` (${options.what})` : ''}`)
  let parsed: URL
  try {
    parsed = new URL(value)
  } catch {
    throw new Error(`Input ${name} is not a valid URL: give an absolute https:// URL`)
  }
  if (parsed.username || parsed.password) {
    throw new Error(`Input ${name} must not contain credentials (user:password@); pass them in their own inputs`)
  }
  if (parsed.protocol === 'http:' && !isLoopback(parsed.hostname)) {
    throw new Error(
      `Input ${name} must use https:// (plain http:// is accepted only for loopback hosts, for local testing)`
    )
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
    throw new Error(`Input ${name} must be an https:// URL, not ${parsed.protocol}`)
  }
  if (parsed.hash || (parsed.search && !options.allowQuery)) {
    throw new Error(`Input ${name} must not have a ${parsed.hash ? '#fragment' : '?query'}: give the base address only`)
  }
  parsed.pathname = parsed.pathname.replace(/\/+$/, '') || '/'
  return parsed
}

function isLoopback(hostname: string): boolean {
  const host = hostname.toLowerCase()
  return host === 'localhost' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host) || host === '[::1]'
}

function shard(listTargetsInput: string): Shard | undefined {
  const value = core.getInput('shard')
  if (!value) return undefined
  const parsed = parseShard(value)
  if (!parsed) {
    throw new Error(
      `Input shard must be K/N with 1 <= K <= N <= ${MAX_SHARDS}, as in the shards output (for example 3/20), got "${value}"`
    )
  }
  if (!boolean(listTargetsInput)) {
    throw new Error('Input shard needs the targets listed: remove shard, or set list-targets to true')
  }
  return parsed
}

function call(listTargetsInput: string): CallInputs | undefined {
  const text = core.getInput('call')
  if (!text) return undefined
  const spec = parseCall(text, core.getInput('call-body'))
  if (!boolean(listTargetsInput) && spec.fields.length > 0) {
    throw new Error(
      `Input call has {${spec.fields[0]}}, but with list-targets: false there is no target to fill it: one call is made, as written`
    )
  }
  const rate = core.getInput('call-rate')
  const accept = core.getInput('call-accept')
  const statuses = accept ? accept.split(',').map(s => s.trim()) : []
  if (statuses.some(s => !/^[1-5]\d\d$/.test(s))) {
    throw new Error(
      `Input call-accept must be HTTP statuses separated by commas (for example 404,409), got "${accept}"`
    )
  }
  return {
    spec,
    text,
    concurrency: integer('call-concurrency', 1, 64),
    rate: rate ? number('call-rate', 0.01, 10_000) : undefined,
    idempotent: boolean('call-idempotent'),
    accept: new Set(statuses.map(Number)),
    maxFailures: integer('call-max-failures', 1, 10_000_000)
  }
}

function snapshot(listTargetsInput: string): { targetsFrom?: string; targetsDigest?: string } {
  const targetsFrom = core.getInput('targets-from') || undefined
  const targetsDigest = core.getInput('targets-digest').toLowerCase() || undefined
  if (targetsDigest && !targetsFrom) {
    throw new Error('Input targets-digest checks the file of targets-from: set targets-from too, or remove it')
  }
  if (targetsDigest && !/^sha256:[0-9a-f]{64}$/.test(targetsDigest)) {
    throw new Error(
      `Input targets-digest must be sha256: and 64 hex digits, as the targets-digest output gives it, got "${targetsDigest}"`
    )
  }
  if (targetsFrom && !boolean(listTargetsInput)) {
    throw new Error('Input targets-from gives the targets: remove list-targets: false')
  }
  return { targetsFrom, targetsDigest }
}

function integer(name: string, min: number, max: number): number {
  const value = read(name)
  if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) {
    throw new Error(`Input ${name} must be a whole number from ${min} to ${max}, got "${value}"`)
  }
  return Number(value)
}

function number(name: string, min: number, max: number): number {
  const value = read(name)
  if (!/^\d+(\.\d+)?$/.test(value) || Number(value) < min || Number(value) > max) {
    throw new Error(`Input ${name} must be a number from ${min} to ${max}, got "${value}"`)
  }
  return Number(value)
}

function boolean(name: string): boolean {
  const value = read(name).toLowerCase()
  if (value !== 'true' && value !== 'false') {
    throw new Error(`Input ${name} must be true or false, got "${read(name)}"`)
  }
  return value === 'true'
}

function choice(name: string, allowed: readonly string[]): string {
  const value = read(name).toLowerCase()
  if (!allowed.includes(value)) {
    throw new Error(`Input ${name} must be one of ${allowed.join(', ')}, got "${read(name)}"`)
  }
  return value
}

/**
 * Names a shell, the dynamic loader, an interpreter, git or ssh, a proxy or TLS stack, or the
 * runner reads: the token must not land in any of them (README, Security). By rule, not by list
 * of examples: every name of these families is refused.
 */
const RESERVED_NAMES = new Set([
  'PATH',
  'ENV',
  'BASH_ENV',
  'HOME',
  'IFS',
  'SHELL',
  'SHELLOPTS',
  'BASHOPTS',
  'CDPATH',
  'GLOBIGNORE',
  'PROMPT_COMMAND',
  'HISTFILE',
  'TMPDIR',
  'ZDOTDIR',
  'EDITOR',
  'VISUAL',
  'PAGER',
  'GCONV_PATH',
  'LOCPATH',
  'NLSPATH',
  'HOSTALIASES',
  'RESOLV_HOST_CONF',
  'CLASSPATH',
  'PERL5LIB',
  'PERL5OPT',
  'PERLLIB',
  'RUBYOPT',
  'RUBYLIB',
  'GEM_HOME',
  'GEM_PATH',
  'JAVA_TOOL_OPTIONS',
  '_JAVA_OPTIONS',
  'JDK_JAVA_OPTIONS',
  'MAVEN_OPTS',
  'GRADLE_OPTS',
  'DOTNET_STARTUP_HOOKS',
  'GOFLAGS',
  'RUSTFLAGS',
  'CURL_CA_BUNDLE',
  'REQUESTS_CA_BUNDLE',
  'OPENSSL_CONF',
  'OPENSSL_ENGINES',
  'LESSOPEN',
  'MANPAGER',
  'BROWSER'
])
const RESERVED_PATTERN = new RegExp(
  [
    '^(GITHUB|RUNNER|ACTIONS|INPUT|STATE)_', // the runner's own, and other actions' inputs and state
    '^(LD|DYLD|MALLOC|GLIBC)_', // the dynamic loader and libc
    '^(NODE|NPM|YARN|PIP|RUBY|BUNDLE|GIT|SSH|GNUPG|GPG|DOCKER|KUBE|SSL|BASH|ZSH|CURL|JAVA|DOTNET)_', // tools
    '^(PYTHON|PERL)', // PYTHONPATH, PYTHONSTARTUP, PERL5OPT
    '_PROXY$', // proxies: HTTPS_PROXY, ALL_PROXY, NO_PROXY
    '^PS\\d$' // shell prompts, PS4 runs with set -x
  ].join('|'),
  'i'
)

/** Whether export-variable may not name it. */
export function isReservedVariable(name: string): boolean {
  return RESERVED_NAMES.has(name.toUpperCase()) || RESERVED_PATTERN.test(name)
}

function variableName(name: string): string | undefined {
  const value = core.getInput(name)
  if (!value) return undefined
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(value)) {
    throw new Error(`Input ${name} must be an environment variable name (letters, digits, _), got "${value}"`)
  }
  if (isReservedVariable(value)) {
    throw new Error(
      `Input ${name} must not name a variable that changes how later steps run or what they trust (${value}); choose another name`
    )
  }
  return value
}
