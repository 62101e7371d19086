import { Gate } from './client.js'

/**
 * The Gate many concurrent requests share: a pause that any of them can start (a 429, or a wait a
 * server asked for) holds back every next attempt until it ends, and an optional rate spaces the
 * starts of attempts evenly.
 */
export class Limiter implements Gate {
  private pausedUntil = 0
  private nextStart = 0
  private readonly intervalMs: number

  constructor(
    ratePerSecond: number | undefined,
    private readonly now: () => number = Date.now,
    private readonly sleep: (ms: number) => Promise<void> = ms => new Promise(r => setTimeout(r, ms))
  ) {
    this.intervalMs = ratePerSecond ? 1000 / ratePerSecond : 0
  }

  ready(): Promise<void> | undefined {
    // Most attempts neither wait out a pause nor take a rate slot: they start with no promise.
    if (this.intervalMs === 0 && this.pausedUntil <= this.now()) return undefined
    return this.turn()
  }

  private async turn(): Promise<void> {
    for (;;) {
      const paused = this.pausedUntil - this.now()
      if (paused > 0) {
        await this.sleep(paused)
        continue
      }
      if (this.intervalMs === 0) return
      // A start slot is taken at once, so that concurrent callers get distinct slots; after a
      // pause, callers take them one by one as they wake, so that starts resume at the rate.
      const now = this.now()
      const slot = Math.max(now, this.nextStart)
      this.nextStart = slot + this.intervalMs
      if (slot > now) await this.sleep(slot - now)
      // A pause that began while this caller waited for its slot: a fresh slot after it.
      if (this.pausedUntil <= this.now()) return
    }
  }

  pause(ms: number): void {
    this.pausedUntil = Math.max(this.pausedUntil, this.now() + ms)
    // Slots taken before the pause and falling in it are given up; none is given twice.
    this.nextStart = Math.max(this.nextStart, this.pausedUntil)
  }
}
