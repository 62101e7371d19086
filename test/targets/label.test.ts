import { parseExact } from '../../src/json.js'
import { NAME_FIELDS, targetLabel, targetName } from '../../src/targets/label.js'
import { mask } from '../../src/secrets.js'

describe('targetLabel', () => {
  it.each<[string, unknown, number, string]>([
    ['a string id, JSON-quoted', { id: 'a"b' }, 0, 'target "a\\"b"'],
    ['an empty string id', { id: '' }, 3, 'target ""'],
    ['a number id', { id: 42, name: 'x' }, 0, 'target 42'],
    ['a number id as sent', { id: parseExact('9007199254740993') }, 0, 'target 9007199254740993'],
    ['no id, by its place', { name: 'x' }, 0, 'target #1'],
    ['an object id, by its place', { id: { a: 1 } }, 9, 'target #10'],
    ['a null id, by its place', { id: null }, 1, 'target #2'],
    ['a scalar, by its place', 'plain', 41, 'target #42'],
    ['null, by its place', null, 0, 'target #1'],
    ['an array, by its place', [{ id: 'a' }], 6, 'target #7']
  ])('names a target with %s', (_, target, index, label) => {
    expect(targetLabel(target, index)).toBe(label)
  })

  it('cuts a long id at 80 characters of its quoted text', () => {
    expect(targetLabel({ id: 'x'.repeat(78) }, 0)).toBe(`target "${'x'.repeat(78)}"`)
    expect(targetLabel({ id: 'x'.repeat(79) }, 0)).toBe(`target "${'x'.repeat(79)}…`)
  })

  it('keeps an id on one line, and redacted', () => {
    mask('label-secret-99')
    expect(targetLabel({ id: 'a\u0007b' }, 0)).toBe('target "a\\u0007b"')
    expect(targetLabel({ id: 'x label-secret-99' }, 0)).toBe('target "x ***"')
  })
})

describe('targetName', () => {
  it('takes the chosen field, else the first name-like field with text or a number', () => {
    expect(targetName({ id: 'a', name: 'web-1', host: 'h' })).toBe('web-1')
    expect(targetName({ id: 'a', hostname: 'h1' })).toBe('h1')
    expect(targetName({ id: 'a', title: 7 })).toBe('7')
    expect(targetName({ id: 'a', name: 'web-1', label: 'L' }, 'label')).toBe('L')
    expect(targetName({ id: 'a', name: 'web-1' }, 'label')).toBeUndefined()
  })

  it('has none for targets without such a field, an empty one, or not objects', () => {
    expect(targetName({ id: 'a' })).toBeUndefined()
    expect(targetName({ name: '', title: 'T' })).toBe('T')
    expect(targetName({ name: { first: 'x' } })).toBeUndefined()
    expect(targetName('t-1')).toBeUndefined()
    expect(targetName(['name'])).toBeUndefined()
    expect(targetName(null)).toBeUndefined()
    expect(targetName(Object.create({ name: 'inherited' }))).toBeUndefined()
    expect(NAME_FIELDS[0]).toBe('name')
  })
})
