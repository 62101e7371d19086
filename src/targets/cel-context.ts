import { isRawNumber } from '../json.js'
import { isTargetObject } from './key.js'

/** A node of the CEL library's parsed expression. */
export interface AstNode {
  readonly op: string
  readonly args: unknown
  readonly range?: { readonly start: number; readonly end: number }
}

export function isNode(value: unknown): value is AstNode {
  return !!value && typeof value === 'object' && typeof (value as AstNode).op === 'string'
}

/** Every name the expression reads as a variable (a macro's own variable too, which costs nothing). */
export function namesIn(root: AstNode): Set<string> {
  const names = new Set<string>()
  const stack: AstNode[] = [root]
  for (let node = stack.pop(); node; node = stack.pop()) {
    if (node.op === 'id' && typeof node.args === 'string') names.add(node.args)
    // A unary operator's argument is the node itself, not a list of them.
    const args = Array.isArray(node.args) ? (node.args as unknown[]) : [node.args]
    for (const child of args.flat()) if (isNode(child)) stack.push(child)
  }
  return names
}

/**
 * What the expression sees of a target: the fields it names, by name, and the whole as `target`
 * when it names that, in an object without a prototype, so that no name reaches Object.prototype.
 * Only those: copying every field of every target cost more than the condition itself. Numbers kept
 * exactly as sent (64-bit ids) become CEL ints when whole, doubles otherwise. The same object is
 * filled again for each target, a field the target lacks removed: a target is evaluated whole
 * before the next one's turn, and an object a target was about a sixth of what the condition cost.
 */
export function contextFor(names: ReadonlySet<string>): (target: unknown) => Record<string, unknown> {
  const fields = [...names].filter(name => name !== 'target')
  const whole = names.has('target')
  const context = Object.create(null) as Record<string, unknown>
  return target => {
    const record = isTargetObject(target) ? target : undefined
    for (const name of fields) {
      if (record !== undefined && Object.hasOwn(record, name)) context[name] = celValue(record[name])
      else delete context[name]
    }
    if (whole) context.target = celValue(target)
    return context
  }
}

/** The value with its exact numbers as CEL numbers; the value itself when it holds none. */
function celValue(value: unknown): unknown {
  if (value === null || typeof value !== 'object' || !holdsRawNumber(value)) return value
  return JSON.parse(JSON.stringify(value), (_key, parsed: unknown, context?: { source?: string }) => {
    const source = context?.source
    if (typeof parsed !== 'number' || source === undefined || !/^-?\d+$/.test(source)) return parsed
    return Number.isSafeInteger(parsed) ? parsed : BigInt(source)
  })
}

/** Whether any value in the target is a number kept as its text: a walk without recursion. */
function holdsRawNumber(root: unknown): boolean {
  const stack: unknown[] = [root]
  while (stack.length > 0) {
    const value = stack.pop()
    if (value === null || typeof value !== 'object') continue
    if (isRawNumber(value)) return true
    for (const child of Object.values(value)) if (child !== null && typeof child === 'object') stack.push(child)
  }
  return false
}

/** Stands for a field the target lacks, in a memo's key. */
const ABSENT = Symbol('absent')
/** Stands for a value that is no key: an object, a list, a number kept as text, -0, a long string. */
const NO_KEY = Symbol('no key')
/** The most results and inner maps a memo keeps: past them it only reads what it has. */
export const MEMO_ENTRIES = 4096
/**
 * The longest string a memo keeps as a key: a status, a region, a type. V8 hashes a string of more
 * than 16,383 characters by its length alone, so such keys of one length would share a bucket (a
 * review measured 29 s for 4,000 targets); and a kept key keeps its string alive.
 */
export const MAX_KEY_CHARS = 256

/**
 * `evaluate`, with its results kept by the values of the fields the condition reads, for a
 * condition that does not read the whole target: what it sees is those values and nothing else
 * (contextFor), and CEL has no clock and no randomness, so the same values give the same result.
 * A condition over fields with a few values each (status, region, type) is then evaluated once for
 * each combination, not once a target: about 1,000 instructions a target less in a listing
 * (docs/performance.md). A target with a value that is no key (an object, a list, a number kept as
 * text, -0, a string longer than MAX_KEY_CHARS) is evaluated as before; a failure is never kept.
 * A memo full (MEMO_ENTRIES) before it has answered as many targets as it holds results reads a
 * field with a value per target (a name, an id): it is emptied and left alone from then on.
 */
export function memoized(
  names: ReadonlySet<string>,
  evaluate: (target: unknown, index: number) => boolean
): (target: unknown, index: number) => boolean {
  if (names.has('target')) return evaluate
  const fields = [...names]
  const root = new Map<unknown, unknown>()
  let entries = 0
  const last = fields.length - 1
  let constant: boolean | undefined
  let kept = 0
  let hits = 0
  let unused = false
  /** A target the full memo cannot answer. */
  const whenFull = (target: unknown, index: number): boolean => {
    if (hits < kept) {
      unused = true
      root.clear()
    }
    return evaluate(target, index)
  }
  return (target, index) => {
    if (last < 0) return (constant ??= evaluate(target, index))
    if (unused) return evaluate(target, index)
    const record = isTargetObject(target) ? target : undefined
    let map = root
    for (let i = 0; i < last; i++) {
      const key = keyOf(record, fields[i])
      if (key === NO_KEY) return evaluate(target, index)
      let inner = map.get(key) as Map<unknown, unknown> | undefined
      if (inner === undefined) {
        if (entries >= MEMO_ENTRIES) return whenFull(target, index)
        entries++
        map.set(key, (inner = new Map()))
      }
      map = inner
    }
    const key = keyOf(record, fields[last])
    if (key === NO_KEY) return evaluate(target, index)
    const found = map.get(key) as boolean | undefined
    if (found !== undefined) {
      hits++
      return found
    }
    if (entries >= MEMO_ENTRIES) return whenFull(target, index)
    const result = evaluate(target, index)
    entries++
    kept++
    map.set(key, result)
    return result
  }
}

/** The field's value as a memo key: short strings, booleans, null and numbers but -0 compare exactly. */
function keyOf(record: Record<string, unknown> | undefined, name: string): unknown {
  if (record === undefined || !Object.hasOwn(record, name)) return ABSENT
  const value = record[name]
  if (typeof value === 'string') return value.length <= MAX_KEY_CHARS ? value : NO_KEY
  if (typeof value === 'boolean' || value === null) return value
  return typeof value === 'number' && !Object.is(value, -0) ? value : NO_KEY
}
