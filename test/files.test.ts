import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { writeAll } from '../src/files.js'

let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'm2m-files-'))
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

describe('writeAll', () => {
  it('writes the rest after a short write, until every byte is on disk', () => {
    const path = join(dir, 'out')
    const fd = openSync(path, 'w')
    const calls: [number, number][] = []
    // A disk that takes at most 3 bytes a write, as a nearly full one may.
    const short = ((f: number, b: Uint8Array, offset: number, length: number) => {
      calls.push([offset, length])
      return writeSync(f, b, offset, Math.min(3, length))
    }) as typeof writeSync
    writeAll(fd, Buffer.from('{"id":"ü"}\n'), short)
    closeSync(fd)
    expect(readFileSync(path, 'utf8')).toBe('{"id":"ü"}\n')
    expect(calls).toEqual([
      [0, 12],
      [3, 9],
      [6, 6],
      [9, 3]
    ])
  })

  it('throws on a write of no byte instead of trying forever', () => {
    const stuck = (() => 0) as unknown as typeof writeSync
    expect(() => writeAll(1, Buffer.from('abc'), stuck)).toThrow('no byte was written, 3 left to write')
  })

  it('writes nothing for no bytes', () => {
    const never = (() => {
      throw new Error('called')
    }) as unknown as typeof writeSync
    expect(() => writeAll(1, Buffer.alloc(0), never)).not.toThrow()
  })
})
