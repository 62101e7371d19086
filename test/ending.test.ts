import { jest } from '@jest/globals'
import { EventEmitter } from 'node:events'
import { DRAIN_MS, endWhenDone } from '../src/ending.js'

describe('endWhenDone', () => {
  const settle = (): Promise<void> => new Promise(resolve => setImmediate(resolve))

  it('ends the process once, as soon as the work is done with the log written', async () => {
    const source = new EventEmitter()
    const exit = jest.fn()
    let done!: () => void
    endWhenDone(new Promise<void>(resolve => (done = resolve)), source, exit, () => true)
    await settle()
    expect(exit).not.toHaveBeenCalled()
    done()
    await settle()
    expect(exit).toHaveBeenCalledTimes(1)
    source.emit('beforeExit', 0)
    expect(exit).toHaveBeenCalledTimes(1)
  })

  it('waits for the loop to empty while the log is still being written', async () => {
    const source = new EventEmitter()
    const exit = jest.fn()
    endWhenDone(Promise.resolve(), source, exit, () => false)
    await settle()
    expect(exit).not.toHaveBeenCalled()
    source.emit('exit', 0)
    expect(exit).not.toHaveBeenCalled()
    source.emit('beforeExit', 0)
    source.emit('beforeExit', 0)
    expect(exit).toHaveBeenCalledTimes(1)
  })

  it('ends when its loop first has nothing left to do, if the work never settles', () => {
    const source = new EventEmitter()
    const exit = jest.fn()
    endWhenDone(new Promise(() => undefined), source, exit, () => true)
    source.emit('beforeExit', 0)
    expect(exit).toHaveBeenCalledTimes(1)
  })

  it('reads whether the log is written from the process by default: stdout and stderr', async () => {
    const source = new EventEmitter()
    const exit = jest.fn()
    const pending = { stdout: 10, stderr: 0 }
    for (const name of ['stdout', 'stderr'] as const) {
      Object.defineProperty(process[name], 'writableLength', { configurable: true, get: () => pending[name] })
    }
    try {
      endWhenDone(Promise.resolve(), source, exit)
      await settle()
      pending.stdout = 0
      pending.stderr = 3
      endWhenDone(Promise.resolve(), source, exit)
      await settle()
      expect(exit).not.toHaveBeenCalled()
      pending.stderr = 0
      endWhenDone(Promise.resolve(), source, exit)
      await settle()
      expect(exit).toHaveBeenCalledTimes(1)
    } finally {
      for (const name of ['stdout', 'stderr'] as const) {
        delete (process[name] as { writableLength?: number }).writableLength
      }
    }
  })

  it('leaves a step that drains to end when its loop is empty, and ends it at once DRAIN_MS later', async () => {
    const source = new EventEmitter()
    const exit = jest.fn()
    const timers: Array<[() => void, number]> = []
    endWhenDone(
      Promise.resolve('drain' as const),
      source,
      exit,
      () => true,
      (end, ms) => timers.push([end, ms])
    )
    await settle()
    expect(exit).not.toHaveBeenCalled()
    source.emit('beforeExit', 0)
    expect(exit).not.toHaveBeenCalled()
    expect(timers.map(([, ms]) => ms)).toEqual([DRAIN_MS])
    expect(DRAIN_MS).toBe(5000)
    timers[0][0]()
    timers[0][0]()
    expect(exit).toHaveBeenCalledTimes(1)
  })

  it('drains even while the log is still being written', async () => {
    const source = new EventEmitter()
    const exit = jest.fn()
    const later = jest.fn()
    endWhenDone(Promise.resolve('drain' as const), source, exit, () => false, later)
    await settle()
    source.emit('beforeExit', 0)
    expect(exit).not.toHaveBeenCalled()
    expect(later).toHaveBeenCalledTimes(1)
  })

  it('ends a step that asks to exit at once, without a timer', async () => {
    const exit = jest.fn()
    const later = jest.fn()
    endWhenDone(Promise.resolve('exit' as const), new EventEmitter(), exit, () => true, later)
    await settle()
    expect(exit).toHaveBeenCalledTimes(1)
    expect(later).not.toHaveBeenCalled()
  })

  it('holds no loop open while it waits to end a draining step', async () => {
    const exit = jest.fn()
    const before = process.getActiveResourcesInfo().filter(r => r === 'Timeout').length
    endWhenDone(Promise.resolve('drain' as const), new EventEmitter(), exit, () => true)
    await settle()
    const timers = process.getActiveResourcesInfo().filter(r => r === 'Timeout').length
    expect(timers).toBe(before)
    expect(exit).not.toHaveBeenCalled()
  })

  it('ends a draining step by default with process.exit(), DRAIN_MS after its work, were its loop still held', async () => {
    const exit = jest.spyOn(process, 'exit').mockImplementation((() => undefined) as () => never)
    jest.useFakeTimers()
    try {
      endWhenDone(Promise.resolve('drain' as const), new EventEmitter())
      for (let i = 0; i < 3; i++) await Promise.resolve()
      jest.advanceTimersByTime(DRAIN_MS - 1)
      expect(exit).not.toHaveBeenCalled()
      jest.advanceTimersByTime(1)
      expect(exit).toHaveBeenCalledTimes(1)
      expect(exit).toHaveBeenCalledWith()
    } finally {
      jest.useRealTimers()
      exit.mockRestore()
    }
  })
})
