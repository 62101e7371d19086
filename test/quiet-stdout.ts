// Jest's setupFiles: unit tests register secrets with the real @actions/core, which writes an
// `::add-mask::<secret>` workflow command to stdout for each. Meant for a runner, those lines read
// as leaked secrets in `npm test`'s output; they are dropped there. A test that checks them spies on
// process.stdout.write itself (captureStdout in helpers.ts), which this filter sits beneath.

type Write = typeof process.stdout.write

export const QUIET = Symbol.for('m2m.quiet-stdout')

/** `write` without the chunks that are ::add-mask:: commands. */
export function withoutMaskCommands(write: Write): Write {
  const filtered = function (this: unknown, chunk: unknown, ...rest: unknown[]): boolean {
    if (String(chunk).startsWith('::add-mask::')) {
      const done = rest.find(r => typeof r === 'function') as (() => void) | undefined
      done?.()
      return true
    }
    return (write as (...args: unknown[]) => boolean).call(this, chunk, ...rest)
  }
  return Object.assign(filtered, { [QUIET]: true }) as unknown as Write
}

if (!(QUIET in process.stdout.write)) process.stdout.write = withoutMaskCommands(process.stdout.write)
