import { setImmediate as nextTurn } from 'node:timers/promises'

/**
 * The routine's slots: at most `concurrency` calls at once, no new call after a stop or a cancel,
 * and a drain that waits a bounded time for the calls in flight. Knows nothing of HTTP or records:
 * each call is an entry the caller made, handed back when it is still open at the end of a drain.
 */
export class Scheduler<T> {
  private readonly open = new Set<T>()
  private waiting: ((atOnce: boolean) => void) | undefined
  private stopReason: string | undefined
  private isCancelled = false
  private broken: { readonly error: unknown } | undefined

  constructor(private readonly concurrency: number) {}

  get inFlight(): number {
    return this.open.size
  }

  /** Why no new call starts: a stop's reason; undefined while calls may start. */
  get stopped(): string | undefined {
    return this.stopReason
  }

  get cancelled(): boolean {
    return this.isCancelled
  }

  /** Whether a new call may start now (not stopped, not cancelled). */
  get accepting(): boolean {
    return this.stopReason === undefined && !this.isCancelled
  }

  /** Stops new calls for good; the first reason is kept. */
  stop(reason: string): void {
    this.stopReason ??= reason
    this.wake(true)
  }

  /** A cancellation: no new call starts; a drain ends the calls in flight. */
  cancel(): void {
    this.isCancelled = true
    this.wake(true)
  }

  /**
   * Undefined when a call may be offered now: a slot is free, or no call will start any more.
   * Else a promise that resolves when that may have changed (a call ended, a stop or a cancel), in
   * the event loop's turn after it: the calls whose answers were read in one turn free their slots
   * together, and the next calls then start together. Starting each as an answer is read (as a
   * bare client does) interleaves the two paths: measured at 10,000 calls, the routine made 0.69 x
   * a bare client's calls per second that way and 0.96 x this way (docs/performance.md).
   */
  slot(): Promise<void> | undefined {
    // A task that threw freed its slot: the next offer finds the error.
    if (this.open.size < this.concurrency || !this.accepting) return undefined
    return this.slotFreed().then(atOnce => (atOnce ? undefined : nextTurn()))
  }

  /**
   * Starts `run(entry)` in a free slot (slot() said so): true when it started, false when no call
   * may start any more. A task that threw (a bug, or a write that failed) is rethrown here. A run
   * that resolves true frees its slot at once rather than a turn later: for calls whose cost is
   * reading a large answer, not their own path (with 8 MiB answers at concurrency 64 the turn's
   * wait gained no time and raised peak memory from 172–270 to 229–418 MiB).
   */
  startNow(entry: T, run: (entry: T) => Promise<boolean | void>): boolean {
    if (this.broken) throw this.broken.error
    if (!this.accepting) return false
    if (this.open.size >= this.concurrency) throw new Error('No free slot: a call was offered before slot() allowed it')
    this.open.add(entry)
    run(entry).then(
      atOnce => this.release(entry, atOnce === true),
      (error: unknown) => {
        this.broken ??= { error }
        this.release(entry, true)
      }
    )
    return true
  }

  /**
   * Waits until no call is in flight, or a grace has passed: the entries still open then, which are
   * no longer waited for. `grace` gives the ms left, asked again whenever the drain wakes (a call
   * ends, a cancel), so that a cancellation during the drain still bounds it; Infinity waits on.
   */
  async drain(grace: number | (() => number) = Infinity, setTimer = setTimeout): Promise<T[]> {
    const left = typeof grace === 'number' ? () => grace : grace
    let late = false
    let timer: ReturnType<typeof setTimeout> | undefined
    const arm = (): void => {
      if (timer !== undefined || this.open.size === 0) return
      const ms = left()
      if (ms === Infinity) return
      timer = setTimer(() => {
        late = true
        this.wake(true)
      }, ms)
    }
    arm()
    while (this.open.size > 0 && !late) {
      await this.slotFreed()
      arm()
    }
    if (timer !== undefined) clearTimeout(timer)
    if (this.broken) throw this.broken.error
    const open = [...this.open]
    this.open.clear()
    return open
  }

  private release(entry: T, atOnce: boolean): void {
    if (this.open.delete(entry)) this.wake(atOnce)
  }

  /**
   * Wakes whoever waits. `atOnce` answers a waiting slot() now rather than a turn later: for a
   * stop, a cancel or a task that threw (nothing to start together), or a call that asked for it.
   */
  private wake(atOnce: boolean): void {
    const wake = this.waiting
    this.waiting = undefined
    wake?.(atOnce)
  }

  private slotFreed(): Promise<boolean> {
    return new Promise<boolean>(resolve => {
      const previous = this.waiting
      this.waiting = atOnce => {
        previous?.(atOnce)
        resolve(atOnce)
      }
    })
  }
}
