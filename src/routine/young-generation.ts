import { PerformanceObserver } from 'node:perf_hooks'
import { getHeapSpaceStatistics, HeapSpaceInfo, setFlagsFromString } from 'node:v8'

/**
 * A routine's calls leave only young-generation garbage, yet V8 grows the new space with the
 * allocation rate, so peak RSS grew with the number of calls (220 MiB for 1,000,000 POSTs). The
 * action cannot pass node flags (runs.main), and --max-semi-space-size set at run time is not read
 * again; --semi-space-growth-factor is, at each growth. So once the new space has reached
 * `limitBytes` it is told to grow no further: peak RSS then stays flat at no cost in rate
 * (100,000 POSTs at concurrency 64: 204 -> 120 MiB).
 */
export const NEW_SPACE_LIMIT_BYTES = 8 * 1024 * 1024

export interface Heap {
  readonly spaces: () => readonly HeapSpaceInfo[]
  readonly setFlags: (flags: string) => void
}
const V8_HEAP: Heap = { spaces: getHeapSpaceStatistics, setFlags: setFlagsFromString }

/** A check to call now and then: true once the new space is held where it stands. */
export function youngGenerationCap(limitBytes = NEW_SPACE_LIMIT_BYTES, heap: Heap = V8_HEAP): () => boolean {
  let capped = false
  return () => {
    if (capped) return true
    const newSpace = heap.spaces().find(space => space.space_name === 'new_space')
    if (!newSpace || newSpace.space_size < limitBytes) return false
    heap.setFlags('--semi-space-growth-factor=1')
    return (capped = true)
  }
}

/** Calls `listener` after garbage collections, until the returned stop is called. */
export type GcWatch = (listener: () => void) => () => void

// The new space grows only in a collection: a check after each finds it at the limit, not a
// growth later (a timer every 25 ms let it grow from 8 to 16 MiB while a snapshot was read).
const afterEachGc: GcWatch = listener => {
  const observer = new PerformanceObserver(listener)
  observer.observe({ entryTypes: ['gc'] })
  return () => observer.disconnect()
}

/** Checks the cap after each garbage collection, until it holds or the returned stop is called. */
export function capYoungGeneration(check: () => boolean = youngGenerationCap(), watch = afterEachGc): () => void {
  if (check()) return () => undefined
  const stop = watch(() => {
    if (check()) stop()
  })
  return stop
}
