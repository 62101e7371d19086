import * as core from '@actions/core'

/**
 * Names a shell, the dynamic loader, an interpreter, git or ssh, a proxy or TLS stack, or the
 * runner reads: the token must not land in any of them (README, Security). By rule, not by list
 * of examples: every name of these families is refused. A name the pattern below already covers
 * (BASH_ENV, PERL5OPT, JAVA_TOOL_OPTIONS, …) is not repeated in the list.
 */
const RESERVED_NAMES = new Set([
  'PATH',
  'ENV',
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
  'RUBYOPT',
  'RUBYLIB',
  'GEM_HOME',
  'GEM_PATH',
  '_JAVA_OPTIONS',
  'JDK_JAVA_OPTIONS',
  'MAVEN_OPTS',
  'GRADLE_OPTS',
  'GOFLAGS',
  'RUSTFLAGS',
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

export function variableName(name: string): string | undefined {
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
