import { setFlagsFromString } from 'node:v8'
import { formatCount } from '../format.js'
import { AstNode, contextFor, isNode, memoized, namesIn } from './cel-context.js'
import { targetLabel } from './label.js'

/**
 * targets-where: a CEL expression (the language of Kubernetes admission policies and Google's IAM
 * conditions) that each target must make true to be kept. docs/selection.md says why CEL and what
 * it costs. A target's fields are variables by name, and the whole target is `target`, so that a
 * field some targets lack can be guarded: `has(target.region) && region.startsWith("eu-")`.
 */
export const WHERE_INPUT = 'targets-where'

/** Longer than any condition a person reviews; bounds the parse. */
export const MAX_EXPRESSION_CHARS = 4096
/** Loops over a target's lists may not nest: each target then costs time linear in its size. */
const MAX_LOOP_DEPTH = 1
const LOOPS = new Set(['all', 'exists', 'exists_one', 'map', 'filter'])

export class SelectionError extends Error {}

export interface Selection {
  readonly expression: string
  /** Whether the target is kept; throws a SelectionError naming it when the expression fails on it. */
  selects(target: unknown, index: number): boolean
}

/** What the CEL library's errors carry: a one-line summary and where in the expression. */
interface CelError {
  readonly summary?: string
  readonly code?: string
  readonly range?: { readonly start: number; readonly end: number }
  readonly node?: { readonly range?: { readonly start: number; readonly end: number } }
}

/**
 * Compiles the expression, failing before any request with the input's name and the place it
 * breaks. The library is loaded here, only when the input is set: a run without it never pays
 * for it (the bundle keeps it in a chunk of its own).
 */
export async function compileSelection(expression: string): Promise<Selection> {
  if (expression.length > MAX_EXPRESSION_CHARS) {
    throw new SelectionError(
      `Input ${WHERE_INPUT} is ${formatCount(expression.length)} characters long, more than ${formatCount(MAX_EXPRESSION_CHARS)}: select with a shorter condition`
    )
  }
  const { Environment } = await import('@marcbachmann/cel-js')
  const environment = new Environment({
    unlistedVariablesAreDyn: true,
    limits: { maxAstNodes: 1000, maxDepth: 32, maxListElements: 1000, maxMapEntries: 100, maxCallArguments: 8 }
  })
  let program: ((context: Record<string, unknown>) => unknown) & { readonly ast: AstNode }
  try {
    program = environment.parse(expression) as unknown as typeof program
  } catch (err) {
    throw new SelectionError(
      `Input ${WHERE_INPUT} ${breaksAt(expression, err as CelError)}: ${reservedAdvice(expression, err as CelError) ?? HOW_TO_WRITE}`
    )
  }
  checkCost(expression, program.ast)
  const names = namesIn(program.ast)
  const contextOf = contextFor(names)
  const typeNames = TYPE_NAMES.filter(name => names.has(name))
  const evaluate = (target: unknown, index: number): boolean => {
    let result: unknown
    try {
      result = program(contextOf(target))
    } catch (err) {
      throw new SelectionError(
        shadowed(typeNames, target, index) ?? evaluationFailure(expression, err as CelError, target, index)
      )
    }
    if (typeof result !== 'boolean') {
      const advice = shadowed(typeNames, target, index)
      if (advice) throw new SelectionError(advice)
      throw new SelectionError(
        `Input ${WHERE_INPUT} gives ${describe(result)}, not true or false, for ${targetLabel(target, index)}: ` +
          'write a condition, such as status == "retired"'
      )
    }
    return result
  }
  return { expression, selects: memoized(names, evaluate) }
}

const HOW_TO_WRITE =
  'write a CEL condition over the target\'s fields, such as status == "retired" && region.startsWith("eu-") (docs/selection.md)'

/** Names CEL reads as its types wherever they stand alone, never as a variable. */
const TYPE_NAMES = ['bool', 'bytes', 'double', 'int', 'list', 'map', 'null_type', 'string', 'type', 'uint']
/** Words CEL keeps, which no variable and (the literals and `in`) no field selection may be. */
const RESERVED =
  /^(?:as|break|const|continue|else|for|function|if|import|let|loop|package|namespace|return|var|void|while|in|true|false|null)$/

/** A field named like a CEL type that the expression reads bare: it meant target.<name>. */
function shadowed(typeNames: readonly string[], target: unknown, index: number): string | undefined {
  if (typeNames.length === 0 || target === null || typeof target !== 'object') return undefined
  const name = typeNames.find(n => Object.hasOwn(target, n))
  if (name === undefined) return undefined
  return (
    `Input ${WHERE_INPUT} reads ${name}, which CEL takes for its type ${name}, not the field ${name} of ${targetLabel(target, index)}, ` +
    `so no call was made: write target.${name} for the field (${TYPE_NAMES.join(', ')} are CEL's type names)`
  )
}

/** For a field named like a word CEL reserves, how to write it instead. */
function reservedAdvice(expression: string, err: CelError): string | undefined {
  const range = err.range
  const word = range ? expression.slice(range.start, range.end) : ''
  if (!RESERVED.test(word)) return undefined
  const selector = /^(?:in|true|false|null)$/.test(word) ? `target["${word}"]` : `target.${word}`
  return `${word} is a word CEL reserves: write a field of that name as ${selector}`
}

/** "does not parse at character 11 (…): unexpected token", quoting the expression around the place. */
function breaksAt(expression: string, err: CelError): string {
  const start = err.range?.start ?? 0
  const summary = (err.summary ?? 'it is not CEL').replace(/\s+/g, ' ')
  return `does not parse at character ${start + 1} (${quoteAround(expression, start)}): ${summary}`
}

/** The expression with ‸ where it breaks, cut to about 60 characters around it. */
function quoteAround(expression: string, at: number): string {
  const from = Math.max(0, at - 40)
  const head = (from > 0 ? '…' : '') + expression.slice(from, at)
  const tail = expression.slice(at, at + 20) + (at + 20 < expression.length ? '…' : '')
  return JSON.stringify(`${head}‸${tail}`)
}

/**
 * Refuses what could make one target cost more than its size: loops nested in loops, and
 * matches() with a pattern that is not a literal the linear-time engine takes (a backreference or
 * a lookaround), as CEL's RE2 would. V8 is told to leave a backtracking match that runs long for
 * its linear engine, so a pattern such as (a+)+$ on a hostile name cannot hang the step.
 */
function checkCost(expression: string, root: AstNode): void {
  const stack: { node: AstNode; loops: number }[] = [{ node: root, loops: 0 }]
  for (let item = stack.pop(); item; item = stack.pop()) {
    const { node, loops } = item
    const args = Array.isArray(node.args) ? (node.args as unknown[]) : []
    const name = (node.op === 'rcall' || node.op === 'call') && typeof args[0] === 'string' ? args[0] : ''
    const depth = LOOPS.has(name) && node.op === 'rcall' ? loops + 1 : loops
    if (depth > MAX_LOOP_DEPTH) {
      throw new SelectionError(
        `Input ${WHERE_INPUT} nests ${name}() inside another loop (${quoteNode(expression, node)}): loops over a target's lists may not nest, so that each target costs time in proportion to its size`
      )
    }
    if (name === 'matches') {
      if (!linearEngine) {
        setFlagsFromString('--enable-experimental-regexp-engine')
        setFlagsFromString('--enable-experimental-regexp-engine-on-excessive-backtracks')
        linearEngine = true
      }
      checkPattern(expression, node, args)
    }
    for (const child of args.flat()) if (isNode(child)) stack.push({ node: child, loops: depth })
  }
}
let linearEngine = false

function checkPattern(expression: string, node: AstNode, args: unknown[]): void {
  const pattern = (node.op === 'rcall' ? (args[2] as unknown[]) : (args[1] as unknown[]).slice(1))[0]
  const literal =
    isNode(pattern) && pattern.op === 'value' && typeof pattern.args === 'string' ? pattern.args : undefined
  if (literal === undefined) {
    throw new SelectionError(
      `Input ${WHERE_INPUT} calls matches() with a pattern that is not a string literal (${quoteNode(expression, node)}): write the pattern in the expression`
    )
  }
  try {
    // 'l': V8's linear-time engine, which refuses what it cannot run in linear time.
    // eslint-disable-next-line no-invalid-regexp
    new RegExp(literal, 'l')
  } catch {
    throw new SelectionError(
      `Input ${WHERE_INPUT} has a matches() pattern that cannot run in linear time or is not valid (${JSON.stringify(literal)}): CEL's patterns are RE2, without backreferences or lookarounds`
    )
  }
}

function quoteNode(expression: string, node: AstNode): string {
  const range = node.range
  return JSON.stringify(range ? expression.slice(range.start, range.end) : expression)
}

/** Why the expression failed on a target, with the guard that keeps it from failing. */
function evaluationFailure(expression: string, err: CelError, target: unknown, index: number): string {
  const range = err.node?.range ?? err.range
  const where = range ? ` at ${JSON.stringify(expression.slice(range.start, range.end))}` : ''
  const summary = (err.summary ?? String(err)).replace(/\s+/g, ' ')
  const field = range && /^[A-Za-z_][\w.]*$/.test(expression.slice(range.start, range.end))
  const guard =
    err.code === 'unknown_variable' || err.code === 'no_such_key'
      ? field
        ? `guard a field some targets lack with has(target.${expression.slice(range!.start, range!.end)})`
        : 'guard a field some targets lack with has(target.field)'
      : 'guard a field whose type varies with type(target.field) == string (or int, double, bool)'
  return (
    `Input ${WHERE_INPUT} cannot be evaluated on ${targetLabel(target, index)} (${summary}${where}), so no call was made: ` +
    `${guard} && …`
  )
}

function describe(value: unknown): string {
  if (value === null) return 'null'
  if (typeof value === 'bigint' || typeof value === 'number') return 'a number'
  if (typeof value === 'string') return 'a string'
  return Array.isArray(value) ? 'a list' : `a ${typeof value}`
}
