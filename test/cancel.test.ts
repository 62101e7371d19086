import { EventEmitter } from 'node:events'
import { Cancellation, SIGNALS } from '../src/cancel.js'

function cancellation() {
  const source = new EventEmitter()
  const told: [string, number, boolean, boolean][] = []
  const c: Cancellation = new Cancellation(source, (name, count) =>
    told.push([name, count, c.signal.aborted, c.hardStop.aborted])
  )
  return { source, c, told }
}

describe('Cancellation', () => {
  it('listens for the signals the runner sends', () => {
    expect(SIGNALS).toEqual(['SIGINT', 'SIGTERM'])
    const { source, c } = cancellation()
    expect(source.listenerCount('SIGINT')).toBe(1)
    expect(source.listenerCount('SIGTERM')).toBe(1)
    expect(c.signal.aborted).toBe(false)
    expect(c.hardStop.aborted).toBe(false)
  })

  it.each(['SIGINT', 'SIGTERM'])('aborts signal at a first %s, and tells onSignal after', name => {
    const { source, c, told } = cancellation()
    source.emit(name, name)
    expect(c.signal.aborted).toBe(true)
    expect(c.signal.reason).toBe(name)
    expect(c.hardStop.aborted).toBe(false)
    expect(told).toEqual([[name, 1, true, false]])
  })

  it('aborts hardStop at a second signal, and counts every one', () => {
    const { source, c, told } = cancellation()
    source.emit('SIGINT', 'SIGINT')
    source.emit('SIGTERM', 'SIGTERM')
    expect(c.signal.reason).toBe('SIGINT')
    expect(c.hardStop.aborted).toBe(true)
    expect(c.hardStop.reason).toBe('SIGTERM')
    source.emit('SIGINT', 'SIGINT')
    expect(c.hardStop.reason).toBe('SIGTERM')
    expect(told).toEqual([
      ['SIGINT', 1, true, false],
      ['SIGTERM', 2, true, true],
      ['SIGINT', 3, true, true]
    ])
  })

  it('can be told of a signal directly', () => {
    const { c, told } = cancellation()
    c.receive('SIGTERM')
    expect(c.signal.reason).toBe('SIGTERM')
    expect(told).toEqual([['SIGTERM', 1, true, false]])
  })

  it('stops listening when disposed, and only for its own listeners', () => {
    const { source, c, told } = cancellation()
    const other = () => undefined
    source.on('SIGINT', other)
    c.dispose()
    expect(source.listenerCount('SIGINT')).toBe(1)
    expect(source.listeners('SIGINT')).toEqual([other])
    expect(source.listenerCount('SIGTERM')).toBe(0)
    source.emit('SIGINT', 'SIGINT')
    expect(told).toEqual([])
    expect(c.signal.aborted).toBe(false)
  })
})
