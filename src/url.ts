/** `base` with `path` appended below its own path: https://h/api/ + v1/targets -> https://h/api/v1/targets. */
export function joinPath(base: URL, path: string): URL {
  const joined = new URL(base.href)
  joined.pathname = `${base.pathname.replace(/\/+$/, '')}/${path}`
  return joined
}
