import { mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync, writeSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ReportFile, ReportLine, reportLine } from '../../src/report/report-file.js'
import { mask, WITHHELD } from '../../src/secrets.js'

let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'm2m-report-file-'))
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

const done: ReportLine = { key: 't-1', outcome: 'succeeded', status: 201, runAttempt: 2, shard: '3/8' }
const missing: ReportLine = { key: 't-2', outcome: 'missing', status: null, runAttempt: null, shard: '1/8' }

describe('reportLine', () => {
  it.each([
    [done, '{"key":"t-1","outcome":"succeeded","status":201,"runAttempt":2,"shard":"3/8"}'],
    [missing, '{"key":"t-2","outcome":"missing","status":null,"runAttempt":null,"shard":"1/8"}'],
    [{ ...missing, shard: null }, '{"key":"t-2","outcome":"missing","status":null,"runAttempt":null,"shard":null}']
  ])('writes the fields in order: %j', (line, text) => {
    expect(reportLine(line)).toBe(text)
    expect(JSON.parse(reportLine(line))).toEqual(line)
  })

  it.each(['"quoted"\\', 'line\nbreak', '{"id":1}', '::error::x', '\u2028ü'])('escapes the key %j as JSON', key => {
    expect(JSON.parse(reportLine({ ...done, key })).key).toBe(key)
  })
})

describe('ReportFile', () => {
  it('writes one line per target into a new file of mode 0600', () => {
    const file = new ReportFile(dir)
    file.add(done)
    file.add(missing)
    file.close()
    file.close()
    expect(file.path).toBe(join(dir, readdirSync(dir)[0]))
    expect(file.path).toMatch(/report-[0-9a-f]{12}\.jsonl$/)
    expect(statSync(file.path).mode & 0o777).toBe(0o600)
    expect(readFileSync(file.path, 'utf8')).toBe(`${reportLine(done)}\n${reportLine(missing)}\n`)
  })

  it('writes in 64 KiB blocks, and a line longer than a block whole', () => {
    const writes: number[] = []
    const counting = ((fd: number, bytes: Uint8Array, offset: number, length: number) => {
      writes.push(length)
      return writeSync(fd, bytes, offset, length)
    }) as typeof writeSync
    const file = new ReportFile(dir, counting)
    const lines = Array.from({ length: 2000 }, (_, i) => ({ ...done, key: `ü-${i}` }))
    const long = { ...done, key: 'k'.repeat(100_000) }
    for (const line of lines.slice(0, 1000)) file.add(line)
    file.add(long)
    for (const line of lines.slice(1000)) file.add(line)
    file.close()
    const expected = [...lines.slice(0, 1000), long, ...lines.slice(1000)].map(l => `${reportLine(l)}\n`).join('')
    expect(readFileSync(file.path, 'utf8')).toBe(expected)
    expect(writes.every(n => n <= 64 * 1024 || n === Buffer.byteLength(`${reportLine(long)}\n`))).toBe(true)
    expect(writes.reduce((a, b) => a + b, 0)).toBe(Buffer.byteLength(expected))
    expect(writes.length).toBeLessThan(10)
  })

  it('fills a block to its last byte before it writes it', () => {
    const writes: number[] = []
    const counting = ((fd: number, bytes: Uint8Array, offset: number, length: number) => {
      writes.push(length)
      return writeSync(fd, bytes, offset, length)
    }) as typeof writeSync
    const base = `${reportLine({ ...done, key: '' })}\n`.length
    const sized = (length: number) => ({ ...done, key: 'k'.repeat(length - base) })
    // 5,536 bytes used, and a line of 20,000 that may take up to 60,000: exactly 64 KiB, which fits.
    const fits = new ReportFile(dir, counting)
    fits.add(sized(5536))
    fits.add(sized(20_000))
    fits.close()
    expect(writes).toEqual([25_536])
    writes.length = 0
    const over = new ReportFile(dir, counting)
    over.add(sized(5537))
    over.add(sized(20_000))
    over.close()
    expect(writes).toEqual([5537, 20_000])
    expect(readFileSync(over.path, 'utf8')).toBe(`${reportLine(sized(5537))}\n${reportLine(sized(20_000))}\n`)
  })

  it('writes nothing for a report without a line', () => {
    const writes: number[] = []
    const counting = ((fd: number, bytes: Uint8Array, offset: number, length: number) => {
      writes.push(length)
      return writeSync(fd, bytes, offset, length)
    }) as typeof writeSync
    const file = new ReportFile(dir, counting)
    file.close()
    expect(writes).toEqual([])
    expect(readFileSync(file.path, 'utf8')).toBe('')
  })

  it('discards once: again, or a close after it, does nothing', () => {
    const file = new ReportFile(dir)
    file.add(done)
    file.discard()
    expect(() => file.discard()).not.toThrow()
    expect(() => file.close()).not.toThrow()
    expect(readdirSync(dir)).toEqual([])
  })

  // Linux lists a process's open files in /proc/self/fd.
  const onLinux = process.platform === 'linux' ? it : it.skip
  const openOn = (path: string) =>
    readdirSync('/proc/self/fd').filter(fd => {
      try {
        // A removed file's descriptor links to "<path> (deleted)".
        return readlinkSync(join('/proc/self/fd', fd)).replace(/ \(deleted\)$/, '') === path
      } catch {
        return false
      }
    })

  onLinux('leaves no descriptor open once closed or discarded', () => {
    const closed = new ReportFile(dir)
    closed.add(done)
    expect(openOn(closed.path)).toHaveLength(1)
    closed.close()
    expect(openOn(closed.path)).toEqual([])
    const discarded = new ReportFile(dir)
    discarded.add(done)
    discarded.discard()
    expect(openOn(discarded.path)).toEqual([])
  })

  onLinux('closes the file when the last write fails', () => {
    const full = (() => {
      throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' })
    }) as typeof writeSync
    const file = new ReportFile(dir, full)
    file.add(done)
    expect(() => file.close()).toThrow('ENOSPC')
    expect(openOn(file.path)).toEqual([])
  })

  it('redacts each line', () => {
    mask('report-file-secret-31')
    const file = new ReportFile(dir)
    file.add({ ...done, key: 'id-report-file-secret-31' })
    file.close()
    expect(readFileSync(file.path, 'utf8')).toBe(`${reportLine({ ...done, key: 'id-***' })}\n`)
  })

  it('keeps each line JSON where redaction would withhold its whole text', () => {
    // Cutting this secret out leaves it whole again: redact() withholds the whole text.
    mask('p4ss***word-secret')
    const file = new ReportFile(dir)
    file.add({ ...done, key: 'p4ssp4ss***word-secretword-secret' })
    file.close()
    expect(JSON.parse(readFileSync(file.path, 'utf8'))).toEqual({ ...done, key: WITHHELD })
  })

  it('withholds the key when the parts of a line hold a secret only together', () => {
    // A run of 12 of it stands only across the key and the field after it.
    mask('k-3-abc","outc')
    const file = new ReportFile(dir)
    file.add({ ...done, key: 'k-3-abc' })
    file.close()
    expect(JSON.parse(readFileSync(file.path, 'utf8'))).toEqual({ ...done, key: WITHHELD })
  })

  it('names the folder and what to do when the file cannot be made', () => {
    const missingDir = join(dir, 'missing')
    expect(() => new ReportFile(missingDir)).toThrow(
      new RegExp(`^Failed to write the report file in ${missingDir} \\(RUNNER_TEMP\\): ENOENT.*\\. Free disk space`)
    )
  })

  it('throws on a failed write, and discard removes the file', () => {
    const full = (() => {
      throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' })
    }) as typeof writeSync
    const file = new ReportFile(dir, full)
    file.add(done)
    expect(() => file.close()).toThrow(
      `Failed to write the report file in ${dir} (RUNNER_TEMP): ENOSPC: no space left on device, write. Free disk space`
    )
    file.discard()
    file.discard()
    expect(readdirSync(dir)).toEqual([])
  })
})
