import { jest } from '@jest/globals'
import { Scheduler } from '../../src/routine/scheduler.js'

/** A task the test ends by hand. */
function deferred() {
  let resolve: () => void = () => undefined
  let reject: (err: unknown) => void = () => undefined
  const promise = new Promise<void>((res, rej) => {
    resolve = res
    reject = rej
  })
  return { task: () => promise, resolve, reject }
}

/** Offers a call as the routine does: waits while slot() says to, then starts it. */
async function start<T>(scheduler: Scheduler<T>, entry: T, task: () => Promise<void>): Promise<boolean> {
  for (let wait = scheduler.slot(); wait !== undefined; wait = scheduler.slot()) await wait
  return scheduler.startNow(entry, () => task())
}

/** Lets every promise that can settle, settle. */
const settle = () => new Promise(resolve => setImmediate(resolve))

/**
 * Waits on slot() while every slot is taken: whether it has answered, and whether it answered
 * within the turn that is running now (an immediate queued now runs at that turn's end).
 */
function watchSlot(scheduler: Scheduler<string>) {
  const seen = { answered: false }
  void scheduler.slot()!.then(() => (seen.answered = true))
  const sameTurn = new Promise<boolean>(resolve => setImmediate(() => resolve(seen.answered)))
  return { seen, sameTurn }
}

/** A setTimer for drain() that fires only when the test says so. */
function manualTimer() {
  const timers: { fn: () => void; ms: number }[] = []
  const setTimer = ((fn: () => void, ms: number) => {
    timers.push({ fn, ms })
    return { fake: timers.length }
  }) as unknown as typeof setTimeout
  return { setTimer, timers }
}

describe('Scheduler', () => {
  it('offers a slot at once while one is free, and a promise once all are taken', async () => {
    const scheduler = new Scheduler<string>(1)
    expect(scheduler.slot()).toBeUndefined()
    const a = deferred()
    let given: string | undefined
    expect(
      scheduler.startNow('a', entry => {
        given = entry
        return a.task()
      })
    ).toBe(true)
    expect(given).toBe('a')
    const wait = scheduler.slot()
    expect(wait).toBeInstanceOf(Promise)
    expect(() => scheduler.startNow('b', async () => undefined)).toThrow('No free slot')
    let freed = false
    void wait!.then(() => (freed = true))
    await settle()
    expect(freed).toBe(false)
    a.resolve()
    await settle()
    await settle()
    expect(freed).toBe(true)
    expect(scheduler.slot()).toBeUndefined()
  })

  it('answers a freed slot in the turn after the call ended, not in the same one', async () => {
    const scheduler = new Scheduler<string>(1)
    const a = deferred()
    scheduler.startNow('a', () => a.task())
    const { seen, sameTurn } = watchSlot(scheduler)
    a.resolve()
    for (let i = 0; i < 10; i++) await Promise.resolve()
    expect(seen.answered).toBe(false)
    expect(await sameTurn).toBe(false)
    await settle()
    expect(seen.answered).toBe(true)
  })

  it.each([
    ['a stop', (s: Scheduler<string>) => s.stop('why')],
    ['a cancel', (s: Scheduler<string>) => s.cancel()]
  ])('answers a waiting slot in the same turn after %s: nothing waits to start with it', async (_, end) => {
    const scheduler = new Scheduler<string>(1)
    scheduler.startNow('a', () => deferred().task())
    const { sameTurn } = watchSlot(scheduler)
    end(scheduler)
    expect(await sameTurn).toBe(true)
  })

  it('answers a waiting slot in the same turn after a task threw, to rethrow its error', async () => {
    const scheduler = new Scheduler<string>(1)
    const a = deferred()
    scheduler.startNow('a', () => a.task())
    const { sameTurn } = watchSlot(scheduler)
    a.reject(new Error('boom'))
    expect(await sameTurn).toBe(true)
    expect(() => scheduler.startNow('b', async () => undefined)).toThrow('boom')
  })

  it('answers a freed slot in the same turn when the call that freed it resolved true', async () => {
    const scheduler = new Scheduler<string>(1)
    const a = deferred()
    scheduler.startNow('a', async () => {
      await a.task()
      return true
    })
    const { sameTurn } = watchSlot(scheduler)
    a.resolve()
    expect(await sameTurn).toBe(true)
  })

  it.each([
    ['a stop', (s: Scheduler<string>) => s.stop('why')],
    ['a cancel', (s: Scheduler<string>) => s.cancel()]
  ])('offers at once after %s, and starts nothing then, though every slot is taken', async (_what, end) => {
    const scheduler = new Scheduler<string>(1)
    const a = deferred()
    scheduler.startNow('a', a.task)
    const wait = scheduler.slot()
    end(scheduler)
    await expect(wait).resolves.toBeUndefined()
    expect(scheduler.slot()).toBeUndefined()
    expect(scheduler.startNow('b', async () => undefined)).toBe(false)
    expect(scheduler.inFlight).toBe(1)
    a.resolve()
    expect(await scheduler.drain()).toEqual([])
  })

  it('offers at once once a task threw, and rethrows its error when a call is offered', async () => {
    const scheduler = new Scheduler<string>(1)
    const boom = new Error('boom')
    scheduler.startNow('a', async () => {
      throw boom
    })
    await settle()
    expect(scheduler.slot()).toBeUndefined()
    expect(() => scheduler.startNow('b', async () => undefined)).toThrow(boom)
  })

  it('starts calls until concurrency is reached, and no more until a slot is freed', async () => {
    const scheduler = new Scheduler<string>(2)
    const a = deferred()
    const b = deferred()
    expect(await start(scheduler, 'a', a.task)).toBe(true)
    expect(await start(scheduler, 'b', b.task)).toBe(true)
    expect(scheduler.inFlight).toBe(2)
    let third: boolean | undefined
    const started = start(scheduler, 'c', async () => undefined).then(r => (third = r))
    await settle()
    expect(third).toBeUndefined()
    expect(scheduler.inFlight).toBe(2)
    b.resolve()
    await started
    expect(third).toBe(true)
    a.resolve()
    expect(await scheduler.drain()).toEqual([])
    expect(scheduler.inFlight).toBe(0)
  })

  it.each([1, 3, 8])('never has more than %i calls in flight, and reaches it', async concurrency => {
    const scheduler = new Scheduler<number>(concurrency)
    let running = 0
    let most = 0
    const task = async () => {
      most = Math.max(most, ++running)
      expect(scheduler.inFlight).toBeLessThanOrEqual(concurrency)
      await settle()
      running--
    }
    for (let i = 0; i < 20; i++) expect(await start(scheduler, i, task)).toBe(true)
    expect(await scheduler.drain()).toEqual([])
    expect(most).toBe(concurrency)
  })

  it('is accepting until a stop, which keeps its first reason', () => {
    const scheduler = new Scheduler<string>(1)
    expect(scheduler).toMatchObject({ accepting: true, stopped: undefined, cancelled: false, inFlight: 0 })
    scheduler.stop('2 calls failed')
    scheduler.stop('a 401')
    expect(scheduler).toMatchObject({ accepting: false, stopped: '2 calls failed', cancelled: false })
  })

  it('is not accepting after a cancel, and says so without a stop reason', () => {
    const scheduler = new Scheduler<string>(1)
    scheduler.cancel()
    expect(scheduler).toMatchObject({ accepting: false, stopped: undefined, cancelled: true })
  })

  it.each([
    ['a stop', (s: Scheduler<string>) => s.stop('why')],
    ['a cancel', (s: Scheduler<string>) => s.cancel()]
  ])('starts nothing after %s', async (_, end) => {
    const scheduler = new Scheduler<string>(4)
    end(scheduler)
    const task = jest.fn(async () => undefined)
    expect(await start(scheduler, 'a', task)).toBe(false)
    expect(task).not.toHaveBeenCalled()
    expect(scheduler.inFlight).toBe(0)
  })

  it.each([
    ['a stop', (s: Scheduler<string>) => s.stop('why')],
    ['a cancel', (s: Scheduler<string>) => s.cancel()]
  ])('wakes every start waiting for a slot at %s, starting none of them', async (_, end) => {
    const scheduler = new Scheduler<string>(1)
    const a = deferred()
    await start(scheduler, 'a', a.task)
    const task = jest.fn(async () => undefined)
    const waiting = [start(scheduler, 'b', task), start(scheduler, 'c', task)]
    await settle()
    end(scheduler)
    expect(await Promise.all(waiting)).toEqual([false, false])
    expect(task).not.toHaveBeenCalled()
    expect(scheduler.inFlight).toBe(1)
    a.resolve()
    expect(await scheduler.drain()).toEqual([])
  })

  it('makes the next start throw the error of a task that threw, the first one kept', async () => {
    const scheduler = new Scheduler<string>(3)
    const a = deferred()
    const b = deferred()
    await start(scheduler, 'a', a.task)
    await start(scheduler, 'b', b.task)
    const first = new Error('the write failed')
    a.reject(first)
    b.reject(new Error('second'))
    await settle()
    expect(scheduler.inFlight).toBe(0)
    const task = jest.fn(async () => undefined)
    await expect(start(scheduler, 'c', task)).rejects.toBe(first)
    expect(task).not.toHaveBeenCalled()
    await expect(scheduler.drain()).rejects.toBe(first)
  })

  it('throws a broken task error even after a stop, rather than saying no call may start', async () => {
    const scheduler = new Scheduler<string>(1)
    const boom = new Error('boom')
    await start(scheduler, 'a', async () => {
      throw boom
    })
    await settle()
    scheduler.stop('why')
    await expect(start(scheduler, 'b', async () => undefined)).rejects.toBe(boom)
  })

  it('wakes a start waiting for a slot when the task in it throws, and throws its error', async () => {
    const scheduler = new Scheduler<string>(1)
    const a = deferred()
    await start(scheduler, 'a', a.task)
    const waiting = start(scheduler, 'b', async () => undefined)
    await settle()
    const boom = new Error('boom')
    a.reject(boom)
    await expect(waiting).rejects.toBe(boom)
  })

  it('drains: waits for every call in flight, then hands back none', async () => {
    const scheduler = new Scheduler<string>(2)
    const a = deferred()
    const b = deferred()
    await start(scheduler, 'a', a.task)
    await start(scheduler, 'b', b.task)
    let drained: string[] | undefined
    const draining = scheduler.drain().then(left => (drained = left))
    await settle()
    a.resolve()
    await settle()
    expect(drained).toBeUndefined()
    b.resolve()
    await draining
    expect(drained).toEqual([])
  })

  it('drains within its grace: the calls still open then are handed back and no longer waited for', async () => {
    const scheduler = new Scheduler<string>(3)
    const a = deferred()
    const b = deferred()
    const c = deferred()
    await start(scheduler, 'a', a.task)
    await start(scheduler, 'b', b.task)
    await start(scheduler, 'c', c.task)
    scheduler.cancel()
    const { setTimer, timers } = manualTimer()
    let drained: string[] | undefined
    const draining = scheduler.drain(5000, setTimer).then(left => (drained = left))
    expect(timers.map(t => t.ms)).toEqual([5000])
    b.resolve()
    await settle()
    expect(drained).toBeUndefined()
    timers[0].fn()
    await draining
    expect(drained).toEqual(['a', 'c'])
    expect(scheduler.inFlight).toBe(0)
    // A call that ends after the drain changes nothing.
    a.resolve()
    await settle()
    expect(scheduler.inFlight).toBe(0)
  })

  it('starts the grace when a cancel comes during the drain, asking for the time left then', async () => {
    const scheduler = new Scheduler<string>(2)
    const a = deferred()
    const b = deferred()
    await start(scheduler, 'a', a.task)
    await start(scheduler, 'b', b.task)
    const { setTimer, timers } = manualTimer()
    let grace = Infinity
    let drained: string[] | undefined
    const draining = scheduler.drain(() => grace, setTimer).then(left => (drained = left))
    await settle()
    expect(timers).toEqual([])
    grace = 1234
    scheduler.cancel()
    await settle()
    expect(timers.map(t => t.ms)).toEqual([1234])
    a.resolve()
    await settle()
    expect(timers).toHaveLength(1) // armed once
    timers[0].fn()
    await draining
    expect(drained).toEqual(['b'])
  })

  it('sets no timer for a drain without a grace, or with nothing in flight', async () => {
    const scheduler = new Scheduler<string>(1)
    const { setTimer, timers } = manualTimer()
    expect(await scheduler.drain(5000, setTimer)).toEqual([])
    const a = deferred()
    await start(scheduler, 'a', a.task)
    const draining = scheduler.drain(Infinity, setTimer)
    a.resolve()
    expect(await draining).toEqual([])
    expect(timers).toEqual([])
  })

  it('clears its grace timer when the calls end in time', async () => {
    jest.useFakeTimers({ doNotFake: ['setImmediate', 'nextTick', 'queueMicrotask'] })
    try {
      const scheduler = new Scheduler<string>(1)
      const a = deferred()
      await start(scheduler, 'a', a.task)
      const draining = scheduler.drain(5000)
      expect(jest.getTimerCount()).toBe(1)
      a.resolve()
      expect(await draining).toEqual([])
      expect(jest.getTimerCount()).toBe(0)
    } finally {
      jest.useRealTimers()
    }
  })

  it('ends a drain with the real timer after its grace', async () => {
    jest.useFakeTimers({ doNotFake: ['setImmediate', 'nextTick', 'queueMicrotask'] })
    try {
      const scheduler = new Scheduler<string>(1)
      await start(scheduler, 'a', deferred().task)
      let drained: string[] | undefined
      const draining = scheduler.drain(5000).then(left => (drained = left))
      jest.advanceTimersByTime(4999)
      await settle()
      expect(drained).toBeUndefined()
      jest.advanceTimersByTime(1)
      await draining
      expect(drained).toEqual(['a'])
    } finally {
      jest.useRealTimers()
    }
  })

  it('throws from a drain when a task threw, even one that ended within the grace', async () => {
    const scheduler = new Scheduler<string>(2)
    const a = deferred()
    await start(scheduler, 'a', a.task)
    const { setTimer } = manualTimer()
    const draining = scheduler.drain(5000, setTimer)
    const boom = new Error('boom')
    a.reject(boom)
    await expect(draining).rejects.toBe(boom)
  })

  it('wakes a start and a drain waiting together', async () => {
    const scheduler = new Scheduler<string>(1)
    const a = deferred()
    await start(scheduler, 'a', a.task)
    const starting = start(scheduler, 'b', async () => undefined)
    const draining = scheduler.drain()
    await settle()
    a.resolve()
    expect(await starting).toBe(true)
    expect(await draining).toEqual([])
  })
})
