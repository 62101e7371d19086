import { closeSync, mkdtempSync, readFileSync, rmSync, statSync, writeSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, dirname, join } from 'node:path'
import { RecordOptions, ResultsRecord, RESULTS_BODY_CAP_BYTES } from '../../src/routine/record.js'
import { mask } from '../../src/secrets.js'

type Write = typeof writeSync

let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'm2m-record-'))
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

const infos: string[] = []
beforeEach(() => {
  infos.length = 0
})
const record = (overrides: Partial<RecordOptions> = {}) =>
  new ResultsRecord({ dir, info: m => infos.push(m), ...overrides })
const contents = (r: ResultsRecord) => readFileSync(r.path, 'utf8')

/** A writer that writes at most `size` bytes a call, as a nearly full disk may. */
const chunked = (size: number, calls: number[] = []): Write =>
  ((fd: number, buffer: Uint8Array, offset: number, length: number) => {
    calls.push(length)
    return writeSync(fd, buffer, offset, Math.min(size, length))
  }) as Write

/** A writer that writes the first block whole, then 10 bytes of the next, then finds the disk full. */
function fullOnSecondBlock() {
  let blocks = 0
  const write = ((fd: number, buffer: Uint8Array, offset: number, length: number) => {
    if (offset === 0) blocks++
    if (blocks === 1) return writeSync(fd, buffer, offset, length)
    if (offset === 0) return writeSync(fd, buffer, 0, 10)
    throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' })
  }) as Write
  return { write, blocks: () => blocks }
}

describe('ResultsRecord', () => {
  it('creates its own file in the folder, readable by the runner user only', () => {
    const r = record()
    expect(dirname(r.path)).toBe(dir)
    expect(basename(r.path)).toMatch(/^results-[0-9a-f]{12}\.jsonl$/)
    expect(statSync(r.path).mode & 0o777).toBe(0o600)
    expect(record().path).not.toBe(r.path)
    expect(contents(r)).toBe('')
    expect(r).toMatchObject({ unrecorded: 0, failure: undefined, keepsBodies: true })
    r.close()
  })

  it('names the folder and RUNNER_TEMP when the file cannot be created', () => {
    const missing = join(dir, 'gone')
    expect(() => record({ dir: missing })).toThrow(
      new RegExp(
        `^Failed to write the results file in ${missing} \\(RUNNER_TEMP\\): ENOENT.*\\. Free disk space on the runner`
      )
    )
  })

  it('keeps lines until 64 KiB are buffered, then writes them whole, each with its newline', () => {
    const calls: number[] = []
    const r = record({ write: chunked(Infinity, calls) })
    r.add('x'.repeat(64 * 1024 - 2)) // with its newline, one character short of 64 KiB
    expect(calls).toEqual([])
    expect(contents(r)).toBe('')
    r.add('')
    expect(calls).toEqual([64 * 1024])
    expect(contents(r)).toBe(`${'x'.repeat(64 * 1024 - 2)}\n\n`)
    r.add('{"a":1}')
    expect(calls).toHaveLength(1)
    r.close()
    expect(contents(r)).toBe(`${'x'.repeat(64 * 1024 - 2)}\n\n{"a":1}\n`)
    expect(calls).toHaveLength(2)
  })

  it('writes nothing for a flush with nothing buffered', () => {
    const calls: number[] = []
    const r = record({ write: chunked(Infinity, calls) })
    r.flush()
    r.add('a')
    r.flush()
    r.flush()
    r.close()
    expect(calls).toEqual([2])
    expect(contents(r)).toBe('a\n')
  })

  it('redacts each line as it keeps it', () => {
    mask('some-secret-value')
    const r = record()
    r.add('{"echo":"some-secret-value","n":1}')
    r.close()
    expect(contents(r)).toBe('{"echo":"***","n":1}\n')
  })

  it('writes every byte when the disk takes 3 at a time', () => {
    const calls: number[] = []
    const r = record({ write: chunked(3, calls) })
    r.add('{"key":"a"}')
    r.add('{"key":"b"}')
    r.close()
    expect(contents(r)).toBe('{"key":"a"}\n{"key":"b"}\n')
    expect(calls).toHaveLength(Math.ceil(24 / 3))
    expect(r).toMatchObject({ unrecorded: 0, failure: undefined })
  })

  it('keeps the whole lines written before a full disk, cut back to the last one, and counts the rest', () => {
    const { write, blocks } = fullOnSecondBlock()
    const r = record({ write })
    r.add('{"key":"a"}')
    r.add('{"key":"b"}')
    r.flush()
    r.add('{"key":"c"}')
    r.add('{"key":"d"}')
    r.add('{"key":"e"}')
    r.flush()
    expect(blocks()).toBe(2)
    expect(r.unrecorded).toBe(3)
    expect(r.failure?.message).toMatch(
      new RegExp(
        `^Failed to write the results file in ${dir} \\(RUNNER_TEMP\\): ENOSPC: no space left on device, write\\. Free disk space`
      )
    )
    expect(contents(r)).toBe('{"key":"a"}\n{"key":"b"}\n')
    r.add('{"key":"f"}')
    r.flush()
    r.close()
    expect(blocks()).toBe(2)
    expect(r.unrecorded).toBe(4)
    expect(contents(r)).toBe('{"key":"a"}\n{"key":"b"}\n')
  })

  it('writes nothing more after a failed write, counting every later line', () => {
    let n = 0
    const write = ((fd: number, buffer: Uint8Array, offset: number, length: number) => {
      if (++n === 1) throw new Error('EIO: first')
      return writeSync(fd, buffer, offset, length)
    }) as Write
    const r = record({ write })
    r.add('a')
    r.flush()
    r.add('b')
    r.close()
    expect(r.failure?.message).toContain('EIO: first')
    expect(r.unrecorded).toBe(2)
    expect(contents(r)).toBe('')
  })

  it('treats a write of no byte as a failure rather than looping', () => {
    const r = record({ write: (() => 0) as unknown as Write })
    r.add('a')
    r.close()
    expect(r.failure?.message).toContain('no byte was written, 2 left to write')
    expect(r.unrecorded).toBe(1)
  })

  it.each([
    [51, false],
    [52, true]
  ])('with a body cap of %i B, a flush of 51 B leaves keepsBodies %s', (cap, keeps) => {
    const r = record({ bodyCapBytes: cap })
    r.add('x'.repeat(50))
    r.flush()
    expect(r.keepsBodies).toBe(keeps)
    r.close()
  })

  it('stops keeping bodies after the flush that passes the cap, and says so once', () => {
    const r = record({ bodyCapBytes: 100 })
    r.add('x'.repeat(60))
    expect(r.keepsBodies).toBe(true)
    r.flush()
    expect(r.keepsBodies).toBe(true)
    r.add('y'.repeat(60))
    expect(r.keepsBodies).toBe(true)
    expect(infos).toEqual([])
    r.flush()
    expect(r.keepsBodies).toBe(false)
    expect(infos).toEqual([
      "The results file passed 100 B: from here on its lines keep their fields but not the service's bodies"
    ])
    r.add('z')
    r.close()
    expect(infos).toHaveLength(1)
    expect(contents(r)).toBe(`${'x'.repeat(60)}\n${'y'.repeat(60)}\nz\n`)
  })

  it('caps bodies at 1 GiB by default', () => {
    expect(RESULTS_BODY_CAP_BYTES).toBe(1024 * 1024 * 1024)
    const r = record()
    r.add('x'.repeat(1000))
    r.close()
    expect(r.keepsBodies).toBe(true)
  })

  it('does not cap bodies on a failed flush', () => {
    const r = record({ bodyCapBytes: 1, write: (() => 0) as unknown as Write })
    r.add('a')
    r.flush()
    expect(r.keepsBodies).toBe(true)
    expect(infos).toEqual([])
    r.close()
  })

  it('flushes on close, drops lines after it without counting them, and closes once', () => {
    const calls: number[] = []
    const r = record({ write: chunked(Infinity, calls) })
    r.add('a')
    r.close()
    r.close()
    r.add('b')
    r.flush()
    expect(contents(r)).toBe('a\n')
    expect(calls).toEqual([2])
    expect(r).toMatchObject({ unrecorded: 0, failure: undefined })
  })

  it('keeps a failed close as its failure', () => {
    const r = record()
    r.add('a')
    closeSync((r as unknown as { fd: number }).fd) // the descriptor is gone under it
    r.close()
    expect(r.failure?.message).toMatch(/^Failed to write the results file in .*EBADF/)
    const s = record()
    closeSync((s as unknown as { fd: number }).fd)
    s.close()
    expect(s.failure?.message).toMatch(/^Failed to close the results file: EBADF/)
  })
})
