import { afterEach, describe, expect, it, jest } from '@jest/globals'
import { HeapSpaceInfo } from 'node:v8'
import {
  capYoungGeneration,
  Heap,
  NEW_SPACE_LIMIT_BYTES,
  youngGenerationCap
} from '../../src/routine/young-generation.js'

const MiB = 1024 * 1024
const space = (space_name: string, space_size: number): HeapSpaceInfo => ({
  space_name,
  space_size,
  space_used_size: 0,
  space_available_size: 0,
  physical_space_size: 0
})

/** A heap whose new space has the sizes given, one per look; records the flags set. */
function fakeHeap(...sizes: (number | undefined)[]): Heap & { flags: string[]; looks: number } {
  const heap = {
    flags: [] as string[],
    looks: 0,
    spaces: () => {
      const size = sizes[Math.min(heap.looks++, sizes.length - 1)]
      return size === undefined
        ? [space('old_space', 64 * MiB)]
        : [space('old_space', 64 * MiB), space('new_space', size)]
    },
    setFlags: (flags: string) => void heap.flags.push(flags)
  }
  return heap
}

describe('youngGenerationCap', () => {
  it('holds the new space once it has reached 8 MiB, and only then', () => {
    expect(NEW_SPACE_LIMIT_BYTES).toBe(8 * MiB)
    const heap = fakeHeap(8 * MiB - 1, 8 * MiB)
    const check = youngGenerationCap(undefined, heap)
    expect(check()).toBe(false)
    expect(heap.flags).toEqual([])
    expect(check()).toBe(true)
    expect(heap.flags).toEqual(['--semi-space-growth-factor=1'])
  })

  it('sets the flag once, and looks no more after', () => {
    const heap = fakeHeap(16 * MiB)
    const check = youngGenerationCap(4 * MiB, heap)
    expect([check(), check(), check()]).toEqual([true, true, true])
    expect(heap.flags).toEqual(['--semi-space-growth-factor=1'])
    expect(heap.looks).toBe(1)
  })

  it('leaves a heap without a new space as it is', () => {
    const heap = fakeHeap(undefined)
    expect(youngGenerationCap(0, heap)()).toBe(false)
    expect(heap.flags).toEqual([])
  })

  it("reads V8's own heap by default", () => {
    // A limit no new space reaches: the real statistics are read, and no flag is set.
    expect(youngGenerationCap(Number.MAX_SAFE_INTEGER)()).toBe(false)
  })
})

describe('capYoungGeneration', () => {
  afterEach(() => {
    jest.useRealTimers()
  })

  it('checks on a timer until the cap holds, then stops', () => {
    jest.useFakeTimers()
    const answers = [false, false, true]
    const check = jest.fn(() => answers.shift() ?? true)
    capYoungGeneration(check)
    expect(check).toHaveBeenCalledTimes(1)
    jest.advanceTimersByTime(24)
    expect(check).toHaveBeenCalledTimes(1)
    jest.advanceTimersByTime(1)
    expect(check).toHaveBeenCalledTimes(2)
    jest.advanceTimersByTime(25)
    expect(check).toHaveBeenCalledTimes(3)
    jest.advanceTimersByTime(1000)
    expect(check).toHaveBeenCalledTimes(3)
  })

  it('sets no timer when the cap already holds', () => {
    jest.useFakeTimers()
    const check = jest.fn(() => true)
    const stop = capYoungGeneration(check)
    expect(jest.getTimerCount()).toBe(0)
    stop()
    expect(check).toHaveBeenCalledTimes(1)
  })

  it('stops checking when stopped, the cap not reached', () => {
    jest.useFakeTimers()
    const check = jest.fn(() => false)
    const stop = capYoungGeneration(check)
    jest.advanceTimersByTime(50)
    expect(check).toHaveBeenCalledTimes(3)
    stop()
    expect(jest.getTimerCount()).toBe(0)
    jest.advanceTimersByTime(1000)
    expect(check).toHaveBeenCalledTimes(3)
  })

  it('holds nothing open: its timer is unref()ed', () => {
    const check = jest.fn(() => false)
    const spy = jest.spyOn(global, 'setInterval')
    const stop = capYoungGeneration(check)
    const timer = spy.mock.results[0].value as NodeJS.Timeout
    expect(timer.hasRef()).toBe(false)
    stop()
    spy.mockRestore()
  })
})
