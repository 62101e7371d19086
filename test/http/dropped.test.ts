import { jest } from '@jest/globals'
import { constants, PerformanceObserver } from 'node:perf_hooks'
import { runInNewContext } from 'node:vm'
import { DROPPED_BYTES_PER_COLLECTION, droppedBytes, minorCollection } from '../../src/http/dropped.js'

/** The kinds of the garbage collections `act` makes, as a PerformanceObserver sees them. */
async function collectionsOf(act: () => void): Promise<number[]> {
  const kinds: number[] = []
  const observer = new PerformanceObserver(list => {
    for (const entry of list.getEntries()) kinds.push((entry as unknown as { detail: { kind: number } }).detail.kind)
  })
  observer.observe({ entryTypes: ['gc'] })
  try {
    act()
    // Entries are delivered later, not in the same turn.
    for (let waited = 0; kinds.length === 0 && waited < 5000; waited += 10) {
      await new Promise(resolve => setTimeout(resolve, 10))
    }
    return kinds
  } finally {
    observer.disconnect()
  }
}

describe('droppedBytes', () => {
  it('collects once each time `every` bytes have been dropped since the last collection', () => {
    const collect = jest.fn()
    const make = jest.fn(() => collect)
    const count = droppedBytes(10, make)
    count.note(4)
    count.note(5)
    expect(make).not.toHaveBeenCalled()
    count.note(1)
    expect(collect).toHaveBeenCalledTimes(1)
    count.note(9)
    expect(collect).toHaveBeenCalledTimes(1)
    count.note(3)
    expect(collect).toHaveBeenCalledTimes(2)
    count.note(9)
    expect(collect).toHaveBeenCalledTimes(2)
    expect(make).toHaveBeenCalledTimes(1)
  })

  it('collects every 8 MiB by default, and makes no collector before', () => {
    expect(DROPPED_BYTES_PER_COLLECTION).toBe(8 * 1024 * 1024)
    const make = jest.fn(() => () => undefined)
    const count = droppedBytes(undefined, make)
    for (let i = 0; i < 127; i++) count.note(64 * 1024)
    count.note(64 * 1024 - 1)
    expect(make).not.toHaveBeenCalled()
    count.note(1)
    expect(make).toHaveBeenCalledTimes(1)
  })
})

describe('minorCollection', () => {
  it('runs a minor collection (a scavenge), not a full one', async () => {
    const collect = minorCollection()
    const kinds = await collectionsOf(collect)
    expect(kinds[0]).toBe(constants.NODE_PERFORMANCE_GC_MINOR)
    expect(kinds).not.toContain(constants.NODE_PERFORMANCE_GC_MAJOR)
  })

  it('leaves gc exposed to no context made after it', () => {
    minorCollection()
    expect(runInNewContext('typeof gc')).toBe('undefined')
  })

  it("uses node's own gc when it was started with --expose-gc", () => {
    const own = jest.fn()
    const global = globalThis as { gc?: unknown }
    global.gc = own
    try {
      minorCollection()()
      expect(own).toHaveBeenCalledWith({ type: 'minor' })
    } finally {
      delete global.gc
    }
  })
})
