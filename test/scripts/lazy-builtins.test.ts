import { createHash } from 'node:crypto'
import { createRequire } from 'node:module'
// @ts-expect-error: plain JavaScript, run by npm run bundle
import { lazyBuiltins } from '../../scripts/lazy-builtins.js'

/** A main chunk's shape as terser leaves it: the node:crypto external, and core's summary read. */
const CHUNK =
  'var e={7598:(e=>{e.exports=t(import.meta.url)("node:crypto")})};' +
  'const l=t(import.meta.url)("fs");t(import.meta.url)("crypto");' +
  'const{access:h,appendFile:f,writeFile:p}=l.promises;'

/**
 * Runs a rewritten chunk with a require that records what it loads: `t` is ncc's createRequire.
 * Returns what it loaded and the chunk's module table and core's three functions.
 */
function run(code: string): {
  loaded: string[]
  requires: number
  table: Record<number, (m: { exports?: unknown }) => void>
  fns: unknown[]
} {
  const loaded: string[] = []
  const real = createRequire(import.meta.url)
  let requires = 0
  const t = () => {
    requires++
    return (id: string) => {
      loaded.push(id)
      return real(id)
    }
  }
  const body = code.replaceAll('import.meta.url', '"x"') + ';return {table: e, fns: [h, f, p]}'
  const out = new Function('t', body)(t) as {
    table: Record<number, (m: { exports?: unknown }) => void>
    fns: unknown[]
  }
  return {
    loaded,
    get requires() {
      return requires
    },
    ...out
  }
}

describe('lazyBuiltins', () => {
  it('loads node:crypto on first use only, and it then works as node:crypto', () => {
    const { loaded, table } = run(lazyBuiltins(CHUNK))
    const module: { exports?: Record<string, unknown> } = {}
    table[7598](module)
    const crypto = module.exports as typeof import('node:crypto')
    expect(loaded).toEqual(['fs'])
    // webpack's interop asks for __esModule: that alone loads nothing.
    expect((crypto as unknown as Record<string, unknown>).__esModule).toBeUndefined()
    expect(loaded).toEqual(['fs'])
    expect(crypto.createHash('sha256').update('x').digest('hex')).toBe(createHash('sha256').update('x').digest('hex'))
    expect(loaded).toEqual(['fs', 'node:crypto'])
    expect('randomUUID' in crypto).toBe(true)
    expect(Object.keys(crypto)).toContain('createHash')
  })

  it('makes one require for every builtin the chunk loads', () => {
    const chunk = lazyBuiltins(CHUNK + 'const u=t(import.meta.url)("node:url"),o=t(import.meta.url)("os");')
    const loads = run(chunk)
    expect(loads.loaded).toEqual(['fs', 'node:url', 'os'])
    expect(loads.requires).toBe(1)
    const module: { exports?: Record<string, unknown> } = {}
    loads.table[7598](module)
    expect(typeof (module.exports as typeof import('node:crypto')).randomUUID).toBe('function')
    expect(loads.requires).toBe(1)
  })

  it("makes core's summary read fs.promises when called, not as it loads", async () => {
    const { loaded, fns } = run(lazyBuiltins(CHUNK))
    const [access] = fns as [(path: string) => Promise<void>]
    expect(loaded).not.toContain('node:crypto')
    await expect(access(import.meta.dirname)).resolves.toBeUndefined()
    await expect(access('/no/such/path')).rejects.toThrow('ENOENT')
  })

  it('fails the build when ncc, terser or @actions/core writes either differently', () => {
    expect(() => lazyBuiltins('const{access:h,appendFile:f,writeFile:p}=l.promises;')).toThrow(
      'no require of node:crypto found'
    )
    expect(() => lazyBuiltins('t(import.meta.url)("node:crypto")')).toThrow('fs.promises read found 0 times, not once')
    expect(() => lazyBuiltins(CHUNK + CHUNK)).toThrow('found 2 times, not once')
  })
})
