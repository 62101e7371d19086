import { call } from '../../src/inputs/call.js'
import { setInputs } from '../helpers.js'

const PLAN1 = `plan1.${'a'.repeat(12)}.${'b'.repeat(8)}.${'c'.repeat(8)}.${'d'.repeat(8)}.${'e'.repeat(64)}`
const PLAN2 = `plan2.5.${'a'.repeat(8)}.${`${'b'.repeat(8)}.`.repeat(6)}${'c'.repeat(64)}`

describe('call inputs', () => {
  it('is absent without a call', () => {
    setInputs({})
    expect(call('list-targets')).toBeUndefined()
  })

  it('reads the call and its options, with the defaults', () => {
    setInputs({ call: 'POST /v1/t/{id}/scan', 'call-body': '{"a":"{name}"}' })
    expect(call('list-targets')).toMatchObject({
      text: 'POST /v1/t/{id}/scan',
      concurrency: 4,
      rate: undefined,
      idempotent: false,
      accept: new Set(),
      maxFailures: { count: 100 },
      spec: { method: 'POST', fields: ['id', 'name'] }
    })
  })

  it('reads call-accept, call-rate, call-idempotent and the limits as given', () => {
    setInputs({
      call: 'DELETE /v1/t/{id}',
      'call-accept': '404, 409',
      'call-rate': '2.5',
      'call-idempotent': 'true',
      'call-concurrency': '64',
      'call-max-failures': '1'
    })
    expect(call('list-targets')).toMatchObject({
      accept: new Set([404, 409]),
      rate: 2.5,
      idempotent: true,
      concurrency: 64,
      maxFailures: { count: 1 }
    })
  })

  it.each([
    [{ 'call-accept': '404,abc' }, 'Input call-accept must be HTTP statuses separated by commas'],
    [{ 'call-accept': '600' }, 'Input call-accept must be HTTP statuses'],
    [{ 'call-accept': '401' }, 'Input call-accept must not hold 401'],
    [{ 'call-accept': '404, 401' }, 'Input call-accept must not hold 401'],
    [{ 'call-concurrency': '65' }, 'Input call-concurrency must be a whole number from 1 to 64'],
    [{ 'call-concurrency': '0' }, 'Input call-concurrency must be a whole number from 1 to 64'],
    [{ 'call-rate': '0' }, 'Input call-rate must be a number from 0.01 to 10000'],
    [{ 'call-max-failures': '0' }, 'Input call-max-failures must be a whole number from 1'],
    [
      { 'call-max-failures': '10000001' },
      'Input call-max-failures must be a whole number from 1 to 10000000 or a percentage'
    ],
    [{ 'call-max-failures': '0%' }, 'or a percentage of the calls answered (5%), got "0%"'],
    [{ 'call-max-failures': '101%' }, 'Input call-max-failures must be'],
    [{ 'call-waves': '1, , 100%' }, 'Input call-waves must be wave sizes separated by commas'],
    [{ 'call-waves': '1, 0' }, 'each a whole number or a percentage of the targets (1, 5%, 25%, 100%), got "1, 0"'],
    [{ 'call-waves': '150%' }, 'Input call-waves must be wave sizes'],
    [
      { 'call-canary': 'ten' },
      'Input call-canary must be a whole number of targets or a percentage of them (10, or 2%), got "ten"'
    ],
    [{ 'call-canary': '5', 'call-waves': '1, 100%' }, 'Input call-canary calls one wave only: remove call-waves'],
    [{ 'list-targets': 'false' }, 'Input call has {id}, but with list-targets: false there is no target'],
    [{ 'call-dry-run': 'yes' }, 'Input call-dry-run must be true or false'],
    [{ 'plan-digest': 'sha256:abc' }, 'Input plan-digest must be the plan-digest output of the plan step'],
    [
      { 'plan-digest': 'plan3.abc' },
      "Input plan-digest is a plan3 digest, made by a newer version of this action than this step runs (it reads plan2, and plan1 before it): upgrade this step's action to the version of the plan step"
    ],
    [{ 'plan-digest': 'plan10.abc' }, 'Input plan-digest is a plan10 digest, made by a newer version'],
    [{ 'plan-digest': 'plan2.abc' }, 'Input plan-digest must be the plan-digest output of the plan step (plan2. and'],
    [{ 'plan-digest': 'xplan3.abc' }, 'Input plan-digest must be the plan-digest output of the plan step'],
    [{ 'call-accept': '1404' }, 'Input call-accept must be HTTP statuses'],
    [{ 'call-accept': '4040' }, 'Input call-accept must be HTTP statuses'],
    [
      { 'plan-from': '/tmp/plan/results.jsonl' },
      "Input plan-from is the plan job's results file, checked against the approved plan: give plan-digest (a plan2 digest) too, or remove plan-from"
    ],
    [
      { 'plan-from': '/tmp/plan/results.jsonl', 'plan-digest': PLAN1 },
      "Input plan-from is the plan job's results file, checked against the approved plan"
    ]
  ])('refuses %j', (extra, message) => {
    setInputs({ call: 'PUT /v1/t/{id}', ...extra })
    expect(() => call('list-targets')).toThrow(message)
  })

  it('reads call-dry-run, plan-digest, call-resume-from and the body as written', () => {
    const digest = `plan1.${'a'.repeat(12)}.${'b'.repeat(8)}.${'c'.repeat(8)}.${'d'.repeat(8)}.${'e'.repeat(64)}`
    setInputs({
      call: 'POST /v1/t/{id}',
      'call-body': ' {"x": 1} ',
      'call-dry-run': 'true',
      'plan-digest': digest,
      'call-resume-from': '/tmp/earlier'
    })
    expect(call('list-targets')).toMatchObject({
      dryRun: true,
      planDigest: digest,
      resumeFrom: '/tmp/earlier',
      bodyText: '{"x": 1}'
    })
    setInputs({ call: 'POST /v1/t/{id}' })
    expect(call('list-targets')).toMatchObject({
      dryRun: false,
      planDigest: undefined,
      resumeFrom: undefined,
      bodyText: ''
    })
  })

  it('reads a percentage limit, waves and a canary', () => {
    setInputs({ call: 'PUT /v1/t/{id}', 'call-max-failures': ' 5% ', 'call-waves': '1, 10%,100 %' })
    expect(call('list-targets')).toMatchObject({
      maxFailures: { percent: 5 },
      waves: [{ count: 1 }, { percent: 10 }, { percent: 100 }],
      canary: undefined
    })
    setInputs({ call: 'PUT /v1/t/{id}', 'call-canary': '2.5%' })
    expect(call('list-targets')).toMatchObject({ canary: { percent: 2.5 }, waves: undefined })
  })

  it('reads plan-from beside a plan2 plan-digest, target-label, and a canary with spaces around it', () => {
    setInputs({
      call: 'PUT /v1/t/{id}',
      'plan-digest': PLAN2,
      'plan-from': '/tmp/plan/results.jsonl',
      'target-label': 'name',
      'call-canary': ' 5 '
    })
    expect(call('list-targets')).toMatchObject({
      planDigest: PLAN2,
      planFrom: '/tmp/plan/results.jsonl',
      nameField: 'name',
      canary: { count: 5 }
    })
    setInputs({ call: 'PUT /v1/t/{id}' })
    const plain = call('list-targets')!
    expect([plain.planFrom, plain.nameField]).toEqual([undefined, undefined])
    expect('nameField' in plain).toBe(true)
  })

  it('makes one call as written without targets when it has no placeholder', () => {
    setInputs({ call: 'POST /v1/refresh', 'list-targets': 'false' })
    expect(call('list-targets')?.spec.fields).toEqual([])
  })
})
