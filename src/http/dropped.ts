/**
 * A routine keeps only the first part of each response body and drops the rest as it arrives
 * (keepBytes). A dropped chunk's memory is freed only when V8 next collects the young generation,
 * and a call makes too little JavaScript garbage for that to come soon: 256 bodies of 8 MiB at
 * concurrency 64 peaked at 173–314 MiB, most of it chunks already dropped. A minor collection
 * after each DROPPED_BYTES_PER_COLLECTION dropped bytes held the peak at 125–132 MiB, and the
 * calls took less time, not more (docs/performance.md). Every 32 MiB did not.
 */
export const DROPPED_BYTES_PER_COLLECTION = 8 * 1024 * 1024

type Gc = (options: { type: 'minor' }) => void

/**
 * V8's young-generation collection. The action cannot pass --expose-gc (runs.main); set at run
 * time, the flag exposes `gc` to a context made after it. It is unset again at once, so no other
 * context gets it, unless node was started with it: then its own `gc` is used, and no flag is
 * touched. Where V8 still exposes none, collecting does nothing.
 */
export function minorCollection(): () => void {
  const global: unknown = (globalThis as { gc?: unknown }).gc
  if (typeof global === 'function') return () => (global as Gc)({ type: 'minor' })
  // node:vm and node:v8 only here: attempt.ts runs in every step, and loading node:v8 as the
  // bundle loaded cost a start-up 1.8 ms (docs/performance.md); node:vm costs 0.26 ms.
  const { runInNewContext } = process.getBuiltinModule('node:vm')
  const { setFlagsFromString } = process.getBuiltinModule('node:v8')
  setFlagsFromString('--expose-gc')
  const gc: unknown = runInNewContext('typeof gc === "function" ? gc : undefined')
  setFlagsFromString('--no-expose-gc')
  return typeof gc === 'function' ? () => (gc as Gc)({ type: 'minor' }) : () => undefined
}

export interface DroppedBytes {
  /** Counts bytes a response dropped, and collects once `every` of them have been. */
  note(bytes: number): void
}

/** The collector is made at the first collection: a step that drops less never exposes one. */
export function droppedBytes(every = DROPPED_BYTES_PER_COLLECTION, make = minorCollection): DroppedBytes {
  let pending = 0
  let collect: (() => void) | undefined
  return {
    note(bytes) {
      pending += bytes
      if (pending < every) return
      pending = 0
      collect ??= make()
      collect()
    }
  }
}

/** The process's one count: memory is the process's, whichever call dropped the bytes. */
export const dropped = droppedBytes()
