import { listText } from '../../src/service/list-text.js'
import { parseTargetsBody } from '../../src/service/targets.js'

describe('listText', () => {
  it('is the text itself, or its first key, when JSON.stringify of the body has its length', () => {
    expect(listText('[{"a":1}]', 9)).toBe('[{"a":1}]')
    expect(listText(' [{"a":1}]\n', 9)).toBe('[{"a":1}]')
    const body = { items: [{ a: 1 }], next: '/2' }
    expect(listText('{"items":[{"a":1}],"next":"/2"}', 31, body, 'items')).toBe('[{"a":1}]')
    expect(listText('{"items":[{"a":1}]}', 19, { items: [{ a: 1 }] }, 'items')).toBe('[{"a":1}]')
    // Another length (whitespace, a repeated key), none, or another key first: nothing.
    expect(listText('[{"a":1}]', 8)).toBeUndefined()
    expect(listText('[{"a":1}]', undefined)).toBeUndefined()
    expect(listText('{"items":[{"a":1}]}', 19, { items: [{ a: 1 }] }, 'data')).toBeUndefined()
    expect(listText('{"items":[{"a":1}],"next":"/2"}', 30, body, 'items')).toBeUndefined()
  })
})

describe("the list's JSON as the response has it", () => {
  const list = [
    { id: 'a', n: 1, tags: ['x y', 'é'], on: true, off: false, none: null, deep: { list: [] } },
    { id: 'b', big: 'BIG', price: 1.5, empty: {} }
  ]
  // Numbers as a JavaScript number would not write them: kept as sent.
  const compact = JSON.stringify(list).replace('1.5', '1.50').replace('"BIG"', '9007199254740993')

  it('is the array itself, or the first key of its object, when the page is compact', () => {
    const bare = parseTargetsBody(compact)
    expect(bare.json).toBe(compact)
    expect(bare.json).toBe(JSON.stringify(bare.targets))
    for (const key of ['targets', 'data', 'items', 'results']) {
      for (const tail of ['}', '}\n', ',"next":"/v1/targets?page=2"}', ',"total":2,"x":[1]}']) {
        const page = parseTargetsBody(`{"${key}":${compact}${tail}`)
        expect(page.json).toBe(compact)
      }
    }
    expect(parseTargetsBody(` \n${compact}\n`).json).toBe(compact)
    expect(parseTargetsBody('[]').json).toBe('[]')
    // Numbers JSON.stringify would write otherwise are kept as sent (parseExact).
    expect(parseTargetsBody('[{"n":1e2,"m":-0,"k":1.50}]').json).toBe('[{"n":1e2,"m":-0,"k":1.50}]')
    expect(parseTargetsBody('{"targets":[]}').json).toBe('[]')
  })

  it.each([
    ['whitespace between tokens', '[{"id": "a"}]'],
    ['whitespace in the object', '{"targets": [{"id":"a"}]}'],
    ['a backslash', '[{"id":"a\\u0041"}]'],
    ['a backslash outside the list', '{"targets":[{"id":"a"}],"next":"\\/p2"}'],
    ['a repeated key in a target', '[{"id":"a","id":"b"}]'],
    ['the list key repeated', '{"targets":[{"id":"a"}],"targets":[{"id":"b"}]}'],
    ['the list key repeated, the same length', '{"targets":[{"id":"a"}],"targets":[{"id":"a"}]}'],
    ['the list not the first key', '{"total":1,"targets":[{"id":"a"}]}'],
    ['a key written first by JSON.stringify', '[{"b":1,"2":3}]'],
    ['a lone surrogate', '[{"id":"\ud800"}]']
  ])('is not taken from a page with %s', (_, text) => {
    const page = parseTargetsBody(text)
    expect(page.json).toBeUndefined()
    expect(page.targets.length).toBeGreaterThan(0)
  })

  it('is always JSON.stringify of the targets, on pages of every kind', () => {
    // A seeded generator of page texts: spaces, repeated keys, keys that start with a digit,
    // escapes, numbers written in several ways, the list in several places of its object.
    let seed = 11
    const next = (n: number) => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0), (seed >>> 16) % n)
    const space = () => (next(12) === 0 ? ' ' : '')
    const keys = ['id', 'name', 'a', 'id', '1', 'x y', 'é']
    const strings = ['"a"', '"x y"', '"},{"', '"é😀"', '"a\\"b"', '"\\/"', '""', '"\\n"']
    const numbers = ['0', '-3', '1.5', '1.50', '9007199254740993', '-0', '1e5', '100', '0.001']
    const value = (depth: number): string => {
      switch (next(depth > 2 ? 3 : 5)) {
        case 0:
          return strings[next(strings.length)]
        case 1:
          return numbers[next(numbers.length)]
        case 2:
          return ['true', 'false', 'null'][next(3)]
        case 3:
          return `[${Array.from({ length: next(3) }, () => space() + value(depth + 1)).join(',')}]`
        default:
          return object(depth)
      }
    }
    const object = (depth: number): string =>
      `{${Array.from(
        { length: next(4) },
        () => `${space()}"${keys[next(keys.length)]}"${space()}:${space()}${value(depth + 1)}`
      ).join(',')}}`
    let taken = 0
    const rounds = 600
    for (let round = 0; round < rounds; round++) {
      const targets = `[${Array.from({ length: next(5) }, () => (next(10) === 0 ? value(1) : object(1))).join(`,${space()}`)}]`
      const key = ['targets', 'data', 'items'][next(3)]
      const text = [
        targets,
        `{"${key}":${targets}}`,
        `{"${key}":${targets},"next":"/p${round}"}`,
        `{"total":1,"${key}":${targets}}`,
        `{"${key}":${targets},"${key}":[]}`,
        `{"${key}":[],"${key}":${targets}}`
      ][next(6)]
      const page = parseTargetsBody(text)
      if (page.json === undefined) continue
      taken++
      expect(page.json).toBe(JSON.stringify(page.targets))
    }
    // Neither path is left untried.
    expect(taken).toBeGreaterThan(rounds / 10)
    expect(taken).toBeLessThan(rounds / 2)
  })
})
