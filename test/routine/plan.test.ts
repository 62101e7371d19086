import { checkPlan, isPlanDigest, planDigest } from '../../src/routine/plan.js'

const call = {
  method: 'post',
  path: '/v1/targets/{id}/archive',
  body: ' {"reason":"cleanup"} ',
  baseUrl: new URL('https://api.example.test/')
}
const TARGETS = `sha256:${'ab'.repeat(32)}`

describe('planDigest', () => {
  it('has five parts, and is the same for the same plan', () => {
    const digest = planDigest(TARGETS, call)
    expect(isPlanDigest(digest)).toBe(true)
    expect(planDigest(TARGETS, { ...call, method: 'POST', body: '{"reason":"cleanup"}' })).toBe(digest)
  })

  it.each([
    ['the targets', `sha256:${'cd'.repeat(32)}`, {}, 1],
    ['the method', TARGETS, { method: 'PUT' }, 2],
    ['the path', TARGETS, { path: '/v1/targets/{id}' }, 2],
    ['the body', TARGETS, { body: '{"reason":"purge"}' }, 3],
    ['base-url', TARGETS, { baseUrl: new URL('https://api.example.test/v2') }, 4]
  ])('changes with %s, in that part and the whole', (_what, targets, change, part) => {
    const before = planDigest(TARGETS, call).split('.')
    const after = planDigest(targets, { ...call, ...change }).split('.')
    expect(after.map((p, i) => p !== before[i])).toEqual([false, ...[1, 2, 3, 4].map(i => i === part), true])
  })
})

describe('isPlanDigest', () => {
  const digest = (version: string, first: string) =>
    [version, first, 'b'.repeat(8), 'c'.repeat(8), 'd'.repeat(8), 'e'.repeat(64)].join('.')

  it.each([
    [digest('plan1', 'a'.repeat(12)), true],
    [digest('plan2', 'a'.repeat(12)), false],
    [digest('plan1', 'a'.repeat(11)), false],
    [digest('plan1', 'A'.repeat(12)), false],
    [`sha256:${'a'.repeat(64)}`, false],
    ['', false]
  ])('%s -> %s', (text, expected) => {
    expect(isPlanDigest(text)).toBe(expected)
  })
})

describe('checkPlan', () => {
  const approved = planDigest(TARGETS, call)

  it('lets the same plan through', () => {
    expect(() => checkPlan(approved, planDigest(TARGETS, call))).not.toThrow()
  })

  it.each([
    [{ body: '{}' }, TARGETS, 'call-body'],
    [{ baseUrl: new URL('https://other.example.test/') }, TARGETS, 'base-url'],
    [{ method: 'DELETE' }, TARGETS, 'the call input (method or path)'],
    [{}, `sha256:${'00'.repeat(32)}`, 'the targets (another snapshot or listing)'],
    [{ body: '{}', baseUrl: new URL('https://other.example.test/') }, TARGETS, 'call-body, base-url']
  ])('refuses %j, naming what differs', (change, targets, named) => {
    expect(() => checkPlan(approved, planDigest(targets, { ...call, ...change }))).toThrow(
      `Input plan-digest: this step's plan differs from the approved one in ${named}, so no call was made. ` +
        'Apply exactly what was planned: the same targets-from file, call, call-body and base-url; or plan again and have the new plan approved.'
    )
  })

  it('refuses a digest whose parts match but whole does not', () => {
    const forged = approved.replace(/[0-9a-f]{64}$/, '0'.repeat(64))
    expect(() => checkPlan(forged, approved)).toThrow(
      'differs from the approved one in the plan (its digest does not match)'
    )
  })
})
