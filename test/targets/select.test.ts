import { compileSelection, MAX_EXPRESSION_CHARS, SelectionError } from '../../src/targets/select.js'
import { parseExact } from '../../src/json.js'

const RETIRED_EU = 'status == "retired" && region.startsWith("eu-")'

async function refusal(expression: string): Promise<string> {
  try {
    await compileSelection(expression)
  } catch (err) {
    expect(err).toBeInstanceOf(SelectionError)
    return (err as Error).message
  }
  throw new Error(`compiled: ${expression}`)
}

function evaluationRefusal(selection: { selects: (t: unknown, i: number) => boolean }, target: unknown, index = 0) {
  try {
    selection.selects(target, index)
  } catch (err) {
    expect(err).toBeInstanceOf(SelectionError)
    return (err as Error).message
  }
  throw new Error('selected without a refusal')
}

describe('compileSelection', () => {
  it('selects as a fresh evaluation would, target by target, with its results kept by value', async () => {
    const expression = 'status == "retired" && (zone == null || zone.startsWith("eu-")) && size > 2'
    const statuses = ['retired', 'active', 'retired ', 7, true, null, ['retired'], undefined]
    const zones = ['eu-1', 'us-1', null, 5, undefined]
    const sizes = [1, 3, 2.5, -0, '3', null, (parseExact('{"n":12345678901234567890}') as { n: unknown }).n, undefined]
    const targets: unknown[] = []
    for (const status of statuses)
      for (const zone of zones)
        for (const size of sizes) {
          const target: Record<string, unknown> = { status, zone, size }
          for (const name of Object.keys(target)) if (target[name] === undefined) delete target[name]
          targets.push(target)
        }
    targets.push('not an object', null, [1])
    const outcome = (selection: { selects: (t: unknown, i: number) => boolean }, t: unknown, i: number) => {
      try {
        return selection.selects(t, i)
      } catch (err) {
        return (err as Error).message
      }
    }
    const kept = await compileSelection(expression)
    // The same list twice: the second pass is read from what the first kept.
    const twice = [...targets, ...targets].map((t, i) => outcome(kept, t, i % targets.length))
    const fresh = await Promise.all(targets.map(async (t, i) => outcome(await compileSelection(expression), t, i)))
    expect(twice).toEqual([...fresh, ...fresh])
    expect(fresh.filter(o => o === true).length).toBeGreaterThan(0)
    expect(fresh.filter(o => o === false).length).toBeGreaterThan(0)
    expect(fresh.filter(o => typeof o === 'string').length).toBeGreaterThan(0)
  })

  it('keeps the targets the condition is true for', async () => {
    const selection = await compileSelection(RETIRED_EU)
    expect(selection.expression).toBe(RETIRED_EU)
    expect(selection.selects({ id: 'a', status: 'retired', region: 'eu-west-1' }, 0)).toBe(true)
    expect(selection.selects({ id: 'b', status: 'retired', region: 'us-east-1' }, 1)).toBe(false)
    expect(selection.selects({ id: 'c', status: 'active', region: 'eu-west-1' }, 2)).toBe(false)
  })

  it('reads the whole target as target, so that has() guards a field some lack', async () => {
    const selection = await compileSelection('has(target.region) && region == "eu"')
    expect(selection.selects({ id: 'a' }, 0)).toBe(false)
    expect(selection.selects({ id: 'b', region: 'eu' }, 1)).toBe(true)
    expect((await compileSelection('target.size() == 2')).selects({ a: 1, b: 2 }, 0)).toBe(true)
  })

  it('selects among targets that are not objects through target', async () => {
    const selection = await compileSelection('target.startsWith("t-")')
    expect(selection.selects('t-1', 0)).toBe(true)
    expect(selection.selects('x-1', 1)).toBe(false)
  })

  it('compares numbers kept exactly as sent as CEL numbers', async () => {
    const big = parseExact('{"id": 9007199254740993, "weight": 1.50, "tags": [{"n": 12345678901234567890}]}')
    expect((await compileSelection('id == 9007199254740993')).selects(big, 0)).toBe(true)
    expect((await compileSelection('id == 9007199254740992')).selects(big, 0)).toBe(false)
    expect((await compileSelection('weight > 1.4 && weight < 1.6')).selects(big, 0)).toBe(true)
    expect((await compileSelection('tags[0].n > 12345678901234567889')).selects(big, 0)).toBe(true)
    expect((await compileSelection('weight == 1.5')).selects({ weight: 1.5 }, 0)).toBe(true)
  })

  it('never reaches Object.prototype through a name', async () => {
    const selection = await compileSelection('has(target.constructor)')
    expect(selection.selects({ id: 'a' }, 0)).toBe(false)
    const message = evaluationRefusal(await compileSelection('toString == "x"'), { id: 'a' })
    expect(message).toContain('Unknown variable: toString')
  })

  it('refuses a malformed expression naming the input and where it breaks', async () => {
    const message = await refusal('status == ')
    expect(message).toMatch(/^Input targets-where does not parse at character 11 \("status == ‸"\): Unexpected token/)
    expect(message).toContain('status == "retired"')
    expect(message).not.toContain('\n')
    expect(await refusal('status = "x"')).toMatch(/at character 8 \("status ‸= \\"x\\""\): Unexpected character: =/)
  })

  it('quotes a long expression only around the place it breaks', async () => {
    const message = await refusal(`${'a == 1 && '.repeat(10)}(`)
    expect(message).toMatch(/\("…[^"]{40}‸"\)/)
    const early = await refusal(`status = 1 && ${'a == 1 && '.repeat(5)}b`)
    expect(early).toMatch(/‸[^"]{20}…"/)
  })

  it('refuses an expression longer than the bound', async () => {
    const long = 'a'.repeat(MAX_EXPRESSION_CHARS + 1)
    expect(await refusal(long)).toBe(
      'Input targets-where is 4,097 characters long, more than 4,096: select with a shorter condition'
    )
    await expect(compileSelection(`a == "${'x'.repeat(MAX_EXPRESSION_CHARS - 7)}"`)).resolves.toBeDefined()
  })

  it('names the target and the field it lacks, and how to guard it', async () => {
    const selection = await compileSelection(RETIRED_EU)
    const message = evaluationRefusal(selection, { id: 't-007', status: 'retired' }, 6)
    expect(message).toBe(
      'Input targets-where cannot be evaluated on target "t-007" (Unknown variable: region at "region"), so no call ' +
        'was made: guard a field some targets lack with has(target.region) && …'
    )
  })

  it('names a nested field a target lacks by its path', async () => {
    const selection = await compileSelection('spec.owner.team == "core"')
    const message = evaluationRefusal(selection, { spec: { owner: {} } }, 2)
    expect(message).toContain('target #3 (No such key: team at "spec.owner.team")')
    expect(message).toContain('has(target.spec.owner.team)')
  })

  it('names a type mismatch and how to guard it', async () => {
    const selection = await compileSelection(RETIRED_EU)
    const message = evaluationRefusal(selection, { id: 't-1', status: 'retired', region: 5 })
    expect(message).toContain("found no matching overload for 'double.startsWith(string)'")
    expect(message).toContain('type(target.field) == string')
  })

  it('refuses a result that is not true or false', async () => {
    const selection = await compileSelection('status')
    expect(evaluationRefusal(selection, { id: 'a', status: 'retired' })).toBe(
      'Input targets-where gives a string, not true or false, for target "a": write a condition, such as status == "retired"'
    )
    expect(evaluationRefusal(await compileSelection('size'), { size: 3 })).toContain('gives a number')
    expect(evaluationRefusal(await compileSelection('tags'), { tags: [] })).toContain('gives a list')
    expect(evaluationRefusal(await compileSelection('x'), { x: null })).toContain('gives null')
    expect(evaluationRefusal(await compileSelection('x'), { x: {} })).toContain('gives a object')
    // CEL's ints are BigInts: a number all the same.
    expect(evaluationRefusal(await compileSelection('1'), {})).toContain('gives a number, not true or false')
  })

  it('marks a cut quote only where the expression goes on', async () => {
    // It breaks at character 6, with 20 characters from there to its end: all of them quoted.
    expect(await refusal(`a == == ${'b'.repeat(17)}`)).toContain(`("a == ‸== ${'b'.repeat(17)}")`)
    expect(await refusal(`a == == ${'b'.repeat(18)}`)).toContain(`("a == ‸== ${'b'.repeat(17)}…")`)
  })

  it('refuses an expression of more than 1,000 nodes, under the bound on characters', async () => {
    const expression = Array.from({ length: 300 }, (_, i) => `a == ${i}`).join(' || ')
    expect(expression.length).toBeLessThanOrEqual(MAX_EXPRESSION_CHARS)
    expect(await refusal(expression)).toContain('Exceeded maxAstNodes (1000)')
  })

  it('refuses loops nested in loops, which would cost more than a target size', async () => {
    expect(await refusal('tags.exists(a, tags.all(b, a == b))')).toMatch(
      /^Input targets-where nests all\(\) inside another loop \("tags\.all\(b, a == b\)"\)/
    )
    for (const [outer, inner] of [
      ['map', 'filter'],
      ['exists_one', 'exists_one'],
      ['filter', 'map'],
      ['all', 'exists']
    ]) {
      expect(await refusal(`tags.${outer}(a, tags.${inner}(b, a == b))`)).toContain(
        `nests ${inner}() inside another loop`
      )
    }
    await expect(compileSelection('tags.exists(t, t == "x") && owners.all(o, o != "")')).resolves.toBeDefined()
  })

  it('takes matches() only with a literal pattern the linear engine runs', async () => {
    const selection = await compileSelection('name.matches("^(a+)+$")')
    // A backtracking engine takes minutes on this; the linear one does not.
    expect(selection.selects({ name: `${'a'.repeat(40000)}!` }, 0)).toBe(false)
    expect(selection.selects({ name: 'aaa' }, 0)).toBe(true)
    expect(await refusal('name.matches("(a)\\\\1")')).toMatch(/cannot run in linear time or is not valid/)
    expect(await refusal('name.matches(pattern)')).toMatch(/matches\(\) with a pattern that is not a string literal/)
    expect(await refusal('matches(name, pattern)')).toMatch(/not a string literal/)
    await expect(compileSelection('matches(name, "^a")')).resolves.toBeDefined()
  })
})

describe('fields named like CEL types or reserved words', () => {
  const failure = (selection: Awaited<ReturnType<typeof compileSelection>>, target: unknown): string => {
    try {
      selection.selects(target, 0)
    } catch (err) {
      expect(err).toBeInstanceOf(SelectionError)
      return (err as Error).message
    }
    throw new Error('selected')
  }

  it.each(['type == "host"', 'int > 2', '!bool', 'string in ["a"]'])(
    'names the field and says to write target.<name>: %s',
    async expression => {
      const name = expression.replace(/^!/, '').split(/[ .]/)[0]
      const message = failure(await compileSelection(expression), { id: 'h1', [name]: 'host' })
      expect(message).toBe(
        `Input targets-where reads ${name}, which CEL takes for its type ${name}, not the field ${name} of target "h1", ` +
          `so no call was made: write target.${name} for the field (bool, bytes, double, int, list, map, null_type, string, type, uint are CEL's type names)`
      )
    }
  )

  it('names the field when the value of a bare type name is the result, not a condition', async () => {
    expect(failure(await compileSelection('int'), { id: 'h1', int: 'x' })).toMatch(
      /^Input targets-where reads int, which CEL takes for its type int, not the field int of target "h1"/
    )
  })

  it('names no type when the expression reads none bare, or the target is null', async () => {
    expect(failure(await compileSelection('x == 1'), { id: 'a', int: 5 })).toMatch(
      /^Input targets-where cannot be evaluated on target "a" \(Unknown variable: x at "x"\)/
    )
    expect(failure(await compileSelection('int > 2'), null)).toMatch(
      /^Input targets-where cannot be evaluated on target #1/
    )
  })

  it('reads target.type as the field, and keeps type names as types where the target has no such field', async () => {
    expect((await compileSelection('target.type == "host"')).selects({ type: 'host' }, 0)).toBe(true)
    expect((await compileSelection('type(target.n) == string')).selects({ n: 'x' }, 0)).toBe(true)
    expect(failure(await compileSelection('type == "host"'), { id: 'a' })).toMatch(/cannot be evaluated on target "a"/)
  })

  it.each([
    ['as == 1', 'target.as'],
    ['while == 1', 'target.while'],
    ['target.in == "x"', 'target["in"]'],
    ['target.null == 1', 'target["null"]'],
    ['import == 1', 'target.import']
  ])('says how to write a reserved word as a field: %s', async (expression, selector) => {
    await expect(compileSelection(expression)).rejects.toThrow(
      new RegExp(
        `^Input targets-where does not parse at character \\d+ .*: \\w+ is a word CEL reserves: write a field of that name as ${selector.replace(/[.[\]]/g, '\\$&')}$`
      )
    )
    expect(
      (await compileSelection(selector + ' == 1')).selects(
        { [selector.replace(/^target\.|^target\["|"\]$/g, '')]: 1 },
        0
      )
    ).toBe(true)
  })
})
