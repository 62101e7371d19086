import { Fragments } from '../../src/redact/fragments.js'
import { secretSpans, withoutSpans } from '../../src/redact/views.js'

const SECRET = 'Zq8!mW2#pL5@vN9$'
const fragments = new Fragments()
fragments.add(SECRET)

describe('secretSpans', () => {
  it('maps a match in a decoded view back to the encoded text, through every layer', () => {
    const once = encodeURIComponent(SECRET)
    const twice = JSON.stringify(JSON.stringify(`<${once}>`))
    const spans = secretSpans(twice, fragments)
    expect(spans.length).toBeGreaterThan(0)
    for (let k = 0; k < spans.length; k += 2) expect(twice.slice(spans[k], spans[k + 1])).toBe(once)
  })

  it('looks at no decoded view of a text without %, & or \\', () => {
    expect(secretSpans(`plain ${SECRET.replace('#', '')} text`, fragments)).toEqual([])
  })
})

describe('withoutSpans', () => {
  it.each([
    [[2, 4], 'ab***ef'],
    [[0, 2, 4, 6], '***cd***'],
    [[1, 3, 2, 5], 'a***f'],
    [[1, 3, 3, 4], 'a***ef'],
    [[1, 5, 2, 3], 'a***f']
  ])('replaces the spans %j of abcdef, merged', (spans, expected) => {
    expect(withoutSpans('abcdef', spans)).toBe(expected)
  })
})
