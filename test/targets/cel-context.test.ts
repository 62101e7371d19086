import { Environment } from '@marcbachmann/cel-js'
import { AstNode, contextFor, isNode, namesIn } from '../../src/targets/cel-context.js'
import { parseExact } from '../../src/json.js'

const ast = (expression: string): AstNode =>
  (new Environment({ unlistedVariablesAreDyn: true }).parse(expression) as unknown as { ast: AstNode }).ast

describe('namesIn', () => {
  it('finds every variable, in calls, macros and selections, but no field or function name', () => {
    expect(
      [
        ...namesIn(
          ast('has(target.x) && a.b == 1 && tags.exists(t, t == c) && int(n) > 2 && s.startsWith(p) && !u && -v < 0')
        )
      ].sort()
    ).toEqual(['a', 'c', 'n', 'p', 's', 't', 'tags', 'target', 'u', 'v'])
  })
})

describe('contextFor', () => {
  it('copies only the fields named, own ones, and the target only when named', () => {
    const context = contextFor(new Set(['a', 'missing', 'toString']))({ a: 1, b: 2 })
    expect(Object.getPrototypeOf(context)).toBeNull()
    expect({ ...context }).toEqual({ a: 1 })
    const whole = contextFor(new Set(['target']))({ a: 1 })
    expect({ ...whole }).toEqual({ target: { a: 1 } })
  })

  it('gives exact numbers as CEL ints, in a field and in the whole target', () => {
    const target = parseExact('{"id":9007199254740993,"w":1.5,"o":{"n":12345678901234567890}}')
    const context = contextFor(new Set(['id', 'w', 'o', 'target']))(target)
    expect(context.id).toBe(9007199254740993n)
    expect(context.w).toBe(1.5)
    expect(context.o).toEqual({ n: 12345678901234567890n })
    expect((context.target as { id: bigint }).id).toBe(9007199254740993n)
  })

  it('copies no field of a target that is not an object', () => {
    for (const target of [null, 'a', [1], 3]) expect({ ...contextFor(new Set(['length', '0']))(target) }).toEqual({})
    expect(contextFor(new Set(['target']))([1]).target).toEqual([1])
  })

  it('fills one context again for each target, without the fields the next one lacks', () => {
    const contextOf = contextFor(new Set(['a', 'b', 'target']))
    const first = contextOf({ a: 1, b: 2 })
    expect({ ...first }).toEqual({ a: 1, b: 2, target: { a: 1, b: 2 } })
    const second = contextOf({ b: 3 })
    expect(second).toBe(first)
    expect({ ...second }).toEqual({ b: 3, target: { b: 3 } })
    expect({ ...contextOf('not a record') }).toEqual({ target: 'not a record' })
  })

  it('knows a node', () => {
    expect(isNode({ op: 'id', args: 'a' })).toBe(true)
    expect(isNode(null)).toBe(false)
    expect(isNode({ op: 1 })).toBe(false)
  })
})
