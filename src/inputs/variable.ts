import * as core from '@actions/core'

/**
 * The names export-variable may take: a name that ends in _TOKEN, or TOKEN. An allow rule, not a
 * list of dangers, so that it cannot be outgrown: MAKEFLAGS, CC, KUBECONFIG, RUSTC_WRAPPER and the
 * setting a tool adds next year are all refused by it. Tools read a *_TOKEN as a credential, never
 * as code or as settings that change what they run.
 */
const TOKEN_NAME = /^([A-Z0-9_]*_)?TOKEN$/

/**
 * The namespaces, among those names, that the runner or a well-known tool reads as its own: a
 * tool would take the token for its credential and send it to its own servers, where the token
 * must only reach the service it was issued for. Namespaces, not names: a tool reads more than one
 * (GH_TOKEN and GH_ENTERPRISE_TOKEN, CARGO_REGISTRIES_<name>_TOKEN). docs/security.md names the
 * credential each reads.
 */
export const CREDENTIAL_NAMESPACES: readonly (readonly [prefix: string, reader: string])[] = [
  ['GITHUB_', 'the runner and GitHub tools'],
  ['ACTIONS_', 'the runner'],
  ['RUNNER_', 'the runner'],
  ['INPUT_', "other actions' inputs"],
  ['STATE_', "other actions' state"],
  ['GH_', 'the GitHub CLI'],
  ['GITLAB_', "GitLab's CLI"],
  ['GL_', 'semantic-release'],
  ['NODE_', 'npm, through setup-node'],
  ['NPM_', 'npm'],
  ['YARN_', 'Yarn'],
  ['NUGET_', 'NuGet'],
  ['CARGO_', 'Cargo'],
  ['UV_', 'uv'],
  ['AWS_', 'AWS tools'],
  ['ARM_', "Azure's Terraform providers"],
  ['AZURE_', 'Azure tools'],
  ['GOOGLE_', 'Google tools'],
  ['VAULT_', 'Vault'],
  ['TFE_', 'Terraform'],
  ['CODECOV_', 'Codecov'],
  ['HOMEBREW_', 'Homebrew']
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
  return namespace && `names that start with ${namespace[0]} are taken by ${namespace[1]}`
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
