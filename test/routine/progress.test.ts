import { ProgressFacts, progressLine } from '../../src/routine/progress.js'

const facts = (overrides: Partial<ProgressFacts> = {}): ProgressFacts => ({
  count: 1000,
  done: 412,
  ended: 400,
  failed: 3,
  inFlight: 16,
  elapsedMs: 4000,
  stopped: false,
  ...overrides
})

describe('progressLine', () => {
  it.each<[string, Partial<ProgressFacts>, string]>([
    [
      'calls in flight and the time left',
      {},
      'Calls: 412 of 1,000 (41 %), 3 failed, 16 in flight, 100/s, about 6 s left'
    ],
    ['no call in flight', { inFlight: 0 }, 'Calls: 412 of 1,000 (41 %), 3 failed, 100/s, about 6 s left'],
    [
      'a rate of ended calls only, skipped ones not',
      { done: 700, ended: 100, elapsedMs: 10_000, inFlight: 1 },
      'Calls: 700 of 1,000 (70 %), 3 failed, 1 in flight, 10/s, about 30 s left'
    ],
    [
      'minutes left',
      { done: 100, ended: 100, elapsedMs: 10_000 },
      'Calls: 100 of 1,000 (10 %), 3 failed, 16 in flight, 10/s, about 1 min left'
    ],
    [
      'a share rounded down',
      { done: 999, ended: 999, elapsedMs: 999_000, inFlight: 0 },
      'Calls: 999 of 1,000 (99 %), 3 failed, 1/s, about 1 s left'
    ],
    [
      'a rate rounded',
      { ended: 5, elapsedMs: 2000, done: 5, count: 10, inFlight: 0 },
      'Calls: 5 of 10 (50 %), 3 failed, 3/s, about 2 s left'
    ],
    ['no time passed yet', { elapsedMs: 0 }, 'Calls: 412 of 1,000 (41 %), 3 failed, 16 in flight, 0/s'],
    ['no call ended yet', { ended: 0, done: 0 }, 'Calls: 0 of 1,000 (0 %), 3 failed, 16 in flight, 0/s'],
    ['all done', { done: 1000, ended: 1000, inFlight: 0, failed: 0 }, 'Calls: 1,000 of 1,000 (100 %), 0 failed, 250/s'],
    ['a routine of no target', { count: 0, done: 0, ended: 0, inFlight: 0 }, 'Calls: 0 of 0 (100 %), 3 failed, 0/s'],
    [
      'a stop, with what will not be made instead of a time',
      { stopped: true },
      'Calls: 412 of 1,000 (41 %), 3 failed, 16 in flight, 100/s; stopped: 572 will not be made'
    ],
    [
      'a stop with thousands not made',
      { stopped: true, count: 10_000, inFlight: 0 },
      'Calls: 412 of 10,000 (4 %), 3 failed, 100/s; stopped: 9,588 will not be made'
    ],
    [
      'a stop with nothing left to make',
      { stopped: true, done: 984 },
      'Calls: 984 of 1,000 (98 %), 3 failed, 16 in flight, 100/s'
    ],
    [
      'a stop with one left to make',
      { stopped: true, done: 983 },
      'Calls: 983 of 1,000 (98 %), 3 failed, 16 in flight, 100/s; stopped: 1 will not be made'
    ],
    [
      'a stop before any time passed',
      { stopped: true, elapsedMs: 0, inFlight: 0 },
      'Calls: 412 of 1,000 (41 %), 3 failed, 0/s; stopped: 588 will not be made'
    ]
  ])('gives %s', (_, change, line) => {
    expect(progressLine(facts(change))).toBe(line)
  })
})
