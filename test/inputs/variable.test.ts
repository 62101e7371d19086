import { isReservedVariable, variableName } from '../../src/inputs/variable.js'
import { setInputs } from '../helpers.js'

// Every name the README's Security section promises to refuse, one by one: a name dropped from
// the list or a family dropped from the pattern fails here.
const RESERVED = [
  ...['PATH', 'ENV', 'BASH_ENV', 'HOME', 'IFS', 'SHELL', 'SHELLOPTS', 'BASHOPTS', 'CDPATH', 'GLOBIGNORE'],
  ...['PROMPT_COMMAND', 'HISTFILE', 'TMPDIR', 'ZDOTDIR', 'EDITOR', 'VISUAL', 'PAGER', 'GCONV_PATH', 'LOCPATH'],
  ...['NLSPATH', 'HOSTALIASES', 'RESOLV_HOST_CONF', 'CLASSPATH', 'PERL5LIB', 'PERL5OPT', 'PERLLIB', 'RUBYOPT'],
  ...['RUBYLIB', 'GEM_HOME', 'GEM_PATH', 'JAVA_TOOL_OPTIONS', '_JAVA_OPTIONS', 'JDK_JAVA_OPTIONS', 'MAVEN_OPTS'],
  ...['GRADLE_OPTS', 'DOTNET_STARTUP_HOOKS', 'GOFLAGS', 'RUSTFLAGS', 'CURL_CA_BUNDLE', 'REQUESTS_CA_BUNDLE'],
  ...['OPENSSL_CONF', 'OPENSSL_ENGINES', 'LESSOPEN', 'MANPAGER', 'BROWSER']
]
// One name of each family of the pattern, in both cases where the rule says "any case".
const FAMILIES = [
  ...['GITHUB_TOKEN', 'RUNNER_TEMP', 'ACTIONS_RUNTIME_TOKEN', 'INPUT_TOKEN', 'STATE_X', 'github_env'],
  ...['LD_PRELOAD', 'DYLD_INSERT_LIBRARIES', 'MALLOC_CONF', 'GLIBC_TUNABLES'],
  ...['NODE_OPTIONS', 'NPM_CONFIG_REGISTRY', 'YARN_RC_FILENAME', 'PIP_INDEX_URL', 'RUBY_GC_HEAP', 'BUNDLE_GEMFILE'],
  ...['GIT_SSH_COMMAND', 'SSH_AUTH_SOCK', 'GNUPG_HOME', 'GPG_TTY', 'DOCKER_HOST'],
  ...['KUBE_CONFIG', 'SSL_CERT_FILE', 'BASH_FUNC_X', 'ZSH_X', 'CURL_HOME', 'JAVA_HOME', 'DOTNET_ROOT'],
  ...['PYTHONPATH', 'PYTHONSTARTUP', 'PERLIO', 'HTTPS_PROXY', 'http_proxy', 'ALL_PROXY', 'NO_PROXY'],
  ...['PS1', 'PS4', 'ps2']
]
// Names next to the rules that are not reserved: each anchor and each separator matters.
const ALLOWED = [
  ...['SERVICE_TOKEN', 'M2M_TOKEN', 'TOKEN', 'MY_PATH', 'PATH_TOKEN', 'XPATH', 'HOMEPAGE', 'MY_GITHUB_TOKEN'],
  ...['GITHUBTOKEN', 'LDX', 'NODEJS_TOKEN', 'MY_NODE_OPTIONS', 'PROXY_URL', 'MY_PROXY_HOST', 'PS', 'PSX'],
  ...['PS10', 'APS1', 'MY_PYTHONPATH', 'SHELLY', 'ENVIRONMENT', '_PATH']
]

describe('isReservedVariable', () => {
  it.each(RESERVED)('reserves %s, in any case', name => {
    expect(isReservedVariable(name)).toBe(true)
    expect(isReservedVariable(name.toLowerCase())).toBe(true)
  })

  it.each(FAMILIES)('reserves %s, by its family', name => {
    expect(isReservedVariable(name)).toBe(true)
  })

  it.each(ALLOWED)('leaves %s free', name => {
    expect(isReservedVariable(name)).toBe(false)
  })
})

describe('variableName', () => {
  it('is absent when the input is empty', () => {
    setInputs({})
    expect(variableName('export-variable')).toBeUndefined()
  })

  it.each(['SERVICE_TOKEN', '_x', 'a1', 'Z'])('reads %s', name => {
    setInputs({ 'export-variable': name })
    expect(variableName('export-variable')).toBe(name)
  })

  it.each(['1TOKEN', 'MY-TOKEN', 'MY TOKEN', 'TOKEN=1', 'TÖKEN', 'A.B', '$X'])('refuses %j, naming the input', name => {
    setInputs({ 'export-variable': name })
    expect(() => variableName('export-variable')).toThrow(
      new Error(`Input export-variable must be an environment variable name (letters, digits, _), got "${name}"`)
    )
  })

  it('refuses a reserved name, saying why', () => {
    setInputs({ 'export-variable': 'LD_PRELOAD' })
    expect(() => variableName('export-variable')).toThrow(
      new Error(
        'Input export-variable must not name a variable that changes how later steps run or what they trust (LD_PRELOAD); choose another name'
      )
    )
  })
})
