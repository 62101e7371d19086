import { jest } from '@jest/globals'
import { Writable } from 'node:stream'
import { holdLog } from '../src/held-log.js'

/** A log that records each write it makes: one entry a write, its lines joined. */
function log(): Writable & { writes: string[] } {
  const writes: string[] = []
  const out = new Writable({
    write(chunk, _encoding, done) {
      writes.push(String(chunk))
      done()
    },
    writev(chunks, done) {
      writes.push(chunks.map(c => String(c.chunk)).join(''))
      done()
    }
  })
  return Object.assign(out, { writes })
}

beforeEach(() => jest.useFakeTimers())
afterEach(() => jest.useRealTimers())

describe('holdLog', () => {
  it('writes what it held in one write, in order, when its time is up', () => {
    const out = log()
    const held = holdLog(200, out)
    held.hold()
    out.write('Page 1\n')
    held.hold() // already holding: the time still runs from the first
    out.write('a retry line\n')
    out.write('Page 2\n')
    jest.advanceTimersByTime(199)
    expect(out.writes).toEqual([])
    jest.advanceTimersByTime(1)
    expect(out.writes).toEqual(['Page 1\na retry line\nPage 2\n'])
    out.write('not held\n')
    expect(out.writes).toHaveLength(2)
  })

  it('writes at once on release, and a release with nothing held writes nothing', () => {
    const out = log()
    const held = holdLog(200, out)
    held.release()
    held.hold()
    out.write('Page 1\n')
    held.release()
    expect(out.writes).toEqual(['Page 1\n'])
    held.release()
    jest.advanceTimersByTime(1000)
    expect(out.writes).toEqual(['Page 1\n'])
    expect(out.writableCorked).toBe(0)
  })

  it('holds again after it wrote', () => {
    const out = log()
    const held = holdLog(100, out)
    held.hold()
    out.write('a\n')
    jest.advanceTimersByTime(100)
    held.hold()
    out.write('b\n')
    out.write('c\n')
    jest.advanceTimersByTime(100)
    expect(out.writes).toEqual(['a\n', 'b\nc\n'])
  })

  it('writes what it holds when the process exits meanwhile, and no more once released', () => {
    const out = log()
    const before = process.listenerCount('exit')
    const held = holdLog(200, out)
    held.hold()
    out.write('Page 1\n')
    expect(process.listenerCount('exit')).toBe(before + 1)
    // What the process runs as it exits, not the exit itself: the test runner's own listeners stay out of it.
    const onExit = process.listeners('exit').at(-1) as () => void
    onExit()
    expect(out.writes).toEqual(['Page 1\n'])
    expect(process.listenerCount('exit')).toBe(before)
    held.hold()
    held.release()
    expect(process.listenerCount('exit')).toBe(before)
  })

  it('keeps no process alive while it holds', () => {
    jest.useRealTimers()
    const timers = () => process.getActiveResourcesInfo().filter(r => r === 'Timeout').length
    const before = timers()
    const held = holdLog(60_000, log())
    held.hold()
    expect(timers()).toBe(before)
    held.release()
  })
})
