import * as core from '@actions/core'

/**
 * The names export-variable may take: a name that ends in _TOKEN, or TOKEN. An allow rule, not a
 * list of dangers, so that it cannot be outgrown: MAKEFLAGS, CC, KUBECONFIG, RUSTC_WRAPPER and the
 * setting a tool adds next year are all refused by it. Tools read a *_TOKEN as a credential, never
 * as code or as settings that change what they run.
 */
const TOKEN_NAME = /^([A-Z][A-Z0-9_]*_)?TOKEN$/

/**
 * The namespaces, among those names, that the runner or a well-known tool reads as its own: a
 * tool would take the token for its credential and send it to its own servers, where the token
 * must only reach the service it was issued for. Namespaces, not names: a tool reads more than one
 * (GH_TOKEN and GH_ENTERPRISE_TOKEN, CARGO_REGISTRIES_<name>_TOKEN). Each says who reads it.
 */
export const CREDENTIAL_NAMESPACES: readonly (readonly [prefix: string, owner: string])[] = [
  ['GITHUB_', "the runner sets them, and GitHub's tools read GITHUB_TOKEN as their credential"],
  ['ACTIONS_', 'the runner reads ACTIONS_RUNTIME_TOKEN and ACTIONS_ID_TOKEN_REQUEST_TOKEN as its own credentials'],
  ['RUNNER_', 'the runner sets and reads them'],
  ['INPUT_', 'other actions read them as their inputs'],
  ['STATE_', 'other actions read them as their saved state'],
  ['GH_', 'the GitHub CLI reads GH_TOKEN and GH_ENTERPRISE_TOKEN as its credential'],
  ['GITLAB_', "GitLab's CLI reads GITLAB_TOKEN as its credential"],
  ['GL_', 'semantic-release reads GL_TOKEN as its GitLab credential'],
  ['NODE_', "npm reads NODE_AUTH_TOKEN as its registry credential, through setup-node's .npmrc"],
  ['NPM_', 'npm and its release tools read NPM_TOKEN as their registry credential'],
  ['YARN_', 'Yarn reads YARN_NPM_AUTH_TOKEN as its registry credential'],
  ['NUGET_', 'NuGet reads NUGET_AUTH_TOKEN as its registry credential, through setup-dotnet'],
  ['CARGO_', 'Cargo reads CARGO_REGISTRY_TOKEN and CARGO_REGISTRIES_<name>_TOKEN as its registry credentials'],
  ['UV_', 'uv reads UV_PUBLISH_TOKEN and UV_GITHUB_TOKEN as its credentials'],
  ['AWS_', 'the AWS CLI and SDKs read AWS_SESSION_TOKEN as their credential'],
  ['ARM_', "Azure's Terraform providers read ARM_OIDC_TOKEN as their credential"],
  ['AZURE_', 'the Azure CLI and SDKs read AZURE_* as their settings and credentials'],
  ['GOOGLE_', "Google's SDKs and Terraform provider read GOOGLE_OAUTH_ACCESS_TOKEN as their credential"],
  ['VAULT_', 'HashiCorp Vault reads VAULT_TOKEN as its credential'],
  ['TFE_', "Terraform's tfe provider reads TFE_TOKEN as its credential"],
  ['CODECOV_', "Codecov's uploader reads CODECOV_TOKEN as its credential"],
  ['HOMEBREW_', 'Homebrew reads HOMEBREW_GITHUB_API_TOKEN as its credential']
]

/** A name that passes, for the messages: the README's. */
const EXAMPLE = 'SERVICE_TOKEN'

/**
 * Why export-variable may not name `name`, as the end of a sentence; undefined when it may. Any
 * case: a runner on Windows reads github_token as GITHUB_TOKEN.
 */
export function exportRefusal(name: string): string | undefined {
  const upper = name.toUpperCase()
  if (!TOKEN_NAME.test(upper)) {
    return 'only a name that ends in _TOKEN (or TOKEN itself) is exported: tools read such a name as a credential, not as code or settings'
  }
  const namespace = CREDENTIAL_NAMESPACES.find(([prefix]) => upper.startsWith(prefix))
  return namespace && `names that start with ${namespace[0]} are taken (${namespace[1]})`
}

export function variableName(name: string): string | undefined {
  const value = core.getInput(name)
  if (!value) return undefined
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(value)) {
    throw new Error(`Input ${name} must be an environment variable name (letters, digits, _), got "${value}"`)
  }
  const refusal = exportRefusal(value)
  if (refusal !== undefined) {
    throw new Error(`Input ${name} cannot be ${value}: ${refusal}. Choose a name of your own, such as ${EXAMPLE}.`)
  }
  return value
}
