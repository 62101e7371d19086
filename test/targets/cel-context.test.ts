import { jest } from '@jest/globals'
import { Environment } from '@marcbachmann/cel-js'
import {
  AstNode,
  contextFor,
  isNode,
  MAX_KEY_CHARS,
  MEMO_ENTRIES,
  memoized,
  namesIn
} from '../../src/targets/cel-context.js'
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

describe('memoized', () => {
  /** An evaluation that counts its calls and gives whether a is "x" (and b, when given, true). */
  function counted(result = (t: Record<string, unknown>) => t.a === 'x' && t.b !== false) {
    const calls: number[] = []
    const evaluate = (target: unknown, index: number): boolean => {
      calls.push(index)
      return result((target ?? {}) as Record<string, unknown>)
    }
    return { calls, evaluate }
  }

  it('evaluates once for each combination of the values read, and gives the kept result after', () => {
    const { calls, evaluate } = counted()
    const selects = memoized(new Set(['a', 'b']), evaluate)
    const targets = [
      { a: 'x', b: true },
      { a: 'x', b: true, other: 1 },
      { a: 'y', b: true },
      { a: 'x', b: false },
      { a: 'x', b: true },
      { a: 'y', b: true }
    ]
    expect(targets.map((t, i) => selects(t, i))).toEqual([true, true, false, false, true, false])
    expect(calls).toEqual([0, 2, 3])
  })

  it('tells a lacking field from null, a string from a number, and a target that is not an object', () => {
    const { calls, evaluate } = counted(t => 'a' in t)
    const selects = memoized(new Set(['a']), evaluate)
    const targets = [{}, { a: null }, { a: '1' }, { a: 1 }, { a: true }, 'text', {}, { a: 1 }, { a: null }, { a: true }]
    for (const [i, target] of targets.entries()) {
      selects(target, i)
    }
    // 'text' lacks the field as {} does: the condition sees the same nothing.
    expect(calls).toEqual([0, 1, 2, 3, 4])
  })

  it('evaluates each time a value that is no exact key: an object, a list, a kept number, -0', () => {
    const { calls, evaluate } = counted(() => true)
    const selects = memoized(new Set(['a']), evaluate)
    const shared = { n: 1 }
    const values = [
      { n: 1 },
      { n: 1 },
      [1],
      [1],
      parseExact('{"n":12345678901234567890}'),
      -0,
      -0,
      0,
      0,
      shared,
      shared
    ]
    values.forEach((a, i) => selects({ a }, i))
    expect(calls).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 9, 10])
  })

  it('keeps no failure: a target that fails is evaluated again, and so fails with its own name', () => {
    const selects = memoized(new Set(['a']), (_t, index) => {
      throw new Error(`failed at ${index}`)
    })
    expect(() => selects({ a: 'x' }, 0)).toThrow('failed at 0')
    expect(() => selects({ a: 'x' }, 1)).toThrow('failed at 1')
  })

  it('evaluates a condition that reads the whole target every time', () => {
    const { calls, evaluate } = counted()
    expect(memoized(new Set(['target', 'a']), evaluate)).toBe(evaluate)
    const selects = memoized(new Set(['target']), evaluate)
    selects({ a: 'x' }, 0)
    selects({ a: 'x' }, 1)
    expect(calls).toEqual([0, 1])
  })

  it('evaluates a condition that reads nothing once, after it first succeeds', () => {
    let fail = true
    const calls: number[] = []
    const selects = memoized(new Set(), (_t, index) => {
      calls.push(index)
      if (fail) throw new Error('not yet')
      return true
    })
    expect(() => selects({}, 0)).toThrow('not yet')
    fail = false
    expect([1, 2, 3].map(i => selects({ a: i, undefined: i }, i))).toEqual([true, true, true])
    expect(calls).toEqual([0, 1])
  })

  it('keeps at most MEMO_ENTRIES results and inner maps, and still reads what it keeps', () => {
    const { calls, evaluate } = counted(t => t.a === 0)
    const selects = memoized(new Set(['a']), evaluate)
    // Each value twice: the memo answers as many targets as it holds.
    for (let i = 0; i < MEMO_ENTRIES; i++) for (const index of [0, 1]) selects({ a: i }, index)
    expect(calls).toHaveLength(MEMO_ENTRIES)
    calls.length = 0
    expect(selects({ a: MEMO_ENTRIES }, 2)).toBe(false)
    expect(selects({ a: MEMO_ENTRIES }, 3)).toBe(false)
    expect(selects({ a: 0 }, 4)).toBe(true)
    expect(selects({ a: MEMO_ENTRIES - 1 }, 5)).toBe(false)
    expect(calls).toEqual([2, 3])

    const two = counted(t => t.a === 0)
    const pairs = memoized(new Set(['a', 'b']), two.evaluate)
    // Each new a makes an inner map and its first result: two entries, and a hit each.
    for (let i = 0; i < MEMO_ENTRIES / 2; i++) for (const index of [0, 1]) pairs({ a: i, b: 0 }, index)
    two.calls.length = 0
    const set = jest.spyOn(Map.prototype, 'set')
    try {
      pairs({ a: -2, b: 0 }, 0) // full: no inner map made for it
      expect(set).not.toHaveBeenCalled()
    } finally {
      set.mockRestore()
    }
    two.calls.length = 0
    pairs({ a: 0, b: 0 }, 0)
    pairs({ a: 0, b: 1 }, 1)
    pairs({ a: 0, b: 1 }, 2)
    pairs({ a: -1, b: 0 }, 3)
    pairs({ a: -1, b: 0 }, 4)
    pairs({ a: 1, b: 0 }, 5)
    expect(two.calls).toEqual([1, 2, 3, 4])
  })

  it('leaves alone a memo full before it answered as many targets as it holds: a value per target', () => {
    const { calls, evaluate } = counted(t => t.a === 0)
    const selects = memoized(new Set(['a']), evaluate)
    for (let i = 0; i < MEMO_ENTRIES; i++) selects({ a: i }, i)
    selects({ a: 0 }, 0) // one hit: fewer than it holds
    calls.length = 0
    const clear = jest.spyOn(Map.prototype, 'clear')
    const get = jest.spyOn(Map.prototype, 'get')
    try {
      selects({ a: MEMO_ENTRIES }, 1) // full: emptied, and from now on every target is evaluated
      expect(clear).toHaveBeenCalledTimes(1)
      get.mockClear()
      expect(selects({ a: 0 }, 2)).toBe(true)
      expect(selects({ a: 1 }, 3)).toBe(false)
      expect(get).not.toHaveBeenCalled() // not even looked up
    } finally {
      clear.mockRestore()
      get.mockRestore()
    }
    expect(calls).toEqual([1, 2, 3])
  })

  it('leaves alone a memo whose inner maps fill first: the first field read has a value per target', () => {
    const { calls, evaluate } = counted(t => t.a === 0)
    const selects = memoized(new Set(['a', 'b']), evaluate)
    for (let i = 0; i < MEMO_ENTRIES / 2; i++) selects({ a: i, b: 0 }, i)
    selects({ a: 0, b: 0 }, 0) // one hit
    calls.length = 0
    selects({ a: -1, b: 0 }, 1) // a new inner map in a full memo
    expect(selects({ a: 0, b: 0 }, 2)).toBe(true)
    expect(calls).toEqual([1, 2])
  })

  it('keeps a string of up to MAX_KEY_CHARS characters, and evaluates a longer one each time', () => {
    const { calls, evaluate } = counted(() => true)
    const selects = memoized(new Set(['a']), evaluate)
    const short = 'x'.repeat(MAX_KEY_CHARS)
    const long = 'x'.repeat(MAX_KEY_CHARS + 1)
    ;[short, short, long, long].forEach((a, i) => selects({ a }, i))
    expect(calls).toEqual([0, 2, 3])
  })
})
