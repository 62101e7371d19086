import { Outcome } from '../../src/routine/lines.js'
import { ProgressFacts, progressLine } from '../../src/routine/progress.js'

const outcomes = (counts: Partial<Record<Outcome, number>>): Map<Outcome, number> =>
  new Map(Object.entries(counts) as [Outcome, number][])

const facts = (overrides: Partial<ProgressFacts> = {}): ProgressFacts => ({
  count: 1000,
  outcomes: outcomes({ succeeded: 397, failed: 3, skipped: 12 }),
  inFlight: 16,
  elapsedMs: 4000,
  stopped: false,
  cancelled: false,
  dryRun: false,
  ...overrides
})

describe('progressLine', () => {
  it.each<[string, Partial<ProgressFacts>, string]>([
    [
      'the counts by outcome, calls in flight and the time left',
      {},
      'Calls: 412 of 1,000 targets (41 %): 397 succeeded, 3 failed, 12 skipped (done in an earlier attempt); 16 in flight, 100/s, about 5.9 s left'
    ],
    [
      'no call in flight',
      { inFlight: 0, outcomes: outcomes({ succeeded: 400 }) },
      'Calls: 400 of 1,000 targets (40 %): 400 succeeded; 100/s, about 6 s left'
    ],
    [
      'a rate of ended calls only, skipped ones not',
      { outcomes: outcomes({ succeeded: 100, skipped: 600 }), elapsedMs: 10_000, inFlight: 1 },
      'Calls: 700 of 1,000 targets (70 %): 100 succeeded, 600 skipped (done in an earlier attempt); 1 in flight, 10/s, about 30 s left'
    ],
    [
      'minutes left',
      { outcomes: outcomes({ succeeded: 100 }), elapsedMs: 10_000 },
      'Calls: 100 of 1,000 targets (10 %): 100 succeeded; 16 in flight, 10/s, about 1 min 30 s left'
    ],
    [
      'a share rounded down',
      { outcomes: outcomes({ succeeded: 999 }), elapsedMs: 999_000, inFlight: 0 },
      'Calls: 999 of 1,000 targets (99 %): 999 succeeded; 1/s, about 1 s left'
    ],
    [
      'no time passed yet',
      { elapsedMs: 0 },
      'Calls: 412 of 1,000 targets (41 %): 397 succeeded, 3 failed, 12 skipped (done in an earlier attempt); 16 in flight'
    ],
    ['no line yet', { outcomes: outcomes({}) }, 'Calls: 0 of 1,000 targets (0 %); 16 in flight'],
    [
      'all done',
      { outcomes: outcomes({ succeeded: 1000 }), inFlight: 0 },
      'Calls: 1,000 of 1,000 targets (100 %): 1,000 succeeded; 250/s'
    ],
    ['a routine of no target', { count: 0, outcomes: outcomes({}), inFlight: 0 }, 'Calls: 0 of 0 targets (100 %)'],
    [
      'the one call',
      { count: 1, outcomes: outcomes({ failed: 1 }), inFlight: 0 },
      'Calls: 1 of 1 target (100 %): 1 failed; 0.3/s'
    ],
    [
      'a stop, with what will not be made instead of a time',
      { stopped: true },
      'Calls: 412 of 1,000 targets (41 %): 397 succeeded, 3 failed, 12 skipped (done in an earlier attempt); 16 in flight, 100/s; stopped: 572 more will not be made'
    ],
    [
      'a stop with thousands not made',
      { stopped: true, count: 10_000, inFlight: 0, outcomes: outcomes({ failed: 1 }), elapsedMs: 1000 },
      'Calls: 1 of 10,000 targets (0 %): 1 failed; 1/s; stopped: 9,999 more will not be made'
    ],
    [
      'a stop whose targets all have a line',
      { stopped: true, inFlight: 0, outcomes: outcomes({ failed: 1, 'not-made': 999 }), elapsedMs: 1000 },
      'Calls: 1,000 of 1,000 targets (100 %): 1 failed, 999 not made; 1/s; stopped after 1 call'
    ],
    [
      'a cancellation, after the drain',
      {
        cancelled: true,
        stopped: true,
        count: 200,
        inFlight: 0,
        outcomes: outcomes({ succeeded: 108, unknown: 4, 'not-made': 88 }),
        elapsedMs: 2000
      },
      'Calls: 200 of 200 targets (100 %): 108 succeeded, 4 unknown, 88 not made; 56/s; cancelled after 112 calls'
    ],
    [
      'a cancellation while calls drain',
      {
        cancelled: true,
        stopped: true,
        count: 200,
        inFlight: 4,
        outcomes: outcomes({ succeeded: 100 }),
        elapsedMs: 2000
      },
      'Calls: 100 of 200 targets (50 %): 100 succeeded; 4 in flight, 50/s; cancelled: 96 more will not be made'
    ],
    [
      'a dry run: planned, no rate, no call',
      { dryRun: true, count: 500, inFlight: 0, outcomes: outcomes({ planned: 500 }) },
      'Planned: 500 of 500 targets (100 %): 500 planned; no call made'
    ],
    [
      'a dry run of a re-run',
      { dryRun: true, count: 500, inFlight: 0, outcomes: outcomes({ planned: 13, skipped: 487 }) },
      'Planned: 500 of 500 targets (100 %): 487 skipped (done in an earlier attempt), 13 planned; no call made'
    ]
  ])('gives %s', (_, change, line) => {
    expect(progressLine(facts(change))).toBe(line)
  })
})
