import { routineHead, routineLines } from '../../src/report/routine-summary.js'
import { Outcome } from '../../src/routine/lines.js'
import { RoutineResult } from '../../src/routine/routine.js'
import { Failure } from '../../src/routine/tally.js'

const WHERE = 'Every target has a line in the file of the `results-file` output.'
const RERUN =
  'Every target has a line in the file of the `results-file` output; keep it as an artifact, and pass it to `call-resume-from` on a re-run: it makes only the calls not done.'

const result = (outcomes: Partial<Record<Outcome, number>>, overrides: Partial<RoutineResult> = {}): RoutineResult => ({
  count: 4,
  calls: 4,
  outcomes: new Map(Object.entries(outcomes) as [Outcome, number][]),
  byStatus: new Map(),
  failedByStatus: new Map(),
  failures: [],
  planned: [],
  durationMs: 2000,
  resultsFile: '/tmp/r.jsonl',
  unrecorded: 0,
  unrecordedOutcomes: new Map(),
  cancelled: false,
  ...overrides
})

const failure = (key: string, status: string, outcome: Failure['outcome'], said: string, name?: string): Failure => ({
  key,
  ...(name === undefined ? {} : { name }),
  status,
  outcome,
  said
})

describe('routineLines', () => {
  it('leads with all done, the counts without zeros, skipped explained, one status not tabled, no re-run advice', () => {
    expect(
      routineLines(
        'POST /v1/t/{id}',
        result({ succeeded: 3, skipped: 1, failed: 0 }, { calls: 3, byStatus: new Map([['HTTP 200', 3]]) })
      )
    ).toEqual([
      '## POST /v1/t/{id}: all 4 targets done',
      '',
      '**3 succeeded, 1 skipped (done in an earlier attempt)**; 3 calls in 2 s (2/s).',
      '',
      WHERE,
      ''
    ])
  })

  it.each<[number, number, string]>([
    [51, 13, '13 calls in 51 ms'],
    [4210, 13, '13 calls in 4.2 s (3/s)'],
    [185_000, 500, '500 calls in 3 min 5 s (3/s)'],
    [0, 1, '1 call in 0 ms']
  ])('gives a duration of %i ms in sensible units', (durationMs, calls, text) => {
    const lines = routineLines('POST /x', result({ succeeded: calls }, { count: calls, calls, durationMs }))
    expect(lines[2]).toBe(`**${calls} succeeded**; ${text}.`)
  })

  it('says no call was made when every target was done earlier', () => {
    const lines = routineLines('POST /x', result({ skipped: 4 }, { calls: 0 }))
    expect(lines.slice(0, 3)).toEqual([
      '## POST /x: all 4 targets done',
      '',
      '**4 skipped (done in an earlier attempt)**; no call made.'
    ])
    expect(lines).toContain(WHERE)
  })

  it('says how the calls were paced in waves, where they stopped, and a canary', () => {
    const stopped = routineLines(
      'PUT /x',
      result(
        { failed: 1, 'not-made': 9 },
        {
          waves: { counts: [1, 3, 6], reached: 1 },
          stopped: 'stopped after wave 1 of 3: every call of the wave failed'
        }
      )
    )
    expect(stopped).toContain('In 3 waves of 1, 3 and 6 targets (call-waves); the calls stopped in wave 1.')
    expect(stopped).toContain('Stopped early: stopped after wave 1 of 3\\: every call of the wave failed.')
    const many = routineLines(
      'PUT /x',
      result({ succeeded: 4 }, { waves: { counts: [1, ...Array(10).fill(10)], reached: 11 } })
    )
    expect(many).toContain('In 11 waves of 1, 10, 10, 10, 10, 10, 10, … and 10 targets (call-waves).')
    expect(routineLines('PUT /x', result({ succeeded: 1 }, { waves: { counts: [1], reached: 1 } }))).toContain(
      'A canary of 1 target (call-canary).'
    )
    expect(routineLines('PUT /x', result({ succeeded: 5 }, { waves: { counts: [5], reached: 1 } }))).toContain(
      'A canary of 5 targets (call-canary).'
    )
  })

  it('counts the targets not done, sorts statuses by count, and lists the failures, unknown marked', () => {
    const lines = routineLines(
      'POST /x',
      result(
        { succeeded: 1200, failed: 2, unknown: 1, 'not-made': 3 },
        {
          count: 1206,
          calls: 1203,
          durationMs: 60_000,
          byStatus: new Map([
            ['no response', 1],
            ['HTTP 500', 2],
            ['HTTP 200', 1200]
          ]),
          failures: [
            failure('a', 'HTTP 500', 'failed', '{"e":1}'),
            failure('b', 'no response', 'unknown', 'the connection closed'),
            failure('c', 'HTTP 500', 'failed', '')
          ]
        }
      )
    )
    expect(lines).toEqual([
      '## POST /x: 6 of 1,206 targets not done',
      '',
      '**1,200 succeeded, 2 failed, 1 unknown, 3 not made**; 1,203 calls in 1 min (20/s).',
      '',
      '| status | calls |',
      '| --- | ---: |',
      '| HTTP 200 | 1,200 |',
      '| HTTP 500 | 2 |',
      '| no response | 1 |',
      '',
      'Failed or unknown:',
      '',
      '| target | status | what the service said |',
      '| --- | --- | --- |',
      '| a | HTTP 500 | {"e"\\:1} |',
      '| b | unknown, no response | the connection closed |',
      '| c | HTTP 500 |  |',
      '',
      RERUN,
      ''
    ])
  })

  it.each<[Partial<Record<Outcome, number>>, string]>([
    [{ failed: 1 }, '1 of 4 targets not done'],
    [{ unknown: 1 }, '1 of 4 targets not done'],
    [{ 'not-made': 1 }, '1 of 4 targets not done'],
    [{ succeeded: 4 }, 'all 4 targets done'],
    [{ succeeded: 1, skipped: 3 }, 'all 4 targets done']
  ])('gives the outcome of %j', (outcomes, head) => {
    expect(routineLines('PUT /x', result(outcomes))[0]).toBe(`## PUT /x: ${head}`)
  })

  it('says when the failures listed are only the first of them', () => {
    const failures = Array.from({ length: 50 }, (_, i) => failure(`t${i}`, 'HTTP 500', 'failed', ''))
    const more = routineLines('PUT /x', result({ failed: 40, unknown: 11 }, { failures }))
    expect(more).toContain('Failed or unknown (the first 50):')
    expect(more.filter(l => /^\| t\d+ \|/.test(l))).toHaveLength(50)
    const all = routineLines('PUT /x', result({ failed: 40, unknown: 10 }, { failures }))
    expect(all).toContain('Failed or unknown:')
  })

  it('adds a name column when a failure has a name, and keeps a message to a word', () => {
    const said = `profile "nightly" is locked by another run; ${'retry later '.repeat(20)}`
    const lines = routineLines(
      'POST /x',
      result(
        { succeeded: 2, failed: 2 },
        {
          failures: [failure('t-1', 'HTTP 409', 'failed', said, 'build-01'), failure('t-2', 'HTTP 500', 'failed', 'x')]
        }
      )
    )
    expect(lines).toContain('| target | name | status | what the service said |')
    expect(lines).toContain('| t-2 |  | HTTP 500 | x |')
    const row = lines.find(l => l.startsWith('| t-1 |'))!
    expect(
      row.startsWith(`| t-1 | build-01 | HTTP 409 | profile "nightly" is locked by another run; retry later`)
    ).toBe(true)
  })

  it('says the routine was cancelled, with how many outcomes are unknown, and no stop line', () => {
    const lines = routineLines(
      'POST /x',
      result(
        { succeeded: 396, unknown: 16, 'not-made': 588 },
        { count: 1000, calls: 412, cancelled: true, stopped: 'the step was cancelled', durationMs: 0 }
      )
    )
    expect(lines.slice(0, 3)).toEqual([
      '## POST /x: cancelled, 604 of 1,000 targets not done',
      '',
      '**396 succeeded, 16 unknown, 588 not made**; 412 calls in 0 ms.'
    ])
    expect(lines.join('\n')).not.toContain('Stopped early')
  })

  it('says why a routine stopped early, and that the record is incomplete', () => {
    const lines = routineLines(
      'POST /x',
      result(
        { succeeded: 1, 'not-made': 3 },
        {
          calls: 1,
          stopped: 'the service refused the token (HTTP 401) at call #1: no new call was started',
          recordFailure: new Error('disk full'),
          unrecorded: 1500,
          unrecordedOutcomes: new Map([['succeeded', 1500]])
        }
      )
    )
    expect(lines.slice(3, 7)).toEqual([
      '',
      'Stopped early: the service refused the token \\(HTTP 401\\) at call \\#1\\: no new call was started.',
      '',
      'Writing the results file failed part way: 1,500 outcomes are not in the results file (1,500 succeeded); the counts above are what it holds.'
    ])
    expect(lines.slice(7)).toEqual(['', RERUN, ''])
  })

  it('keeps a long stop reason up to 400 characters', () => {
    const stopped = 'x'.repeat(500)
    const lines = routineLines('POST /x', result({ 'not-made': 4 }, { stopped }))
    expect(lines).toContain(`Stopped early: ${'x'.repeat(399)}….`)
  })

  it('escapes hostile text in the call, statuses and failures', () => {
    const lines = routineLines(
      'POST /x/<img src=x>|[a](b)',
      result(
        { failed: 1 },
        {
          byStatus: new Map([
            ['HTTP 500 <b>', 1],
            ['HTTP 200', 3]
          ]),
          failures: [failure('*x*|y', 'HTTP 500', 'failed', '<script>alert(1)</script>\n| z |')]
        }
      )
    )
    expect(lines[0]).toBe('## POST /x/\\<img src=x\\>\\|\\[a\\]\\(b\\): 1 of 4 targets not done')
    expect(lines).toContain('| HTTP 500 \\<b\\> | 1 |')
    expect(lines).toContain('| \\*x\\*\\|y | HTTP 500 | \\<script\\>alert\\(1\\)\\</script\\> \\| z \\| |')
  })

  it('gives no table without calls', () => {
    expect(routineLines('POST /x', result({ 'not-made': 4 }, { calls: 0 }))).toEqual([
      '## POST /x: 4 of 4 targets not done',
      '',
      '**4 not made**; no call made.',
      '',
      RERUN,
      ''
    ])
  })

  describe('a dry run', () => {
    const rows = (shown: number, names = false) =>
      Array.from({ length: shown }, (_, i) => ({
        index: i * 2,
        key: `t-${i}`,
        ...(names ? { name: `host ${i}` } : {}),
        call: `DELETE /v1/t/t-${i}`
      }))
    const planned = (n: number, shown: number, skipped = 0, names = false, plan = {}) =>
      routineLines(
        'DELETE /v1/t/{id}',
        result({ planned: n, ...(skipped ? { skipped } : {}) }, { calls: 0, planned: rows(shown, names) }),
        plan
      )

    it('says how many calls the plan holds and shows them with their targets, none made', () => {
      expect(planned(2, 2, 3)).toEqual([
        '## DELETE /v1/t/{id}: a plan of 2 calls, none made',
        '',
        '**2 planned**, 3 skipped (done in an earlier attempt, call-resume-from).',
        '',
        '| # | target | planned call |',
        '| ---: | --- | --- |',
        '| 1 | t-0 | DELETE /v1/t/t-0 |',
        '| 3 | t-1 | DELETE /v1/t/t-1 |',
        ''
      ])
    })

    it('shows the digest, how the targets were chosen, and a name column when targets have names', () => {
      const digest = `plan2.2.${'a'.repeat(8)}`
      const lines = planned(2, 2, 0, true, { digest, targets: '2 of 9 selected by a' })
      expect(lines.slice(0, 8)).toEqual([
        '## DELETE /v1/t/{id}: a plan of 2 calls, none made',
        '',
        '**2 planned**. Targets: 2 of 9 selected by a.',
        '',
        `**Plan digest** \`${digest}\`: the apply step makes no call unless its own calls are exactly these (README, "Plan, approve, apply").`,
        '',
        '| # | target | name | planned call |',
        '| ---: | --- | --- | --- |'
      ])
      expect(lines).toContain('| 1 | t-0 | host 0 | DELETE /v1/t/t-0 |')
    })

    it("is what routineHead gives renderSummary, the plan's digest and the targets' line passed on", () => {
      const digest = `plan2.2.${'b'.repeat(8)}`
      const calls = result({ planned: 2 }, { calls: 0, planned: rows(2, true) })
      const head = routineHead('DELETE /v1/t/{id}', calls, digest)
      expect(head('2 of 9 selected by a')).toEqual(
        routineLines('DELETE /v1/t/{id}', calls, { digest, targets: '2 of 9 selected by a' })
      )
      expect(head(undefined)).toEqual(routineLines('DELETE /v1/t/{id}', calls, { digest }))
      expect(head(undefined).join('\n')).toContain(digest)
      expect(head(undefined).join('\n')).not.toContain('Targets:')
    })

    it('names the count of calls not shown, in the singular too', () => {
      const lines = planned(25, 20)
      expect(lines).toContain(
        '…and 5 more: the results file holds every planned call, and the plan job uploads it for reviewers to download.'
      )
      expect(planned(1, 1)[0]).toBe('## DELETE /v1/t/{id}: a plan of 1 call, none made')
      expect(planned(1, 1)).not.toContain(expect.stringContaining('more:'))
    })

    it('escapes a rendered call, a key and a name like every service value', () => {
      const lines = routineLines(
        'DELETE /v1/t/{id}',
        result(
          { planned: 1 },
          { calls: 0, planned: [{ index: 0, key: '[k](x)', name: '**n**', call: 'DELETE /v1/t/<img src=x>' }] }
        )
      )
      expect(lines).toContain('| 1 | \\[k\\]\\(x\\) | \\*\\*n\\*\\* | DELETE /v1/t/\\<img src=x\\> |')
    })
  })
})
