/** What the runner sends to cancel a step: SIGINT, then SIGTERM 7.5 s later, then a kill 2.5 s after. */
export const SIGNALS = ['SIGINT', 'SIGTERM'] as const

export interface SignalSource {
  on(event: string, listener: (signal: string) => void): unknown
  off(event: string, listener: (signal: string) => void): unknown
}

/**
 * The step's cancellation: the first signal aborts `signal` (a routine drains), the second aborts
 * `hardStop` (a routine flushes and the step ends at once). `onSignal` is told of each, after them.
 */
export class Cancellation {
  private readonly first = new AbortController()
  private readonly second = new AbortController()
  private received = 0
  private readonly listener = (name: string): void => this.receive(name)

  constructor(
    private readonly source: SignalSource,
    private readonly onSignal: (name: string, count: number) => void
  ) {
    for (const name of SIGNALS) source.on(name, this.listener)
  }

  get signal(): AbortSignal {
    return this.first.signal
  }

  get hardStop(): AbortSignal {
    return this.second.signal
  }

  receive(name: string): void {
    this.received++
    if (this.received === 1) this.first.abort(name)
    else this.second.abort(name)
    this.onSignal(name, this.received)
  }

  dispose(): void {
    for (const name of SIGNALS) this.source.off(name, this.listener)
  }
}
