import { createHash } from 'node:crypto'
import {
  callEntry,
  checkPlanCalls,
  isPlan2Digest,
  PlanBuilder,
  PlanInputs,
  planTags,
  sealDigest
} from '../../src/routine/plan-calls.js'

const INPUTS: PlanInputs = {
  targets: `sha256:${'ab'.repeat(32)}`,
  call: 'DELETE /v1/t/{id}',
  body: '',
  baseUrl: new URL('https://api.test/')
}

function digest(calls: [string, string][], inputs: Partial<PlanInputs> = {}, skips: string[] = []): string {
  const plan = new PlanBuilder()
  for (const [key, path] of calls) plan.add(key, 'DELETE', path, undefined)
  for (const key of skips) plan.skip(key)
  return plan.digest({ ...INPUTS, ...inputs })
}
const CALLS: [string, string][] = [
  ['a', '/v1/t/a'],
  ['b', '/v1/t/b']
]

describe('PlanBuilder', () => {
  it('binds the count, the tags of the inputs, and every call in order', () => {
    const d = digest(CALLS)
    expect(isPlan2Digest(d)).toBe(true)
    expect(d.split('.')[1]).toBe('2')
    expect(digest(CALLS)).toBe(d)
    expect(digest([...CALLS].reverse())).not.toBe(d)
    expect(digest([CALLS[0], ['b', '/v1/t/c']])).not.toBe(d)
    expect(digest(CALLS, {}, ['x'])).not.toBe(d)
  })

  it.each<[string, Partial<PlanInputs>, number]>([
    ['targets', { targets: `sha256:${'cd'.repeat(32)}` }, 0],
    ['call', { call: 'DELETE /v1/u/{id}' }, 1],
    ['body', { body: '{"x":1}' }, 2],
    ['base-url', { baseUrl: new URL('https://api.test/v2') }, 3],
    ['where', { where: 'a == 1' }, 4],
    ['shard', { shard: '1/2' }, 5]
  ])('moves the %s tag alone when only that input moves', (_what, change, tag) => {
    const before = planTags(digest(CALLS))
    const after = planTags(digest(CALLS, change))
    expect(after.map((t, i) => t !== before[i])).toEqual([0, 1, 2, 3, 4, 5].map(i => i === tag))
  })

  it('takes no where or shard as empty ones, and the body template without the blanks around it', () => {
    const d = digest(CALLS)
    expect(digest(CALLS, { where: '', shard: '' })).toBe(d)
    expect(digest(CALLS, { body: '{"x":1}' })).toBe(digest(CALLS, { body: ' {"x":1}\n' }))
  })

  it('counts its calls, and a body of null as no body', () => {
    const plan = new PlanBuilder()
    plan.add('a', 'POST', '/x', '{"a":1}')
    plan.add('b', 'POST', '/x', undefined)
    expect(plan.count).toBe(2)
    expect(callEntry('k', 'POST', '/p', 'null')).toBe(callEntry('k', 'POST', '/p', undefined))
    expect(callEntry('k', 'POST', '/p', '{}')).toBe('["k","POST","/p"]\n{}\n')
  })

  it('is given again by sealDigest from the same hashes', () => {
    const d = digest(CALLS)
    const calls = createHash('sha256')
    for (const [key, path] of CALLS) calls.update(callEntry(key, 'DELETE', path, undefined))
    expect(sealDigest(2, planTags(d), calls.digest('hex'), createHash('sha256').digest('hex'))).toBe(d)
  })
})

describe('checkPlanCalls', () => {
  it('lets the same plan through', () => {
    expect(() => checkPlanCalls(digest(CALLS), digest(CALLS))).not.toThrow()
  })

  it('names the count and the inputs that moved, and the first call when known', () => {
    expect(() => checkPlanCalls(digest(CALLS), digest([CALLS[0]], { shard: '1/2' }), '#2: x')).toThrow(
      /^Input plan-digest: this step would make 1 calls where the approved plan has 2; what differs: shard; the first call that differs is #2: x\. No call was made\./
    )
    expect(() => checkPlanCalls(digest(CALLS), digest(CALLS, { where: 'a == 1', shard: '1/2' }))).toThrow(
      '; what differs: targets-where, shard. No call was made.'
    )
    expect(() => checkPlanCalls(digest(CALLS), digest([CALLS[0], ['c', '/v1/t/c']]))).toThrow(
      /the same number of calls \(2\), other ones; every input is the same, so the targets themselves changed/
    )
  })
})

describe('checkPlanCalls: the input named', () => {
  it.each<[string, Partial<PlanInputs>, string[]]>([
    ['the targets', { targets: `sha256:${'cd'.repeat(32)}` }, []],
    ['the call', { call: 'DELETE /v2/t/{id}' }, []],
    ['the body', { body: '{}' }, []],
    ['base-url', { baseUrl: new URL('https://api.test/v2') }, []],
    ['where', { where: 'a == 1' }, []],
    ['shard', { shard: '1/2' }, []],
    ['the skips', {}, ['x']]
  ])('names %s by its input, and says what to do', (_what, change, skips) => {
    const label = {
      'the targets': 'the targets (targets-from and targets-digest, or the listing)',
      'the call': 'the call input (method or path)',
      'the body': 'call-body',
      'base-url': 'base-url',
      where: 'targets-where',
      shard: 'shard',
      'the skips': 'call-resume-from (the targets an earlier attempt finished)'
    }[_what]
    expect(() => checkPlanCalls(digest(CALLS), digest(CALLS, change, skips))).toThrow(
      `Input plan-digest: this step would make the same number of calls (2), other ones; what differs: ${label}. ` +
        'No call was made. Apply exactly what was planned (the same targets-from, targets-where, shard, ' +
        'call-resume-from, call, call-body and base-url), or plan again and have the new plan approved.'
    )
  })
})

describe('isPlan2Digest', () => {
  const valid = `plan2.5.${'a'.repeat(8)}.${`${'b'.repeat(8)}.`.repeat(6)}${'c'.repeat(64)}`
  it('takes a digest whole only, with nothing before or after it', () => {
    expect(isPlan2Digest(valid)).toBe(true)
    expect(isPlan2Digest(`x${valid}`)).toBe(false)
    expect(isPlan2Digest(`${valid}0`)).toBe(false)
  })

  it.each([
    [`plan2.5.${'a'.repeat(8)}.`.repeat(1) + `${'b'.repeat(8)}.`.repeat(6) + 'c'.repeat(64), true],
    ['plan1.x', false],
    [`plan2.x.${'a'.repeat(8)}`, false]
  ])('%s -> %s', (text, expected) => {
    expect(isPlan2Digest(text)).toBe(expected)
  })
})
