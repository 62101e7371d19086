import { afterWave, limitText, overLimit, parseFailureLimit, rateFloor } from '../../src/routine/stop-rule.js'

describe('parseFailureLimit', () => {
  it.each([
    ['100', { count: 100 }],
    [' 5% ', { percent: 5 }],
    ['10000000', { count: 10_000_000 }],
    ['0.5%', { percent: 0.5 }]
  ])('reads %j', (text, limit) => {
    expect(parseFailureLimit(text)).toEqual(limit)
  })

  it.each(['0', '10000001', '0%', '150%', 'five', ''])('refuses %j', text => {
    expect(parseFailureLimit(text)).toBeUndefined()
  })

  it('writes a limit as the input does', () => {
    expect(limitText({ count: 100 })).toBe('100')
    expect(limitText({ percent: 5 })).toBe('5%')
  })
})

describe('rateFloor', () => {
  it('waits for enough answers that one failure alone is not over the percentage, at least 20', () => {
    expect(rateFloor(5)).toBe(20)
    expect(rateFloor(50)).toBe(20)
    expect(rateFloor(1)).toBe(100)
    expect(rateFloor(0.3)).toBe(334)
  })
})

describe('overLimit', () => {
  it('stops at a count of bad calls', () => {
    expect(overLimit({ count: 3 }, { answered: 10, bad: 2 })).toBeUndefined()
    expect(overLimit({ count: 3 }, { answered: 10, bad: 3 })).toBe('3 calls failed, call-max-failures (3)')
  })

  it('stops at a percentage only once enough calls are answered, and only above it', () => {
    expect(overLimit({ percent: 5 }, { answered: 19, bad: 19 })).toBeUndefined()
    expect(overLimit({ percent: 5 }, { answered: 20, bad: 1 })).toBeUndefined()
    expect(overLimit({ percent: 5 }, { answered: 20, bad: 2 })).toBe(
      '2 of 20 calls failed (10 %), more than call-max-failures (5%)'
    )
    expect(overLimit({ percent: 12.5 }, { answered: 1200, bad: 151 })).toBe(
      '151 of 1,200 calls failed (12.6 %), more than call-max-failures (12.5%)'
    )
  })
})

describe('afterWave', () => {
  const wave = (number: number, answered: number, bad: number, of = 3) => ({ number, of, answered, bad })

  it('stops when every call of a wave failed, before any later wave', () => {
    expect(afterWave({ count: 100 }, { answered: 1, bad: 1 }, wave(1, 1, 1))).toBe(
      'after wave 1 of 3: every call of the wave failed (1 of 1)'
    )
    expect(afterWave({ count: 100 }, { answered: 11, bad: 1 }, wave(2, 10, 0))).toBeUndefined()
    // The last wave has no later one to hold back.
    expect(afterWave({ count: 100 }, { answered: 5, bad: 5 }, wave(3, 5, 5))).toBeUndefined()
    // A wave of skipped targets made no call: nothing to judge.
    expect(afterWave({ count: 100 }, { answered: 0, bad: 0 }, wave(1, 0, 0))).toBeUndefined()
  })

  it('checks a percentage over every call answered, however few', () => {
    expect(afterWave({ percent: 20 }, { answered: 5, bad: 1 }, wave(1, 5, 1))).toBeUndefined()
    expect(afterWave({ percent: 20 }, { answered: 3, bad: 1 }, wave(1, 3, 1))).toBe(
      'after wave 1 of 3: 1 of 3 calls failed (33.3 %), more than call-max-failures (20%)'
    )
  })

  it('checks a count as the calls do', () => {
    expect(afterWave({ count: 2 }, { answered: 9, bad: 2 }, wave(2, 5, 1))).toBe(
      'after wave 2 of 3: 2 calls failed, call-max-failures (2)'
    )
  })
})
