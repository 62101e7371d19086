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

  /** The distinct spans, in order: find() may report a run more than once. */
  const distinct = (spans: number[]) =>
    [...new Set(spans.flatMap((n, k) => (k % 2 ? [] : [`${n}-${spans[k + 1]}`])))].sort(
      (a, b) => parseInt(a) - parseInt(b)
    )
  const once = encodeURIComponent(SECRET)
  const twice = encodeURIComponent(once)

  it('finds the secret as it is, each time it is there', () => {
    expect(distinct(secretSpans(`${SECRET} and ${SECRET}`, fragments))).toEqual(['0-16', '21-37'])
  })

  it('searches every view, after a match too, and each view once', () => {
    const text = `${once} ${twice}`
    expect(distinct(secretSpans(text, fragments))).toEqual([`0-${once.length}`, `${once.length + 1}-${text.length}`])
    // A text whose % starts no sequence is its only view: its spans are those of the text as it is.
    const plain = `${SECRET} 100%`
    const asItIs: number[] = []
    fragments.find(plain, asItIs)
    expect(asItIs.length).toBeGreaterThan(0)
    expect(secretSpans(plain, fragments)).toEqual(asItIs)
  })

  it('undoes up to three layers of encoding, and no more', () => {
    const thrice = encodeURIComponent(twice)
    expect(distinct(secretSpans(thrice, fragments))).toEqual([`0-${thrice.length}`])
    expect(secretSpans(encodeURIComponent(thrice), fragments)).toEqual([])
  })

  it('gives one span when asked for the first, from the first view that holds one', () => {
    expect(secretSpans(`${SECRET}&amp;${SECRET}`, fragments, true)).toEqual([0, 16])
    expect(secretSpans(`${once} ${twice}`, fragments, true)).toEqual([0, once.length])
    expect(secretSpans(`x ${twice}`, fragments, true)).toEqual([2, 2 + twice.length])
  })
})

describe('withoutSpans', () => {
  it.each([
    [[2, 4], 'ab***ef'],
    [[0, 2, 4, 6], '***cd***'],
    [[1, 3, 2, 5], 'a***f'],
    [[1, 3, 3, 4], 'a***ef'],
    [[1, 5, 2, 3], 'a***f'],
    [[4, 6, 0, 1, 2, 3], '***b***d***']
  ])('replaces the spans %j of abcdef, merged', (spans, expected) => {
    expect(withoutSpans('abcdef', spans)).toBe(expected)
  })
})
