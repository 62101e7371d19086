import { redact } from '../secrets.js'
import { withoutCredentials } from '../url.js'

/**
 * What the `call` and `call-body` inputs' errors say of the value given: it echoed (with a URL's
 * user:password and any secret hidden), where it is wrong, and what to write instead.
 */

/** The input's text as a message may quote it: redacted, single-line, JSON-quoted. */
export function echo(text: string): string {
  return JSON.stringify(redact(withoutCredentials(text)))
}

// A scheme and an authority (or a bare //authority), then the rest of a URL.
const FULL_URL = /^(?:([A-Za-z][A-Za-z\d+.-]*):)?\/\/([^/?#]*)(.*)$/

/**
 * Why a call's path is not one below base-url, with the call meant when the path is a full URL or
 * lacks its leading /.
 */
export function pathAdvice(method: string, path: string): string {
  const url = FULL_URL.exec(path)
  if (url) {
    const [, scheme, authority, rest] = url
    const host = authority.slice(authority.lastIndexOf('@') + 1)
    const credentials = host === authority ? '' : ' (credentials go in their own inputs, never in a URL)'
    const meant = `${method} ${rest.startsWith('/') ? rest : `/${rest}`}`
    return (
      `Input call has a full URL, ${echo(path)}: base-url gives the scheme and host, and call the path below it. ` +
      `Write call: ${echo(meant)} with base-url: ${echo(`${(scheme ?? 'https').toLowerCase()}://${host}`)}${credentials}`
    )
  }
  if (!path.startsWith('/')) {
    return `Input call has the path ${echo(path)}, which does not start with /: the path is below base-url, so write ${echo(`${method} /${path}`)}`
  }
  return `Input call must have a path that starts with one / below base-url, with no //, backslash, # or control character, got ${echo(path)}`
}

const POSITION = / (?:in JSON )?at position (\d+)(?: \(line \d+ column \d+\))?$/
// V8's other form names the token and quotes the text, which a message must not repeat unredacted.
const TOKEN = /^(Unexpected token '.'),/su

/** Why call-body is not JSON: the parser's reason, the line and column, and the text around it. */
export function bodyNotJson(body: string, err: unknown): string {
  const message = err instanceof Error ? err.message : String(err)
  const at = POSITION.exec(message)
  const reason = at ? message.slice(0, at.index) : (TOKEN.exec(message)?.[1] ?? message)
  const offset = at ? Number(at[1]) : errorOffset(body)
  const before = body.slice(0, offset)
  const line = before.split('\n').length
  const column = offset - before.lastIndexOf('\n')
  // A placeholder outside a string breaks at its brace, or just after it (read as an object).
  const placeholder = /^\{[A-Za-z_][\w.-]*\}/.exec(body.slice(body[offset - 1] === '{' ? offset - 1 : offset))
  const fix = placeholder
    ? `a placeholder goes inside a JSON string: write "${placeholder[0]}" (a string that is only a placeholder takes the field's JSON value, so a number stays a number)`
    : 'give a JSON template, with each {field} inside a string'
  return `Input call-body is not valid JSON: ${reason} at line ${line}, column ${column} (${around(body, offset)}): ${fix}`
}

/**
 * Where JSON.parse stops in `text` when its message gives no position: the longest prefix it reads
 * as the start of a JSON text (only running out of text, or failing at the prefix's very end).
 */
function errorOffset(text: string): number {
  const readsAsStart = (length: number): boolean => {
    try {
      JSON.parse(text.slice(0, length))
      return true
    } catch (err) {
      const message = (err as Error).message
      const at = POSITION.exec(message)
      return message === 'Unexpected end of JSON input' || (at !== null && Number(at[1]) >= length)
    }
  }
  let good = 0
  let bad = text.length + 1
  while (bad - good > 1) {
    const mid = (good + bad) >> 1
    if (readsAsStart(mid)) good = mid
    else bad = mid
  }
  return good
}

/**
 * The error's line around `offset`, with ‸ at it: about 30 characters each side. Each side is
 * redacted whole before it is cut, so that the cut leaves no piece of a secret too short to find.
 */
function around(text: string, offset: number): string {
  const lineStart = text.lastIndexOf('\n', offset - 1) + 1
  const lineEnd = text.indexOf('\n', offset)
  const before = redact(text.slice(lineStart, offset))
  const after = redact(text.slice(offset, lineEnd === -1 ? text.length : lineEnd))
  const head = before.length > 30 ? `…${before.slice(-30)}` : before
  const tail = after.length > 30 ? `${after.slice(0, 30)}…` : after
  return JSON.stringify(`${head}‸${tail}`)
}
