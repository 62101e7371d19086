import { jest } from '@jest/globals'
import { getHeapSpaceStatistics } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { DROPPED_BYTES_PER_COLLECTION, dropped, droppedBytes, minorCollection } from '../../src/http/dropped.js'

const newSpaceUsed = () => getHeapSpaceStatistics().find(space => space.space_name === 'new_space')!.space_used_size

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

  it('makes no collector while less than `every` has been dropped', () => {
    const make = jest.fn(() => () => undefined)
    const count = droppedBytes(DROPPED_BYTES_PER_COLLECTION, make)
    for (let i = 0; i < 127; i++) count.note(64 * 1024)
    count.note(64 * 1024 - 1)
    expect(make).not.toHaveBeenCalled()
    count.note(1)
    expect(make).toHaveBeenCalledTimes(1)
  })

  it('is one count for the whole process, collecting every 8 MiB', () => {
    expect(DROPPED_BYTES_PER_COLLECTION).toBe(8 * 1024 * 1024)
    expect(typeof dropped.note).toBe('function')
  })
})

describe('minorCollection', () => {
  it('collects the young generation', () => {
    const collect = minorCollection()
    // Collected first, the new space has room for the garbage below without a collection of its own.
    collect()
    const empty = newSpaceUsed()
    let garbage: unknown[] = []
    for (let i = 0; i < 3000; i++) garbage.push({ i, text: `garbage ${i}` })
    garbage = []
    const before = newSpaceUsed()
    expect(before - empty).toBeGreaterThan(100 * 1024)
    collect()
    expect(newSpaceUsed()).toBeLessThan(empty + (before - empty) / 4)
    expect(garbage).toHaveLength(0)
  })

  it('leaves gc exposed to no context made after it', () => {
    minorCollection()
    expect(runInNewContext('typeof gc')).toBe('undefined')
  })
})
