import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { CallEnd, RESPONSE_OUTPUT_BYTES } from '../../src/routine/call.js'
import { Ledger } from '../../src/routine/ledger.js'
import { RoutineOptions } from '../../src/routine/types.js'
import { routineOptions } from '../helpers.js'

let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'm2m-ledger-'))
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

const ledger = (overrides: Partial<RoutineOptions> = {}): Ledger => new Ledger(routineOptions(dir, overrides))

const end = (fields: Partial<CallEnd>): CallEnd => ({
  outcome: 'succeeded',
  status: 200,
  attempts: 1,
  ms: 5,
  text: '{"ok":true}',
  ...fields
})
const fed = (id: string, index = 0) => ({ target: { id, name: `name-${id}` }, key: id, index })

/** The result lines the ledger wrote, parsed. */
function lines(l: Ledger): Record<string, unknown>[] {
  l.record.close()
  return readFileSync(l.record.path, 'utf8')
    .split('\n')
    .filter(text => text.startsWith('{"key"'))
    .map(text => JSON.parse(text) as Record<string, unknown>)
}

describe('Ledger', () => {
  it('names a target on a line of a call that did not succeed, and not on one that did', () => {
    const l = ledger()
    l.ended(fed('a', 0), end({}))
    l.ended(fed('b', 1), end({ outcome: 'failed', status: 500, text: '' }))
    const [a, b] = lines(l)
    expect(a).not.toHaveProperty('name')
    expect(b).toMatchObject({ key: 'b', outcome: 'failed', name: 'name-b' })
  })

  it('keeps the answer of the one call without targets as the response, when it came whole', () => {
    const answer = (fields: Partial<CallEnd>): string | undefined => {
      const l = ledger()
      l.ended(fed('a'), end(fields))
      return l.result(0).response
    }
    expect(answer({})).toBe('{"ok":true}')
    expect(answer({ outcome: 'unknown', status: null, text: '{"partial":' })).toBeUndefined()
    expect(answer({ truncated: true })).toBeUndefined()
    expect(answer({ text: `"${'x'.repeat(RESPONSE_OUTPUT_BYTES - 3)}"` })).toHaveLength(RESPONSE_OUTPUT_BYTES - 1)
    expect(answer({ text: `"${'x'.repeat(RESPONSE_OUTPUT_BYTES - 2)}"` })).toBeUndefined()
    // A routine over targets has no one response.
    const over = ledger({ targets: async () => undefined })
    over.ended(fed('a'), end({}))
    expect(over.result(0).response).toBeUndefined()
  })

  it('gives, once its record failed, the outcomes the file holds and the targets never fed as not made', () => {
    const l = ledger()
    l.skipped(fed('a', 0), 204)
    l.record.flush()
    l.record.failure = new Error('no space left on device')
    expect(Object.fromEntries(l.result(0).outcomes)).toEqual({ skipped: 1 })
    expect(Object.fromEntries(l.result(2).outcomes)).toEqual({ skipped: 1, 'not-made': 2 })
    l.record.failure = undefined
    l.notMade(fed('b', 1))
    l.record.flush()
    l.record.failure = new Error('no space left on device')
    expect(Object.fromEntries(l.result(3).outcomes)).toEqual({ skipped: 1, 'not-made': 4 })
  })
})
