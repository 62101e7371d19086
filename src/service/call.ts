import { isRawNumber, numberText, RawNumber } from '../json.js'
import { bodyNotJson, echo, pathAdvice } from './call-advice.js'

/**
 * The `call` input: METHOD /path, with {field} placeholders filled from each target, and the
 * `call-body` template. Everything here is checked before any request is made.
 */
export const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'] as const
export type Method = (typeof METHODS)[number]

/** A template: literal text and placeholders, in order. `{{` and `}}` stand for literal braces. */
type Part = string | { readonly field: readonly string[] }

export interface CallSpec {
  readonly method: Method
  readonly path: readonly Part[]
  /** The parsed call-body, strings as templates; undefined for no body. */
  readonly body?: unknown
  /** Every placeholder's field path, for the check before the first call. */
  readonly fields: readonly string[]
  /** The same, split, with whether any value will do (a body string that is only the placeholder). */
  readonly checks: readonly FieldCheck[]
}

interface FieldCheck {
  readonly name: string
  readonly path: readonly string[]
  /** Only ever a whole body value: any JSON value fills it, an object too. */
  readonly anyValue: boolean
  /** In the path: its value becomes a segment, which must not be empty. */
  readonly inPath: boolean
}

export class CallInputError extends Error {}

const PLACEHOLDER = /\{\{|\}\}|\{([^{}]*)\}|[{}]/g
const FIELD = /^[A-Za-z_][\w-]*(\.[A-Za-z_][\w-]*)*$/

/** A template's parts; throws naming `input` for a brace that is neither a placeholder nor doubled. */
function template(text: string, input: string): Part[] {
  const parts: Part[] = []
  let literal = ''
  let last = 0
  for (const match of text.matchAll(PLACEHOLDER)) {
    literal += text.slice(last, match.index)
    last = match.index + match[0].length
    if (match[0] === '{{') literal += '{'
    else if (match[0] === '}}') literal += '}'
    else if (match[1] !== undefined && FIELD.test(match[1])) {
      if (literal) parts.push(literal)
      literal = ''
      parts.push({ field: match[1].split('.') })
    } else {
      throw new CallInputError(
        `Input ${input} has "${match[0]}" that is not a placeholder: write {field} or {field.sub}, and {{ or }} for a literal brace`
      )
    }
  }
  literal += text.slice(last)
  if (literal) parts.push(literal)
  return parts
}

export function parseCall(call: string, body: string): CallSpec {
  const match = /^\s*([A-Za-z]+)\s+(\S+)\s*$/.exec(call)
  const method = match?.[1].toUpperCase() as Method | undefined
  if (!match || !method || !METHODS.includes(method)) {
    throw new CallInputError(
      `Input call must be METHOD /path with METHOD one of ${METHODS.join(', ')}, got ${echo(call)}`
    )
  }
  const rawPath = match[2]
  // Nothing in the path may lead away from base-url's origin or path.
  // eslint-disable-next-line no-control-regex
  if (!rawPath.startsWith('/') || rawPath.includes('//') || /[\\\u0000-\u001f\u007f#]/.test(rawPath)) {
    throw new CallInputError(pathAdvice(method, rawPath))
  }
  if (hasDotSegment(rawPath)) {
    throw new CallInputError('Input call must not have a . or .. segment in its path')
  }
  const path = template(rawPath, 'call')
  let parsedBody: unknown
  if (body.trim() !== '') {
    try {
      parsedBody = JSON.parse(body)
    } catch (err) {
      throw new CallInputError(bodyNotJson(body, err))
    }
    if (method === 'GET' || method === 'HEAD') {
      throw new CallInputError(`Input call-body is set, but a ${method} request has no body`)
    }
  }
  // Every placeholder's field, and whether any JSON value fills it: only when it is never used in
  // text (the path, or a longer string), always as a whole body value.
  const fields = new Map<string, boolean>()
  const note = (parts: readonly Part[]): void => {
    for (const part of parts) {
      if (typeof part === 'string') continue
      const name = part.field.join('.')
      fields.set(name, parts.length === 1 && fields.get(name) !== false)
    }
  }
  note(path)
  const inPath = new Set(fields.keys())
  const bodyTemplate = parsedBody === undefined ? undefined : compileBody(parsedBody, note)
  return {
    method,
    path,
    body: bodyTemplate,
    fields: [...fields.keys()],
    checks: [...fields].map(([name, anyValue]) => ({
      name,
      path: name.split('.'),
      anyValue,
      inPath: inPath.has(name)
    }))
  }
}

/** A body string with placeholders: a class of its own, so that a body's {"template": …} stays data. */
class BodyTemplate {
  constructor(readonly parts: readonly Part[]) {}
}

/** Strings of the body become templates; everything else stays as it is. */
function compileBody(value: unknown, note: (parts: readonly Part[]) => void): unknown {
  if (typeof value === 'string') {
    const parts = template(value, 'call-body')
    note(parts)
    return parts.some(p => typeof p !== 'string') ? new BodyTemplate(parts) : parts.join('')
  }
  if (Array.isArray(value)) return value.map(v => compileBody(v, note))
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, compileBody(v, note)]))
  }
  return value
}

/** A field of a target: undefined when absent (or the target is not an object). Own fields only. */
export function fieldOf(target: unknown, field: readonly string[]): unknown {
  let value: unknown = target
  for (const name of field) {
    if (!value || typeof value !== 'object' || Array.isArray(value) || isRawNumber(value)) return undefined
    // {constructor} or {toString} is no field of a target: never one of its prototype's.
    if (!Object.hasOwn(value, name)) return undefined
    value = (value as Record<string, unknown>)[name]
  }
  return value
}

// A lone surrogate: text that is not well-formed, which no URL can carry (encodeURIComponent throws).
const LONE_SURROGATE = /\p{Cs}/u

/**
 * Why a target cannot fill a placeholder used inside text (path or longer strings), or undefined.
 * In the path, a value must also make a segment: never empty, null or a boolean.
 */
export function unusable(value: unknown, inPath = false): string | undefined {
  if (value === undefined) return 'lacks'
  if (value !== null && typeof value === 'object' && !isRawNumber(value)) return 'holds an object or array in'
  if (typeof value === 'string' && LONE_SURROGATE.test(value))
    return 'holds text that is not well-formed (a lone surrogate) in'
  if (!inPath) return undefined
  if (value === '') return 'holds an empty string in'
  if (value === null || typeof value === 'boolean') return `holds ${String(value)} in`
  return undefined
}

/** A scalar's text: a string as it is, a number as sent, true/false/null as JSON writes them. */
function text(value: unknown): string {
  if (typeof value === 'string') return value
  if (typeof value === 'number' || isRawNumber(value)) return numberText(value as number | RawNumber)
  return JSON.stringify(value)
}

/**
 * The path for a target: each value one percent-encoded segment, so no value can add a segment,
 * a query or a fragment, or reach another origin. Throws for a value that is a dot segment.
 */
export function renderPath(spec: CallSpec, target: unknown): string {
  let out = ''
  for (const part of spec.path) {
    if (typeof part === 'string') {
      out += part
      continue
    }
    const value = text(fieldOf(target, part.field))
    out += encodeURIComponent(value).replace(/\./g, '%2E')
  }
  return out
}

/** The body for a target: a string that is one placeholder takes the field's JSON value. */
export function renderBody(spec: CallSpec, target: unknown): string | undefined {
  if (spec.body === undefined) return undefined
  let pieces = bodyPieces.get(spec)
  if (!pieces) bodyPieces.set(spec, (pieces = piecesOf(spec.body, [])))
  let out = ''
  for (const piece of pieces) out += typeof piece === 'string' ? piece : piece(target)
  return out
}

/**
 * A body template as JSON.stringify would write it filled, worked out once per call input: its
 * fixed text, and a function for each placeholder's string (a routine renders it for every target).
 */
type Piece = string | ((target: unknown) => string)
const bodyPieces = new WeakMap<CallSpec, Piece[]>()
function piecesOf(value: unknown, out: Piece[]): Piece[] {
  const add = (piece: Piece): void => {
    const last = out.length - 1
    if (typeof piece === 'string' && typeof out[last] === 'string') out[last] += piece
    else out.push(piece)
  }
  if (value instanceof BodyTemplate) {
    const [first, ...rest] = value.parts
    if (rest.length === 0 && typeof first !== 'string') add(t => JSON.stringify(fieldOf(t, first.field) ?? null))
    else
      add(t => JSON.stringify(value.parts.map(p => (typeof p === 'string' ? p : text(fieldOf(t, p.field)))).join('')))
  } else if (value !== null && typeof value === 'object') {
    const [open, close] = Array.isArray(value) ? '[]' : '{}'
    let separator = open
    for (const [k, v] of Object.entries(value)) {
      add(open === '[' ? separator : `${separator}${JSON.stringify(k)}:`)
      piecesOf(v, out)
      separator = ','
    }
    add(separator === open ? `${open}${close}` : close)
  } else add(JSON.stringify(value))
  return out
}

/** The fields a target cannot fill, with why; empty when it fills them all. */
export function missingFields(spec: CallSpec, target: unknown): string[] {
  const problems: string[] = []
  for (const check of spec.checks) {
    const value = fieldOf(target, check.path)
    const why = check.anyValue ? (value === undefined ? 'lacks' : undefined) : unusable(value, check.inPath)
    if (why) problems.push(`${why} {${check.name}}`)
  }
  return problems
}

const DOT_SEGMENT = /^(?:\.|%2e){1,2}$/i

/**
 * Whether a rendered path has a . or .. segment (as URL parsers read them, %2e too), which would
 * move the call elsewhere under base-url: only values can make one, as the call input has none.
 */
export function hasDotSegment(path: string): boolean {
  // Checked for every target: most paths have no dot, plain or encoded, to look at segments for.
  if (!path.includes('.') && !/%2e/i.test(path)) return false
  return path
    .split('?')[0]
    .split('/')
    .some(segment => DOT_SEGMENT.test(segment))
}
