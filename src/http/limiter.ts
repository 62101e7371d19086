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

  async ready(): Promise<void> {
    // A start slot is taken at once, so that concurrent callers get distinct slots.
    const now = this.now()
    const slot = this.intervalMs > 0 ? Math.max(now, this.nextStart) : now
    this.nextStart = slot + this.intervalMs
    for (;;) {
      const wait = Math.max(slot, this.pausedUntil) - this.now()
      if (wait <= 0) return
      await this.sleep(wait)
    }
  }

  pause(ms: number): void {
    this.pausedUntil = Math.max(this.pausedUntil, this.now() + ms)
  }
}
