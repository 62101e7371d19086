/**
 * How a step ends once its work is done: at once ('exit', process.exit()), or when its loop is empty
 * ('drain'). A step that ran a routine (it made its results file) drains: process.exit() shuts V8's
 * worker threads down while the heap is still live, and a background compile waiting there for a
 * garbage collection waits forever (nodejs/node#54918), a hang seen in 4 of 210 routines of 256
 * PUTs of 8 MiB with a core busy.
 */
export type Ending = 'exit' | 'drain'

/** How long a draining step may keep its loop busy before it is ended at once. */
export const DRAIN_MS = 5000

/**
 * Ends the process, with the exit code it would have had, once `work` has settled and nothing is
 * left to write to the log; if something is, when nothing is pending any more ('beforeExit'). A
 * natural exit first tears V8's heap down page by page, some 3 ms of a step that starts, lists and
 * ends in 130; waiting for the loop to empty took 1.3 ms more (the sockets' close). The log is
 * written synchronously to a pipe on Linux only: elsewhere a write may still be under way then.
 * 'exit' listeners run as they would. A step whose work asks to drain is left to end naturally,
 * unless something still holds its loop `DRAIN_MS` later.
 */
export function endWhenDone(
  work: Promise<Ending | void>,
  source: Pick<NodeJS.EventEmitter, 'once'> = process,
  exit = (): void => process.exit(),
  logWritten = (): boolean => process.stdout.writableLength === 0 && process.stderr.writableLength === 0,
  later = (end: () => void, ms: number): void => void setTimeout(end, ms).unref()
): void {
  let ended = false
  let draining = false
  const end = (): void => {
    if (ended) return
    ended = true
    exit()
  }
  source.once('beforeExit', () => {
    if (!draining) end()
  })
  void work.then(ending => {
    if (ending === 'drain') {
      draining = true
      later(end, DRAIN_MS)
    } else if (logWritten()) end()
  })
}
