import { Outcome } from '../../src/routine/lines.js'
import { RoutineResult } from '../../src/routine/routine.js'
import { Failure } from '../../src/routine/tally.js'
import { routineError } from '../../src/routine/verdict.js'

const TAIL =
  ' The job summary and the results-file output list every call; a re-run with call-resume-from makes only what is left.'

const failure = (key: string, status = 'HTTP 500', outcome: Failure['outcome'] = 'failed'): Failure => ({
  key,
  status,
  outcome,
  said: 'x'
})

const result = (outcomes: Partial<Record<Outcome, number>>, overrides: Partial<RoutineResult> = {}): RoutineResult => ({
  count: 10,
  calls: 10,
  outcomes: new Map(Object.entries(outcomes) as [Outcome, number][]),
  byStatus: new Map(),
  failedByStatus: new Map(),
  failures: [],
  planned: [],
  durationMs: 1000,
  resultsFile: '/tmp/r.jsonl',
  unrecorded: 0,
  unrecordedOutcomes: new Map(),
  cancelled: false,
  ...overrides
})

describe('routineError', () => {
  it.each<[string, Partial<Record<Outcome, number>>]>([
    ['every call succeeded', { succeeded: 10 }],
    ['some were skipped', { succeeded: 4, skipped: 6 }],
    ['there were no targets', {}]
  ])('is undefined when %s', (_, outcomes) => {
    expect(routineError('POST /x', result(outcomes))).toBeUndefined()
  })

  it('counts failures by status and names the first three', () => {
    const error = routineError(
      'POST /v1/t/{id}',
      result(
        { succeeded: 6, failed: 4 },
        {
          failedByStatus: new Map([
            ['HTTP 500', 3],
            ['HTTP 503', 1]
          ]),
          failures: [failure('a'), failure('b', 'HTTP 503'), failure('c'), failure('d')]
        }
      )
    )
    expect(error?.message).toBe(
      'Failed to call POST /v1/t/{id} for 10 targets: 6 succeeded, 4 failed (HTTP 500: 3, HTTP 503: 1); ' +
        'first: a (HTTP 500), b (HTTP 503), c (HTTP 500).' +
        TAIL
    )
  })

  it.each([
    [1, '1 unknown'],
    [2, '2 unknown'],
    [1500, '1,500 unknown']
  ])('says how many outcomes are unknown: %i', (unknown, words) => {
    const error = routineError(
      'POST /x',
      result({ unknown }, { count: 2000, calls: 2000, failures: [failure('a', 'no response', 'unknown')] })
    )
    expect(error?.message).toBe(`Failed to call POST /x for 2,000 targets: ${words}; first: a (no response).${TAIL}`)
  })

  it('counts the calls never made, and says why the routine stopped', () => {
    const error = routineError(
      'PUT /x',
      result(
        { succeeded: 1, failed: 2, 'not-made': 7 },
        {
          calls: 3,
          failedByStatus: new Map([['HTTP 500', 2]]),
          failures: [failure('a'), failure('b')],
          stopped: '2 calls failed, call-max-failures (2): no new call was started'
        }
      )
    )
    expect(error?.message).toBe(
      'Failed to call PUT /x for 10 targets: 1 succeeded, 2 failed (HTTP 500: 2), 7 not made; first: a (HTTP 500), b (HTTP 500); ' +
        '2 calls failed, call-max-failures (2): no new call was started.' +
        TAIL
    )
  })

  it('fails a stopped routine even when nothing failed', () => {
    expect(routineError('PUT /x', result({ succeeded: 1 }, { count: 1, calls: 1, stopped: 'why' }))?.message).toBe(
      `Failed to call PUT /x for 1 target: 1 succeeded; why.${TAIL}`
    )
  })

  it('says the step was cancelled, with what was made, and no stop reason', () => {
    const error = routineError(
      'POST /x',
      result(
        { succeeded: 400, unknown: 12, 'not-made': 588 },
        { count: 1000, calls: 412, cancelled: true, stopped: 'the step was cancelled' }
      )
    )
    expect(error?.message).toBe(
      'The step was cancelled after 412 calls to POST /x, of 1,000 targets: 400 succeeded, 12 unknown, 588 not made.' +
        TAIL
    )
  })

  it('fails a cancelled routine even when every call it made succeeded', () => {
    expect(routineError('POST /x', result({ succeeded: 10 }, { cancelled: true }))?.message).toBe(
      `The step was cancelled after 10 calls to POST /x, of 10 targets: 10 succeeded.${TAIL}`
    )
  })

  it.each<[number, [Outcome, number][], string]>([
    [1, [['succeeded', 1]], '1 outcome is not in the results file (1 succeeded)'],
    [
      18,
      [
        ['succeeded', 12],
        ['failed', 6],
        ['unknown', 0]
      ],
      '18 outcomes are not in the results file (12 succeeded, 6 failed)'
    ],
    [0, [], '0 outcomes are not in the results file']
  ])('says the results file could not be written, and which outcomes it lacks: %i', (unrecorded, lost, words) => {
    const recordFailure = new Error('Failed to write the results file in /tmp (RUNNER_TEMP): ENOSPC. Free disk space.')
    const unrecordedOutcomes = new Map(lost)
    expect(
      routineError('POST /x', result({ succeeded: 10 }, { recordFailure, unrecorded, unrecordedOutcomes }))?.message
    ).toBe(
      `Failed to call POST /x for 10 targets: 10 succeeded. ${recordFailure.message} ${words}: the outputs count only what it holds.${TAIL}`
    )
  })

  it('cuts a long call input to 100 characters', () => {
    const call = `POST /${'x'.repeat(200)}`
    expect(routineError(call, result({ 'not-made': 1 }))?.message).toMatch(
      new RegExp(`^Failed to call POST /${'x'.repeat(94)}… for 10 targets: 1 not made\\.`)
    )
  })
})
