import { callFingerprint, CallIdentity, idempotencyKey, runIdentity } from '../../src/routine/fingerprint.js'

const scan: CallIdentity = {
  method: 'POST',
  path: '/v1/t/{id}/scan',
  body: '{"action":"start"}',
  baseUrl: new URL('https://api.test/base')
}

describe('callFingerprint', () => {
  it('is 16 hex characters, the same for the same call in every run', () => {
    // Golden: records written by an earlier version must still match this one's.
    expect(callFingerprint(scan)).toBe('a8ebedcb882c0ef5')
    expect(callFingerprint({ ...scan, baseUrl: new URL('https://api.test/base') })).toBe('a8ebedcb882c0ef5')
  })

  it.each<[string, Partial<CallIdentity>]>([
    ['a method in lower case', { method: 'post' }],
    ['a method in mixed case', { method: 'Post' }],
    ['a body with spaces around it', { body: '  {"action":"start"}\n' }],
    ['the same base-url written otherwise', { baseUrl: new URL('HTTPS://API.test:443/base') }]
  ])('is the same for %s', (_, change) => {
    expect(callFingerprint({ ...scan, ...change })).toBe(callFingerprint(scan))
  })

  it.each<[string, Partial<CallIdentity>]>([
    ['another method', { method: 'PUT' }],
    ['another path', { path: '/v1/t/{id}/stop' }],
    ['another placeholder', { path: '/v1/t/{name}/scan' }],
    ['another body', { body: '{"action":"stop"}' }],
    ['a body with spaces inside', { body: '{ "action":"start"}' }],
    ['no body', { body: '' }],
    ['another base-url path', { baseUrl: new URL('https://api.test/other') }],
    ['another host', { baseUrl: new URL('https://api2.test/base') }],
    ['another port', { baseUrl: new URL('https://api.test:8443/base') }],
    ['a trailing slash', { baseUrl: new URL('https://api.test/base/') }]
  ])('differs for %s', (_, change) => {
    const other = callFingerprint({ ...scan, ...change })
    expect(other).toMatch(/^[0-9a-f]{16}$/)
    expect(other).not.toBe(callFingerprint(scan))
  })

  it('does not confuse parts that run into each other', () => {
    const a = callFingerprint({ ...scan, path: '/a', body: 'b' })
    const b = callFingerprint({ ...scan, path: '/ab', body: '' })
    expect(a).not.toBe(b)
  })
})

describe('runIdentity', () => {
  it("is the run's id when there is one", () => {
    expect(runIdentity('123456789')).toEqual({ id: '123456789', nonce: false })
  })

  it.each([undefined, ''])('is a nonce of this process for %j, new each time', runId => {
    const one = runIdentity(runId)
    expect(one.nonce).toBe(true)
    expect(one.id).toMatch(/^nonce-[0-9a-f]{24}$/)
    expect(runIdentity(runId).id).not.toBe(one.id)
  })
})

describe('idempotencyKey', () => {
  it('is 32 hex characters of the run, the operation and the target', () => {
    expect(idempotencyKey('42', '0123456789abcdef', 'target-1')).toBe('c42e26e0e3c4ab10fae1010de4fa5559')
  })

  it.each([
    ['the run', ['43', '0123456789abcdef', 'target-1']],
    ['the operation', ['42', 'a8ebedcb882c0ef5', 'target-1']],
    ['the target', ['42', '0123456789abcdef', 'target-2']],
    ['parts that run into each other', ['4', '20123456789abcdef', 'target-1']]
  ])('differs with %s', (_, [runId, fingerprint, key]) => {
    const other = idempotencyKey(runId, fingerprint, key)
    expect(other).toMatch(/^[0-9a-f]{32}$/)
    expect(other).not.toBe('c42e26e0e3c4ab10fae1010de4fa5559')
  })
})
