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

describe('Limiter', () => {
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
})
