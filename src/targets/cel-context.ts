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
