/**
 * RFC 6750's b64token, the only characters a Bearer token may have: 1*( ALPHA / DIGIT / "-" / "." /
 * "_" / "~" / "+" / "/" ) *"=". JWTs and opaque tokens fit; a token with a space, a quote, a $ or a
 * line break does not, and such a token, exported or output, becomes text a later step may run
 * (`--eval=$(shell …)` in MAKEFLAGS). The token is a secret: what is wrong is described, never quoted.
 */
const TOKEN_CHARACTERS = /^[A-Za-z0-9\-._~+/]*/
const PADDING = /^=+$/

/** The characters the message names as allowed. */
export const B64TOKEN_CHARACTERS = 'letters, digits, - . _ ~ + / and = as trailing padding'

/** What keeps `token` from being a b64token, as "has a space at character 3 of 40"; undefined when it is one. */
export function b64tokenFlaw(token: string): string | undefined {
  if (token === '') return 'is empty'
  const at = (TOKEN_CHARACTERS.exec(token) as RegExpExecArray)[0].length
  if (at === token.length) return undefined
  if (at > 0 && PADDING.test(token.slice(at))) return undefined
  return `has ${characterClass(token.charCodeAt(at))} at character ${at + 1} of ${token.length}`
}

function characterClass(code: number): string {
  if (code === 0x3d) return 'an = that is not trailing padding'
  if (code === 0x09) return 'a tab'
  if (code === 0x0a || code === 0x0d) return 'a line break'
  if (code > 0x7f) return 'a non-ASCII character'
  if (code < 0x20 || code === 0x7f) return 'a control character'
  if (code === 0x20) return 'a space'
  return 'a punctuation character other than - . _ ~ + /'
}
