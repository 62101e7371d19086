/** `base` with `path` appended below its own path: https://h/api/ + v1/targets -> https://h/api/v1/targets. */
export function joinPath(base: URL, path: string): URL {
  const joined = new URL(base.href)
  joined.pathname = `${base.pathname.replace(/\/+$/, '')}/${path}`
  return joined
}

/** Text with every URL's user:password@ (or user@) shown as ***@: https://***@host/path. */
export function withoutCredentials(text: string): string {
  return text.replace(/\/\/[^/?#@\s]*@/g, '//***@')
}
