import { describe, expect, it, jest } from '@jest/globals'
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

/** A stand-in for the collections: `collect()` tells the listener one happened. */
function fakeGcs() {
  let listener: (() => void) | undefined
  let stops = 0
  return {
    watch: (l: () => void) => {
      listener = l
      return () => {
        stops++
        listener = undefined
      }
    },
    collect: () => listener?.(),
    get watching() {
      return listener !== undefined
    },
    get stops() {
      return stops
    }
  }
}

describe('capYoungGeneration', () => {
  it('checks after each collection until the cap holds, then stops watching', () => {
    const gcs = fakeGcs()
    const answers = [false, false, true]
    const check = jest.fn(() => answers.shift() ?? true)
    capYoungGeneration(check, gcs.watch)
    expect(check).toHaveBeenCalledTimes(1)
    gcs.collect()
    expect(check).toHaveBeenCalledTimes(2)
    expect(gcs.watching).toBe(true)
    gcs.collect()
    expect(check).toHaveBeenCalledTimes(3)
    expect(gcs.watching).toBe(false)
    gcs.collect()
    expect(check).toHaveBeenCalledTimes(3)
  })

  it('watches nothing when the cap already holds', () => {
    const gcs = fakeGcs()
    const check = jest.fn(() => true)
    const stop = capYoungGeneration(check, gcs.watch)
    expect(gcs.watching).toBe(false)
    stop()
    expect(gcs.stops).toBe(0)
    expect(check).toHaveBeenCalledTimes(1)
  })

  it('stops watching when stopped, the cap not reached', () => {
    const gcs = fakeGcs()
    const check = jest.fn(() => false)
    const stop = capYoungGeneration(check, gcs.watch)
    gcs.collect()
    stop()
    expect(gcs.watching).toBe(false)
    gcs.collect()
    expect(check).toHaveBeenCalledTimes(2)
  })

  it("is told of V8's own collections by default", async () => {
    let checks = 0
    const stop = capYoungGeneration(() => ++checks > 1)
    // Young garbage until a collection has been reported (each comes in a later turn).
    for (let turn = 0; checks < 2 && turn < 1000; turn++) {
      for (let i = 0; i < 10_000; i++) new Array(16).fill(i)
      await new Promise(resolve => setImmediate(resolve))
    }
    expect(checks).toBe(2)
    stop()
  })
})
