import { recordSigner } from '../../src/auth/record-key.js'
import { reportInputs } from '../../src/inputs/report.js'
import { callFingerprint } from '../../src/routine/fingerprint.js'
import { captureStdout, setInputs } from '../helpers.js'

describe('report inputs', () => {
  const written = captureStdout()
  const warnings = () => written.filter(l => l.startsWith('::warning::'))

  it('is absent without report-from', () => {
    setInputs({ 'targets-from': '/tmp/t.json' })
    expect(reportInputs()).toBeUndefined()
  })

  it('reads report-from with the default outcomes that fail, and no credential', () => {
    setInputs({ 'report-from': '/tmp/all' })
    const inputs = reportInputs()
    expect(inputs).toEqual({
      from: '/tmp/all',
      failOn: new Set(['failed', 'unknown', 'not-made', 'missing']),
      targetsFrom: undefined,
      targetsDigest: undefined,
      call: undefined,
      summary: true
    })
    expect(warnings()).toEqual([])
  })

  it('reads the snapshot, the summary switch and report-fail-on in any case and spacing', () => {
    const digest = `sha256:${'a'.repeat(64)}`
    setInputs({
      'report-from': 'r',
      'targets-from': 't.json',
      'targets-digest': digest,
      summary: 'false',
      'report-fail-on': ' Missing , failed'
    })
    expect(reportInputs()).toMatchObject({
      targetsFrom: 't.json',
      targetsDigest: digest,
      summary: false,
      failOn: new Set(['missing', 'failed'])
    })
  })

  it('takes the call, its body and base-url for the fingerprint of the lines to count', () => {
    setInputs({
      'report-from': 'r',
      call: 'post /v1/t/{id}',
      'call-body': '{"a":1}',
      'base-url': 'https://api.example.test'
    })
    const call = reportInputs()?.call
    expect(call && callFingerprint(call)).toBe(
      callFingerprint({
        method: 'POST',
        path: '/v1/t/{id}',
        body: '{"a":1}',
        baseUrl: new URL('https://api.example.test/')
      })
    )
  })

  it('takes targets-where only with the snapshot it narrows', () => {
    setInputs({ 'report-from': 'results', 'targets-from': 'targets', 'targets-where': 'a == 1' })
    expect(reportInputs()).toMatchObject({ targetsFrom: 'targets', targetsWhere: 'a == 1' })
    setInputs({ 'report-from': 'results', 'targets-where': 'a == 1' })
    expect(() => reportInputs()).toThrow(/^Input targets-where in a report narrows the snapshot of targets-from/)
  })

  it('says which credential inputs it does not use', () => {
    setInputs({ 'report-from': 'r', 'client-id': 'c', 'client-secret': 's' })
    reportInputs()
    expect(warnings()).toEqual([
      '::warning::Input report-from makes a report and no request, so client-id, client-secret are not used: remove them from this step\n'
    ])
  })

  it.each(['client-id', 'client-secret', 'private-key', 'token', 'sealed-token'])(
    'says the one credential input %s is not used',
    name => {
      setInputs({ 'report-from': 'r', [name]: 'x' })
      expect(reportInputs()?.from).toBe('r')
      expect(warnings()).toEqual([
        `::warning::Input report-from makes a report and no request, so ${name} is not used: remove it from this step\n`
      ])
    }
  )

  it('names every credential input it does not use, in order', () => {
    setInputs({ 'report-from': 'r', 'sealed-token': 's', token: 't', 'private-key': 'k' })
    reportInputs()
    expect(warnings()).toEqual([
      '::warning::Input report-from makes a report and no request, so private-key, token, sealed-token are not used: remove them from this step\n'
    ])
  })

  it('takes the path of a call given with extra spaces', () => {
    setInputs({ 'report-from': 'r', call: '  post   /v1/t/{id}  ', 'base-url': 'https://api.example.test/' })
    const call = reportInputs()?.call
    expect(call).toMatchObject({ method: 'POST', path: '/v1/t/{id}', body: '' })
    expect(call?.baseUrl.href).toBe('https://api.example.test/')
  })

  it("takes record-key, the listing job's output, and nothing in its place when it is not given", () => {
    const key = recordSigner(Buffer.alloc(32, 3)).publicKey
    setInputs({ 'report-from': 'r', 'record-key': key })
    expect(reportInputs()?.recordKey).toBe(key)
    setInputs({ 'report-from': 'r' })
    expect(reportInputs()?.recordKey).toBeUndefined()
    setInputs({ 'report-from': 'r', 'record-key': `${key}x` })
    expect(() => reportInputs()).toThrow(
      `Input record-key must be the record-key output of the listing job (m2mrk1. and 43 characters), got "${key}x"`
    )
  })

  it('says why base-url is needed with a call', () => {
    setInputs({ 'report-from': 'r', call: 'POST /v1/t/{id}' })
    expect(() => reportInputs()).toThrow(
      new Error(
        "Input required and not supplied: base-url (with call, the service the shards called: part of the call's fingerprint)"
      )
    )
  })

  it.each([
    [
      { 'report-fail-on': 'succeeded' },
      'Input report-fail-on must be outcomes separated by commas, of failed, unknown, not-made, missing; got "succeeded"'
    ],
    [{ 'report-fail-on': 'failed,,missing' }, 'Input report-fail-on must be outcomes'],
    [{ 'call-dry-run': 'true' }, 'Input report-from makes a report, not calls'],
    [{ 'call-resume-from': 'x' }, 'Input report-from makes a report, not calls'],
    [{ call: 'POST /v1/t/{id}' }, 'Input required and not supplied: base-url'],
    [{ 'targets-digest': 'sha256:00' }, 'Input targets-digest checks the file of targets-from']
  ])('refuses %j', (extra, message) => {
    setInputs({ 'report-from': 'r', ...extra })
    expect(() => reportInputs()).toThrow(message)
  })
})
