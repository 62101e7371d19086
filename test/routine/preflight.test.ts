import { Preflight } from '../../src/routine/preflight.js'
import { parseCall } from '../../src/service/call.js'

const checked = (call: string, targets: unknown[], body = ''): Preflight => {
  const preflight = new Preflight(parseCall(call, body), call)
  for (const t of targets) preflight.check(t)
  return preflight
}

describe('Preflight', () => {
  it('passes when nothing was checked, or every target fills the placeholders', () => {
    expect(() => checked('POST /v1/t/{id}', []).verify()).not.toThrow()
    expect(() =>
      checked('POST /v1/t/{id}/{a.b}', [
        { id: 'x', a: { b: 1 } },
        { id: 7, a: { b: 'y' } }
      ]).verify()
    ).not.toThrow()
  })

  it('has nothing to check for a call without placeholders, whatever the targets', () => {
    expect(() => checked('POST /v1/refresh', [42, null, { id: '..' }]).verify()).not.toThrow()
  })

  it('names a target by its id or its place, with every field it lacks', () => {
    expect(() =>
      checked('POST /v1/t/{id}/{kind}', [{ id: 'ok', kind: 'k' }, { name: 'n' }, { id: 'b' }]).verify()
    ).toThrow(
      new Error(
        'Input call: 2 of 3 targets cannot fill its placeholders, so no call was made: ' +
          'target #2 lacks {id}, lacks {kind}; target "b" lacks {kind}. ' +
          'Check the placeholders of call "POST /v1/t/{id}/{kind}" against the targets\' fields (they are case-sensitive): target #2 has name.'
      )
    )
  })

  it('refuses an object where the path needs text, and a missing whole-body value', () => {
    expect(() => checked('POST /v1/t/{id}', [{ id: { a: 1 } }, { id: 'x' }], '{"data":"{payload}"}').verify()).toThrow(
      'so no call was made: target #1 holds an object or array in {id}, lacks {payload}; target "x" lacks {payload}. Check'
    )
    expect(() =>
      checked('POST /v1/t/{id}', [{ id: 'x', payload: { a: 1 } }], '{"data":"{payload}"}').verify()
    ).not.toThrow()
  })

  it('refuses a value that would make a dot segment', () => {
    expect(() => checked('DELETE /v1/t/{id}/x', [{ id: 'a.b' }, { id: '..' }, { id: '.' }]).verify()).toThrow(
      'Input call: 2 of 3 targets cannot fill its placeholders, so no call was made: ' +
        'target ".." gives a path segment of . or ..; target "." gives a path segment of . or ... Check'
    )
  })

  it('names five targets at most, and counts them all', () => {
    const targets = Array.from({ length: 1200 }, (_, i) => (i % 2 ? { id: `t${i}` } : { name: i }))
    expect(() => checked('GET /v1/t/{id}', targets).verify()).toThrow(
      new Error(
        'Input call: 600 of 1,200 targets cannot fill its placeholders, so no call was made: ' +
          'target #1 lacks {id}; target #3 lacks {id}; target #5 lacks {id}; target #7 lacks {id}; target #9 lacks {id}. ' +
          'Check the placeholders of call "GET /v1/t/{id}" against the targets\' fields (they are case-sensitive): target #1 has name.'
      )
    )
    const five = Array.from({ length: 5 }, () => ({}))
    expect(() => checked('GET /v1/t/{id}', five).verify()).toThrow(
      'target #1 lacks {id}; target #2 lacks {id}; target #3 lacks {id}; target #4 lacks {id}; target #5 lacks {id}. Check'
    )
  })

  it.each([
    [
      'a dotted placeholder: the fields of the object it reaches',
      'POST /v1/t/{owner.team}',
      '',
      [{ id: 'a', owner: { name: 'n', org: 'o' } }],
      'target "a" lacks {owner.team}. Check the placeholders of call "POST /v1/t/{owner.team}" against the targets\' fields (they are case-sensitive): target "a" has owner.name, owner.org.'
    ],
    [
      'a body placeholder: call-body named',
      'POST /v1/x',
      '{"for":"{user}"}',
      [{ User: 'u', 'a b': 1, [`k${'e'.repeat(70)}`]: 2 }],
      `target #1 lacks {user}. Check the placeholders of call-body against the targets' fields (they are case-sensitive): target #1 has User, "a b", "k${'e'.repeat(59)}…".`
    ],
    [
      'path and body',
      'POST /v1/{id}',
      '{"n":"{n}"}',
      [{ id: 'a' }],
      'target "a" lacks {n}. Check the placeholders of call "POST /v1/{id}" and call-body against the targets\' fields (they are case-sensitive): target "a" has id.'
    ],
    [
      'a target that is no object',
      'POST /v1/{id}',
      '',
      ['text'],
      'target #1 lacks {id}. Check the placeholders of call "POST /v1/{id}" against the targets\' fields (they are case-sensitive): target #1 is not a JSON object.'
    ],
    [
      'an empty object',
      'POST /v1/{a.b}',
      '',
      [{ a: {} }],
      'target #1 lacks {a.b}. Check the placeholders of call "POST /v1/{a.b}" against the targets\' fields (they are case-sensitive): target #1 has no fields in a.'
    ],
    [
      'an empty target',
      'POST /v1/{a.b}',
      '',
      [{}],
      'target #1 lacks {a.b}. Check the placeholders of call "POST /v1/{a.b}" against the targets\' fields (they are case-sensitive): target #1 has no fields.'
    ],
    [
      'a value of the wrong kind: no list',
      'POST /v1/{id}',
      '',
      [{ id: null }],
      'target #1 holds null in {id}. Check the placeholders of call "POST /v1/{id}" against the targets\' fields (they are case-sensitive).'
    ]
  ])('says what the first target lacking a field has: %s', (_what, call, body, targets, message) => {
    expect(() => checked(call, targets, body).verify()).toThrow(`so no call was made: ${message}`)
  })

  it('lists 20 fields at most, counts the rest, and lists those of the first target that lacks one', () => {
    const many = Object.fromEntries(Array.from({ length: 25 }, (_, i) => [`f${i}`, i]))
    const fields = Array.from({ length: 20 }, (_, i) => `f${i}`).join(', ')
    expect(() => checked('GET /v1/{id}', [{ id: null }, many, { other: 1 }]).verify()).toThrow(
      `target #2 has ${fields} and 5 more.`
    )
  })

  it('echoes the call with a URL password hidden', () => {
    const preflight = new Preflight(parseCall('GET /v1/{id}', ''), ' GET /v1/{id}?u=https://a:b@c.example ')
    preflight.check({})
    expect(() => preflight.verify()).toThrow(
      'Check the placeholders of call "GET /v1/{id}?u=https://***@c.example" against'
    )
  })

  it('can be verified as it goes: each verify counts what was checked so far', () => {
    const preflight = new Preflight(parseCall('GET /v1/t/{id}', ''), 'GET /v1/t/{id}')
    preflight.check({ id: 'a' })
    preflight.verify()
    preflight.check({})
    expect(() => preflight.verify()).toThrow('Input call: 1 of 2 targets')
  })
})
