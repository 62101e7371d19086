import { Preflight } from '../../src/routine/preflight.js'
import { parseCall } from '../../src/service/call.js'

const checked = (call: string, targets: unknown[], body = ''): Preflight => {
  const preflight = new Preflight(parseCall(call, body))
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
          'Check the field names (they are case-sensitive) against the targets.'
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
          'Check the field names (they are case-sensitive) against the targets.'
      )
    )
    const five = Array.from({ length: 5 }, () => ({}))
    expect(() => checked('GET /v1/t/{id}', five).verify()).toThrow(
      'target #1 lacks {id}; target #2 lacks {id}; target #3 lacks {id}; target #4 lacks {id}; target #5 lacks {id}. Check'
    )
  })

  it('can be verified as it goes: each verify counts what was checked so far', () => {
    const preflight = new Preflight(parseCall('GET /v1/t/{id}', ''))
    preflight.check({ id: 'a' })
    preflight.verify()
    preflight.check({})
    expect(() => preflight.verify()).toThrow('Input call: 1 of 2 targets')
  })
})
