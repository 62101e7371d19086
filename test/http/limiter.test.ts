import { Limiter } from '../../src/http/limiter.js'

/** A clock that sleeps move forward: no real waiting. */
function clocked(rate?: number) {
  const clock = { now: 1_000_000 }
  const slept: number[] = []
  const limiter = new Limiter(
    rate,
    () => clock.now,
    async ms => {
      slept.push(ms)
      clock.now += ms
    }
  )
  return { clock, slept, limiter }
}

/** Time that moves only when every sleeper has been woken in order: concurrent callers, no real waiting. */
function virtual(rate?: number) {
  let now = 0
  const sleepers: { at: number; wake: () => void }[] = []
  const limiter = new Limiter(
    rate,
    () => now,
    ms => new Promise<void>(wake => sleepers.push({ at: now + ms, wake }))
  )
  const settle = () => new Promise(resolve => setImmediate(resolve))
  const run = async (): Promise<void> => {
    await settle()
    while (sleepers.length > 0) {
      sleepers.sort((a, b) => a.at - b.at)
      const next = sleepers.shift()!
      now = Math.max(now, next.at)
      next.wake()
      await settle()
    }
  }
  const startsOf = (callers: number): Promise<number[]> => {
    const starts: number[] = []
    const all = Promise.all(
      Array.from({ length: callers }, () => Promise.resolve(limiter.ready()).then(() => starts.push(now)))
    )
    return run().then(() => all.then(() => starts))
  }
  return { limiter, startsOf, at: (ms: number) => (now = ms) }
}

describe('Limiter', () => {
  it('gives no promise to an attempt that may start now, and one to an attempt that waits', () => {
    let now = 0
    const limiter = new Limiter(
      undefined,
      () => now,
      () => new Promise<void>(() => undefined)
    )
    expect(limiter.ready()).toBeUndefined()
    limiter.pause(1000)
    expect(limiter.ready()).toBeInstanceOf(Promise)
    now = 1000
    expect(limiter.ready()).toBeUndefined()
    expect(new Limiter(10, () => now).ready()).toBeInstanceOf(Promise)
  })

  it('lets calls through at once with no rate and no pause', async () => {
    const { limiter, slept } = clocked()
    await Promise.all([limiter.ready(), limiter.ready(), limiter.ready()])
    expect(slept).toEqual([])
  })

  it('holds every caller until a pause ends', async () => {
    const { limiter, slept, clock } = clocked()
    limiter.pause(2000)
    await limiter.ready()
    expect(slept).toEqual([2000])
    limiter.pause(500)
    limiter.pause(100) // a shorter pause never shortens a longer one
    const before = clock.now
    await limiter.ready()
    expect(clock.now - before).toBe(500)
  })

  it('spaces starts evenly at the rate, each caller its own slot', async () => {
    const { limiter, clock } = clocked(4)
    const starts: number[] = []
    const start = clock.now
    for (let i = 0; i < 5; i++) {
      await limiter.ready()
      starts.push(clock.now - start)
    }
    expect(starts).toEqual([0, 250, 500, 750, 1000])
  })

  it('resumes at the rate after a pause, not in a burst of every caller that waited', async () => {
    const { limiter, startsOf } = virtual(10)
    limiter.pause(1000)
    const starts = await startsOf(20)
    expect(starts).toEqual(Array.from({ length: 20 }, (_, i) => 1000 + 100 * i))
  })

  it('gives up the slots a pause falls on, and never gives one slot twice', async () => {
    const { limiter, startsOf } = virtual(10)
    const waiting = startsOf(5) // slots at 0 (taken at once), 100, 200, 300 and 400
    limiter.pause(250) // the slots at 100 and 200 fall in it: theirs come after the last one taken
    const starts = await waiting
    expect(starts).toEqual([0, 300, 400, 500, 600])
    expect(new Set(starts).size).toBe(5)
  })
})
