import { Outcome } from '../../src/routine/lines.js'
import { Tally } from '../../src/routine/tally.js'
import { mask } from '../../src/secrets.js'

const who = (label: string) => () => ({ label, key: label })

const tally = () => {
  const infos: string[] = []
  return { t: new Tally(m => infos.push(m)), infos }
}

describe('Tally', () => {
  it('counts lines of any outcome, one or many at a time', () => {
    const { t, infos } = tally()
    expect(t.total).toBe(0)
    expect(t.count('succeeded')).toBe(0)
    t.add('skipped')
    t.add('not-made', 5)
    t.add('skipped', 2)
    expect(t.count('skipped')).toBe(3)
    expect(t.count('not-made')).toBe(5)
    expect(t.total).toBe(8)
    expect(t.badCalls).toBe(0)
    expect(infos).toEqual([])
  })

  it('counts calls by outcome and status, a success silently', () => {
    const { t, infos } = tally()
    t.call('succeeded', 200, who('target "a"'), 0, undefined)
    t.call('succeeded', 200, who('target "b"'), 1, 'ok')
    t.call('succeeded', 404, who('target "c"'), 2, undefined)
    expect(Object.fromEntries(t.outcomes)).toEqual({ succeeded: 3 })
    expect(Object.fromEntries(t.byStatus)).toEqual({ 'HTTP 200': 2, 'HTTP 404': 1 })
    expect(t.failedByStatus.size).toBe(0)
    expect(t.failures).toEqual([])
    expect(t.badCalls).toBe(0)
    expect(infos).toEqual([])
  })

  it('keeps and logs a failure, and an unknown outcome, each as it is', () => {
    const { t, infos } = tally()
    t.call('failed', 503, who('target "a"'), 0, '{"e":"busy"}')
    t.call('unknown', null, who('target #2'), 1, 'the connection closed before the response ended')
    t.call('failed', 599, who('target "c"'), 2, undefined)
    t.call('failed', null, who('target "d"'), 3, '')
    expect(Object.fromEntries(t.outcomes)).toEqual({ failed: 3, unknown: 1 })
    expect(Object.fromEntries(t.byStatus)).toEqual({ 'HTTP 503': 1, 'no response': 2, 'HTTP 599': 1 })
    expect(Object.fromEntries(t.failedByStatus)).toEqual({ 'HTTP 503': 1, 'HTTP 599': 1, 'no response': 1 })
    expect(t.badCalls).toBe(4)
    expect(t.total).toBe(4)
    expect(t.failures).toEqual([
      { key: 'target "a"', status: 'HTTP 503', outcome: 'failed', said: '{"e":"busy"}' },
      {
        key: 'target #2',
        status: 'no response',
        outcome: 'unknown',
        said: 'the connection closed before the response ended'
      },
      { key: 'target "c"', status: 'HTTP 599', outcome: 'failed', said: '' },
      { key: 'target "d"', status: 'no response', outcome: 'failed', said: '' }
    ])
    expect(infos).toEqual([
      'Call #1 for target "a" failed: HTTP 503 Service Unavailable ({"e":"busy"})',
      'Call #2 for target #2 has no known outcome: no response (the connection closed before the response ended)',
      'Call #3 for target "c" failed: HTTP 599',
      'Call #4 for target "d" failed: no response'
    ])
  })

  it('cuts what the service said at a word, about 160 characters, on one line, redacted', () => {
    mask('tally-secret-77')
    const { t, infos } = tally()
    t.call('failed', 500, who('t'), 0, `tally-secret-77\n${'word '.repeat(60)}`)
    const said = `*** ${'word '.repeat(30)}word…`
    expect(t.failures[0].said).toBe(said)
    expect(infos).toEqual([`Call #1 for t failed: HTTP 500 Internal Server Error (${said})`])
  })

  it('keeps the message field of a JSON body, unescaped, and names the target by key and name', () => {
    const { t, infos } = tally()
    const body = JSON.stringify({ message: 'profile "nightly" is locked', code: 'E42' })
    t.call('failed', 409, () => ({ label: 'target "t-3"', key: 't-3', name: 'build-03' }), 2, body)
    expect(t.failures).toEqual([
      { key: 't-3', name: 'build-03', status: 'HTTP 409', outcome: 'failed', said: 'profile "nightly" is locked' }
    ])
    expect(infos).toEqual(['Call #3 for target "t-3" failed: HTTP 409 Conflict (profile "nightly" is locked)'])
  })

  it('names a failure only when it is kept or logged', () => {
    const { t } = tally()
    let named = 0
    const counting = () => {
      named++
      return { label: 'l', key: 'k' }
    }
    t.call('succeeded', 200, counting, 0, undefined)
    t.call('skipped', null, counting, 1, undefined)
    expect(named).toBe(0)
    for (let i = 0; i < 60; i++) t.call('failed', 500, counting, 2 + i, undefined)
    // 50 kept, and the 51st: the 21st logged is only the line that says the rest are counted.
    expect(named).toBe(50)
  })

  it.each<[Outcome]>([['not-made'], ['skipped'], ['planned']])(
    'counts a %s call without keeping it as a failure',
    outcome => {
      const { t, infos } = tally()
      t.call(outcome, null, who('t'), 0, 'x')
      expect(t.count(outcome)).toBe(1)
      expect(t.badCalls).toBe(0)
      expect(t.failures).toEqual([])
      expect(infos).toEqual([])
    }
  )

  it('logs 20 failures one by one, then one line, and keeps 50', () => {
    const { t, infos } = tally()
    for (let i = 0; i < 60; i++) t.call(i % 3 ? 'failed' : 'unknown', i % 3 ? 500 : null, who(`target "t${i}"`), i, 'e')
    expect(infos).toHaveLength(21)
    expect(infos[19]).toBe('Call #20 for target "t19" failed: HTTP 500 Internal Server Error (e)')
    expect(infos[20]).toBe(
      'More calls failed: from here on they are counted, not listed (the results file lists every one)'
    )
    expect(t.failures).toHaveLength(50)
    expect(t.failures[49]).toEqual({ key: 'target "t49"', status: 'HTTP 500', outcome: 'failed', said: 'e' })
    expect(t.badCalls).toBe(60)
    expect(Object.fromEntries(t.outcomes)).toEqual({ failed: 40, unknown: 20 })
    expect(Object.fromEntries(t.failedByStatus)).toEqual({ 'HTTP 500': 40 })
  })

  it('logs the 20th failure and says nothing more before the 21st', () => {
    const { t, infos } = tally()
    for (let i = 0; i < 20; i++) t.call('failed', 500, who('t'), i, undefined)
    expect(infos).toHaveLength(20)
    t.call('succeeded', 200, who('t'), 20, undefined)
    expect(infos).toHaveLength(20)
    t.call('failed', 500, who('t'), 21, undefined)
    expect(infos.at(-1)).toMatch(/^More calls failed/)
    t.call('failed', 500, who('t'), 22, undefined)
    expect(infos).toHaveLength(21)
  })
})
