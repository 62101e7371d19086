import { exportRefusal, variableName } from '../../src/inputs/variable.js'
import { setInputs } from '../helpers.js'

const NOT_A_TOKEN_NAME =
  'only a name that ends in _TOKEN (or TOKEN itself) is exported: tools read such a name as a credential, not as code or settings'

// Names that change how later steps run, the and the old deny-list's among them: none ends
// in _TOKEN, so the allow rule refuses them all without naming one.
const SETTINGS = [
  ...['MAKEFLAGS', 'CC', 'CFLAGS', 'KUBECONFIG', 'AWS_CONFIG_FILE', 'RUSTC_WRAPPER', 'PATH', 'BASH_ENV', 'ENV'],
  ...['LD_PRELOAD', 'NODE_OPTIONS', 'GIT_SSH_COMMAND', 'PS4', 'PROMPT_COMMAND', 'HTTPS_PROXY', 'no_proxy'],
  ...['JAVA_TOOL_OPTIONS', 'PERL5OPT', 'PYTHONSTARTUP', 'GOFLAGS', 'DOCKER_HOST', 'SSL_CERT_FILE', 'HOME'],
  // Near misses of the rule: its anchors and its separator.
  ...['TOKENS', 'SERVICE_TOKENS', 'SERVICETOKEN', 'TOKEN_URL', 'MY_TOKEN_FILE', 'A_TOKENX', 'TOKEN_', '_TOKENS']
]

// One name of each namespace another program reads as its own, in both cases where the rule says
// "any case" (a Windows runner does not tell them apart).
const TAKEN: [string, string][] = [
  ['GITHUB_TOKEN', 'GITHUB_'],
  ['github_token', 'GITHUB_'],
  ['ACTIONS_RUNTIME_TOKEN', 'ACTIONS_'],
  ['ACTIONS_ID_TOKEN_REQUEST_TOKEN', 'ACTIONS_'],
  ['RUNNER_TOKEN', 'RUNNER_'],
  ['INPUT_TOKEN', 'INPUT_'],
  ['State_Token', 'STATE_'],
  ['GH_TOKEN', 'GH_'],
  ['GH_ENTERPRISE_TOKEN', 'GH_'],
  ['GITLAB_TOKEN', 'GITLAB_'],
  ['GL_TOKEN', 'GL_'],
  ['NODE_AUTH_TOKEN', 'NODE_'],
  ['NPM_TOKEN', 'NPM_'],
  ['YARN_NPM_AUTH_TOKEN', 'YARN_'],
  ['NUGET_AUTH_TOKEN', 'NUGET_'],
  ['CARGO_REGISTRY_TOKEN', 'CARGO_'],
  ['cargo_registries_mine_token', 'CARGO_'],
  ['UV_PUBLISH_TOKEN', 'UV_'],
  ['AWS_SESSION_TOKEN', 'AWS_'],
  ['ARM_OIDC_TOKEN', 'ARM_'],
  ['AZURE_ACCESS_TOKEN', 'AZURE_'],
  ['GOOGLE_OAUTH_ACCESS_TOKEN', 'GOOGLE_'],
  ['VAULT_TOKEN', 'VAULT_'],
  ['TFE_TOKEN', 'TFE_'],
  ['CODECOV_TOKEN', 'CODECOV_'],
  ['HOMEBREW_GITHUB_API_TOKEN', 'HOMEBREW_']
]

// Names of one's own: each prefix matters only whole, at the start.
const FREE = [
  ...['SERVICE_TOKEN', 'M2M_TOKEN', 'TOKEN', 'token', 'Service_Token', 'API_ACCESS_TOKEN', 'S3_TOKEN', 'X_TOKEN'],
  ...['MY_GITHUB_TOKEN', 'GITHUBX_TOKEN', 'GHX_TOKEN', 'NODEJS_TOKEN', 'AWSX_TOKEN', 'PATH_TOKEN', 'MAKEFLAGS_TOKEN'],
  ...[
    'VAULTED_TOKEN',
    'INPUTS_TOKEN',
    'STATES_TOKEN',
    'RUNNERS_TOKEN',
    'GL2_TOKEN',
    'UVX_TOKEN',
    'TF_VAR_X_TOKEN',
    '_TOKEN',
    '__X_TOKEN'
  ]
]

describe('exportRefusal', () => {
  it.each(SETTINGS)('refuses %s, which does not end in _TOKEN', name => {
    expect(exportRefusal(name)).toBe(NOT_A_TOKEN_NAME)
  })

  it.each(TAKEN)('refuses %s, in the %s namespace another program reads', (name, prefix) => {
    expect(exportRefusal(name)).toMatch(new RegExp(`^names that start with ${prefix} are taken by [^.]+$`))
  })

  it.each(FREE)('leaves %s free', name => {
    expect(exportRefusal(name)).toBeUndefined()
  })

  it('says who reads a namespace', () => {
    expect(exportRefusal('GH_TOKEN')).toBe('names that start with GH_ are taken by the GitHub CLI')
    expect(exportRefusal('INPUT_TOKEN')).toBe("names that start with INPUT_ are taken by other actions' inputs")
  })
})

describe('variableName', () => {
  it('is absent when the input is empty', () => {
    setInputs({})
    expect(variableName('export-variable')).toBeUndefined()
  })

  it.each(['SERVICE_TOKEN', 'TOKEN', 'a_token', 'Z9_TOKEN'])('reads %s', name => {
    setInputs({ 'export-variable': name })
    expect(variableName('export-variable')).toBe(name)
  })

  it.each(['1TOKEN', 'MY-TOKEN', 'MY TOKEN', 'TOKEN=1', 'TÖKEN', 'A.B', '$X'])('refuses %j, naming the input', name => {
    setInputs({ 'export-variable': name })
    expect(() => variableName('export-variable')).toThrow(
      new Error(`Input export-variable must be an environment variable name (letters, digits, _), got "${name}"`)
    )
  })

  it('refuses a name that does not end in _TOKEN: the input, the value, the rule, and a name that passes', () => {
    setInputs({ 'export-variable': 'MAKEFLAGS' })
    expect(() => variableName('export-variable')).toThrow(
      new Error(
        `Input export-variable cannot be MAKEFLAGS: ${NOT_A_TOKEN_NAME}. Choose a name of your own, such as SERVICE_TOKEN.`
      )
    )
  })

  it("refuses another program's name, saying whose it is", () => {
    setInputs({ 'export-variable': 'VAULT_TOKEN' })
    expect(() => variableName('export-variable')).toThrow(
      new Error(
        'Input export-variable cannot be VAULT_TOKEN: names that start with VAULT_ are taken by Vault. ' +
          'Choose a name of your own, such as SERVICE_TOKEN.'
      )
    )
  })
})
