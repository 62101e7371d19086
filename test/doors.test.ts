import { checkGivenInputs, closest, currentDoor, Door, givenButUnused } from '../src/doors.js'

const SHARD: Door = {
  name: 'shard',
  inputs: { 'sealed-token': '', call: '', 'call-body': '', 'call-concurrency': '4', 'client-secret': '' },
  outputs: ['results-file', 'counts']
}

describe('currentDoor', () => {
  it("reads the stub's declaration, and nothing else", () => {
    expect(currentDoor({ name: 'shard', inputs: {}, outputs: [] })).toEqual({ name: 'shard', inputs: {}, outputs: [] })
    expect(currentDoor(undefined)).toBeUndefined()
    expect(currentDoor({ name: 'other', inputs: {}, outputs: [] })).toBeUndefined()
    expect(currentDoor({ name: 'list', inputs: null, outputs: [] })).toBeUndefined()
    expect(currentDoor({ name: 'list', inputs: {}, outputs: 'x' })).toBeUndefined()
    expect(currentDoor('root')).toBeUndefined()
    for (const name of ['root', 'list', 'shard', 'report']) {
      expect(currentDoor({ name, inputs: {}, outputs: [] })).toEqual({ name, inputs: {}, outputs: [] })
    }
  })
})

describe('checkGivenInputs', () => {
  const env = (names: string[]) => Object.fromEntries(names.map(n => [`INPUT_${n.toUpperCase()}`, 'x']))

  it('lets the declared inputs through, and whatever else the environment holds', () => {
    expect(() => checkGivenInputs(SHARD, { ...env(['call', 'call-body']), PATH: '/bin' })).not.toThrow()
  })

  it('names an input the door does not declare, and the one it most likely meant', () => {
    expect(() => checkGivenInputs(SHARD, env(['call', 'call-bodyy']))).toThrow(
      new Error(
        "Input call-bodyy is not an input of this action (shard/action.yml): did you mean call-body? Correct its name in the step's with:, or remove it."
      )
    )
    expect(() => checkGivenInputs(SHARD, env(['client_secret']))).toThrow(/did you mean client-secret\?/)
    expect(() => checkGivenInputs(SHARD, env(['report-from']))).toThrow(
      new Error(
        "Input report-from is not an input of this action (shard/action.yml). Correct its name in the step's with:, or remove it."
      )
    )
  })

  it("names the door's own action.yml", () => {
    for (const [name, file] of [
      ['list', 'list/action.yml'],
      ['shard', 'shard/action.yml'],
      ['report', 'report/action.yml'],
      ['root', 'action.yml']
    ] as const) {
      expect(() => checkGivenInputs({ ...SHARD, name }, env(['nothing-like-it']))).toThrow(
        `Input nothing-like-it is not an input of this action (${file}).`
      )
    }
  })

  it('names several at once, five at most', () => {
    const many = ['a1', 'b2', 'c3', 'd4', 'e5', 'f6', 'callbody']
    expect(() => checkGivenInputs({ ...SHARD, name: 'root' }, env(many))).toThrow(
      new Error(
        "Inputs a1, b2, c3, callbody (did you mean call-body?), d4 and 2 more are not inputs of this action (action.yml). Correct their names in the step's with:, or remove them."
      )
    )
  })
})

describe('closest', () => {
  const declared = ['client-id', 'client-secret', 'call', 'call-body', 'targets-where']
  it.each([
    ['client_id', 'client-id'],
    ['CLIENT-SECRET', 'client-secret'],
    ['call-bod', 'call-body'],
    ['calll', 'call'],
    ['target-where', 'targets-where'],
    ['targets_whre', 'targets-where'],
    ['shard', undefined],
    ['report-from', undefined],
    // Two edits for a short name, a third of a long one: at the edge, and past it.
    ['ca', 'call'],
    ['c', undefined],
    ['trgts-whre', 'targets-where'],
    ['trgts-wh', undefined]
  ])('%s -> %s', (given, meant) => {
    expect(closest(given, declared)).toBe(meant)
  })

  it('takes the first of two names as close', () => {
    expect(closest('cxll', ['call', 'cell'])).toBe('call')
    expect(closest('cxll', ['cell', 'call'])).toBe('cell')
  })
})

describe('givenButUnused', () => {
  it('names the inputs given at other than their defaults', () => {
    const env = { 'INPUT_CALL-BODY': '{}', 'INPUT_CALL-CONCURRENCY': '4', INPUT_CALL: '', 'INPUT_CALL-RATE': '2' }
    expect(
      givenButUnused(
        ['call', 'call-body', 'call-concurrency', 'call-rate', 'plan-from'],
        { 'call-concurrency': '4' },
        env
      )
    ).toEqual(['call-body', 'call-rate'])
  })
})
