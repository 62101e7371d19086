import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { LineContext, LineFields, resultLine } from '../../src/routine/lines.js'
import {
  eachLine,
  MAX_LINE_BYTES,
  readResultFile,
  ResultFacts,
  ResultFileError,
  resultFiles
} from '../../src/routine/result-files.js'

let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'm2m-result-files-'))
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

const context: LineContext = { fingerprint: '0123456789abcdef', runAttempt: 12, shard: '12/16' }
const line = (fields: Partial<LineFields> = {}, ctx: LineContext = context) =>
  resultLine(ctx, { key: 'a', outcome: 'succeeded', status: 200, index: 0, target: { id: 'a' }, ...fields })
const facts = (overrides: Partial<ResultFacts> = {}): ResultFacts => ({
  key: 'a',
  call: '0123456789abcdef',
  outcome: 'succeeded',
  status: 200,
  runAttempt: 12,
  shard: '12/16',
  ...overrides
})

describe('readResultFile', () => {
  const read = (text: string | Buffer) => {
    const file = join(dir, 'r.jsonl')
    writeFileSync(file, text)
    const seen: ResultFacts[] = []
    const torn: string[] = []
    readResultFile(file, f => seen.push(f), { torn: path => torn.push(path) })
    return { file, keys: seen.map(f => f.key), seen, torn }
  }

  it('hands over every line, skipping blank ones', () => {
    const { seen, torn } = read(`${line({ key: 'a' })}\n\n  \n${line({ key: 'b', outcome: 'failed', status: null })}\n`)
    expect(seen).toEqual([facts({ key: 'a' }), facts({ key: 'b', outcome: 'failed', status: null })])
    expect(torn).toEqual([])
  })

  it('reads CRLF lines, and a last line without its newline', () => {
    const { keys, torn } = read(`${line({ key: 'a' })}\r\n${line({ key: 'b' })}\r\n${line({ key: 'c' })}`)
    expect(keys).toEqual(['a', 'b', 'c'])
    expect(torn).toEqual([])
  })

  it('reports a torn last line and skips it', () => {
    const { file, keys, torn } = read(`${line({ key: 'a' })}\n${line({ key: 'b' }).slice(0, 30)}`)
    expect(keys).toEqual(['a'])
    expect(torn).toEqual([file])
  })

  it.each([
    ['a bad middle line', (a: string) => `${a}\n\n{"key":"b","ca\n${a}\n`, 3],
    ['a bad last line with its newline', (a: string) => `${a}\n${a}\ngarbage\n`, 3],
    ['a bad first line', (a: string) => `garbage\n${a}\n`, 1]
  ])('throws for %s, naming the file and the line', (_, text, lineNumber) => {
    const file = join(dir, 'bad.jsonl')
    writeFileSync(file, text(line()))
    expect(() => readResultFile(file, () => undefined, { torn: () => undefined })).toThrow(
      new ResultFileError(
        `"${file}" line ${lineNumber} is not a result line of this action: it should be one JSON object naming key, call, outcome, status, runAttempt and shard once each, in the shapes docs/routine.md gives`
      )
    )
  })

  it('reads a line split across its 1 MiB reads, and counts lines across them', () => {
    const a = line({ key: 'a' })
    const filler = 1024 * 1024 - 10 - (a.length + 1)
    const long = line({ key: 'long', error: 'x'.repeat(filler - 150) })
    const lines = [a, long, line({ key: 'straddling' }), line({ key: 'next' })]
    const text = `${lines.join('\n')}\n`
    const straddle = text.indexOf('straddling')
    expect(straddle).toBeLessThan(1024 * 1024)
    expect(text.indexOf('\n', straddle)).toBeGreaterThan(1024 * 1024)
    expect(read(text).keys).toEqual(['a', 'long', 'straddling', 'next'])
    // A multi-byte character cut by the chunk boundary is joined again.
    const wide = line({ key: `x${'é'.repeat(600_000)}` })
    expect(read(`${wide}\n${a}\n`).keys).toEqual([`x${'é'.repeat(600_000)}`, 'a'])
    const file = join(dir, 'bad.jsonl')
    writeFileSync(file, `${text}garbage\n${a}\n`)
    expect(() => readResultFile(file, () => undefined, { torn: () => undefined })).toThrow(`"${file}" line 5 is`)
  })

  it('reads a file of several chunks whose last line is torn', () => {
    const a = line({ key: 'a' })
    const lines = Array.from({ length: Math.ceil((3 * 1024 * 1024) / a.length) }, () => a)
    const { keys, torn, file } = read(`${lines.join('\n')}\n{"key":"b"`)
    expect(keys).toHaveLength(lines.length)
    expect(torn).toEqual([file])
  })

  it('reads an empty file as no lines', () => {
    expect(read('')).toMatchObject({ keys: [], torn: [] })
  })

  it('drops a byte-order mark that starts the file, and refuses one anywhere else', () => {
    const bom = Buffer.from([0xef, 0xbb, 0xbf])
    const a = line({ key: 'a', outcome: 'failed', status: 500 })
    expect(read(Buffer.concat([bom, Buffer.from(`${a}\n${line({ key: 'b' })}\n`)])).keys).toEqual(['a', 'b'])
    expect(read(bom)).toMatchObject({ keys: [], torn: [] })
    const file = join(dir, 'bom.jsonl')
    writeFileSync(file, Buffer.concat([Buffer.from(`${a}\n`), bom, Buffer.from(`${a}\n`)]))
    expect(() => readResultFile(file, () => undefined, { torn: () => undefined })).toThrow(`"${file}" line 2 is not`)
  })

  it('names a file by its name quoted, without the control characters it holds', () => {
    const folder = join(dir, 'x\n::stop-commands::t\u0085\u202e')
    mkdirSync(folder)
    const file = join(folder, 'r.jsonl')
    writeFileSync(file, 'garbage\n')
    expect(() => readResultFile(file, () => undefined, { torn: () => undefined })).toThrow(
      `"${join(dir, 'x::stop-commands::t', 'r.jsonl')}" line 1 is not a result line`
    )
  })
})

describe('eachLine', () => {
  const lines = (text: string | Buffer, max?: number) => {
    const file = join(dir, 'l.jsonl')
    writeFileSync(file, text)
    const seen: [string, number, boolean][] = []
    eachLine(file, (t, n, last) => seen.push([t, n, last]), max)
    return seen
  }

  it('gives each line with its number, a CR before its LF dropped, and says which is a last line without LF', () => {
    expect(lines('a\r\n\nb\rc\nd\r')).toEqual([
      ['a', 1, false],
      ['', 2, false],
      ['b\rc', 3, false],
      ['d', 4, true]
    ])
    expect(lines('a\n')).toEqual([['a', 1, false]])
    expect(lines('\r')).toEqual([['', 1, true]])
  })

  it('keeps a mark that is not a whole byte-order mark, and drops only the first', () => {
    expect(lines(Buffer.from([0xef, 0xbb]))).toEqual([['\ufffd', 1, true]])
    expect(lines(Buffer.from([0xef, 0xbb, 0xbf, 0xef, 0xbb, 0xbf, 0x61]))).toEqual([['\ufeffa', 1, true]])
    expect(lines(Buffer.from([0xef, 0xbb, 0xbe, 0x61]))[0][0]).not.toBe('a')
  })

  it('drops a file that is only a byte-order mark, and no three bytes that are not one', () => {
    expect(lines(Buffer.from([0xef, 0xbb, 0xbf]))).toEqual([])
    for (const head of [
      [0x41, 0xbb, 0xbf],
      [0xef, 0x41, 0xbf],
      [0xef, 0xbb, 0x41]
    ]) {
      const [[text]] = lines(Buffer.from([...head, 0x62]))
      expect(text).not.toBe('b')
      expect(text).toMatch(/A.*b$/)
    }
  })

  it('takes a line of the bound exactly in UTF-8, and a last line without LF of the bound exactly', () => {
    expect(lines('\u00e9'.repeat(5) + '\nb', 10)).toEqual([
      ['\u00e9'.repeat(5), 1, false],
      ['b', 2, true]
    ])
    expect(lines(`ok\n${'x'.repeat(10)}`, 10)).toEqual([
      ['ok', 1, false],
      ['x'.repeat(10), 2, true]
    ])
  })

  it(`takes a line of ${MAX_LINE_BYTES} bytes, and refuses a longer one, whether it ends the file or not`, () => {
    expect(lines(`${'x'.repeat(10)}\nabc`, 10)).toEqual([
      ['x'.repeat(10), 1, false],
      ['abc', 2, true]
    ])
    const file = join(dir, 'l.jsonl')
    const tooLong = (n: number) =>
      new ResultFileError(`"${file}" line ${n} is longer than 10 B, so it is not a result line of this action`)
    expect(() => lines(`ok\n${'x'.repeat(11)}\nok\n`, 10)).toThrow(tooLong(2))
    expect(() => lines(`ok\n${'x'.repeat(11)}`, 10)).toThrow(tooLong(2))
    expect(MAX_LINE_BYTES).toBe(16 * 1024 * 1024)
  })

  it('refuses a line past the bound across reads as soon as it has read past it', () => {
    const file = join(dir, 'l.jsonl')
    const long = 'y'.repeat(3 * 1024 * 1024)
    expect(lines(`a\n${long}\nb`, 3 * 1024 * 1024).map(([t, n]) => [t.length, n])).toEqual([
      [1, 1],
      [long.length, 2],
      [1, 3]
    ])
    expect(() => lines(`a\n${long}y\nb`, 3 * 1024 * 1024)).toThrow(
      new ResultFileError(`"${file}" line 2 is longer than 3 MiB, so it is not a result line of this action`)
    )
    // Not a byte more than the bound and a read is kept: the bytes past the line's start are counted.
    const seen: number[] = []
    expect(() => eachLine(file, t => seen.push(t.length), 3 * 1024 * 1024 - 1)).toThrow('line 2 is longer than')
    expect(seen).toEqual([1])
  })

  it('reads a file of ASCII lines across reads, with CRLF, empty lines and a line across each read', () => {
    // 64 KiB reads: lines of 99 bytes and their LF end anywhere in one.
    const texts = Array.from({ length: 5000 }, (_, i) => (i % 7 === 3 ? '' : `${i}`.padEnd(99, i % 2 ? 'x' : 'y')))
    const eols = texts.map((_, i) => (i % 5 === 0 ? '\r\n' : '\n'))
    const seen = lines(texts.map((t, i) => t + eols[i]).join(''))
    expect(seen).toEqual(texts.map((t, i) => [t, i + 1, false]))
  })

  it('gives the bytes of each line as read, its CR kept, while the line is handed over', () => {
    const file = join(dir, 'b.jsonl')
    const text = `a\r\n${'é'.repeat(40_000)}\n${'z'.repeat(70_000)}\nend`
    writeFileSync(file, text)
    const bytes: string[] = []
    eachLine(file, (_t, _n, _last, read) => bytes.push(read().toString('utf8')))
    expect(bytes).toEqual(['a\r', 'é'.repeat(40_000), 'z'.repeat(70_000), 'end'])
  })

  it('reads a file while another is read, each whole', () => {
    const outer = join(dir, 'outer.jsonl')
    const inner = join(dir, 'inner.jsonl')
    // Not ASCII: the lines after the second are cut from the read's bytes once it has been handed over.
    writeFileSync(outer, 'ö1\nö2\nö3\n')
    writeFileSync(inner, Array.from({ length: 20_000 }, (_, i) => `inner-${i}`).join('\n'))
    const seen: string[] = []
    let innerLines = 0
    eachLine(inner, () => innerLines++)
    eachLine(outer, t => {
      seen.push(t)
      if (t === 'ö2') eachLine(inner, () => innerLines++)
    })
    eachLine(inner, () => innerLines++)
    expect(seen).toEqual(['ö1', 'ö2', 'ö3'])
    expect(innerLines).toBe(60_000)
  })

  it('reads a file of many lines across reads, the bytes of a character split by a read joined again', () => {
    const text = Array.from({ length: 30_000 }, (_, i) => `é${i}${'ü'.repeat(i % 50)}`).join('\n')
    const seen = lines(text)
    expect(seen).toHaveLength(30_000)
    expect(seen.map(([t]) => t).join('\n')).toBe(text)
    expect(seen[29_999]).toEqual([`é29999${'ü'.repeat(49)}`, 30_000, true])
  })
})

describe('resultFiles', () => {
  const touch = (...parts: string[]) => {
    const path = join(dir, ...parts)
    mkdirSync(join(path, '..'), { recursive: true })
    writeFileSync(path, '')
    return path
  }

  it('gives a file as itself, whatever its name', () => {
    const file = touch('results.txt')
    expect(resultFiles(file, 'call-resume-from')).toEqual([file])
  })

  it('gives the *.jsonl files of a folder and of its folders, sorted, and nothing deeper', () => {
    // Made out of order, so that the listing's own order does not pass for sorted.
    touch('z.jsonl')
    touch('results-1-shard-2', 'r.jsonl')
    touch('b.txt')
    touch('a.jsonl')
    touch('results-1-shard-1', 'r.jsonl')
    touch('results-1-shard-1', 'deeper', 'x.jsonl')
    touch('results-1-shard-1', 'notes.json')
    touch('m.JSONL')
    touch('dir.jsonl', 'inner.jsonl')
    touch('c.jsonl')
    expect(resultFiles(dir, 'call-resume-from')).toEqual([
      join(dir, 'a.jsonl'),
      join(dir, 'c.jsonl'),
      join(dir, 'dir.jsonl', 'inner.jsonl'),
      join(dir, 'results-1-shard-1', 'r.jsonl'),
      join(dir, 'results-1-shard-2', 'r.jsonl'),
      join(dir, 'z.jsonl')
    ])
  })

  it('gives an empty folder as no files, and a missing path as undefined', () => {
    expect(resultFiles(dir, 'call-resume-from')).toEqual([])
    expect(resultFiles(join(dir, 'missing'), 'call-resume-from')).toBeUndefined()
  })

  it('refuses a path that is neither a file nor a folder, or cannot be read', () => {
    expect(() => resultFiles('/dev/null', 'call-resume-from')).toThrow(
      new ResultFileError('Input call-resume-from: /dev/null is neither a file nor a folder')
    )
    const below = join(touch('file.jsonl'), 'x')
    expect(() => resultFiles(below, 'some-input')).toThrow(
      new ResultFileError(`Input some-input: ${below} cannot be read (ENOTDIR: not a directory, stat '${below}')`)
    )
  })
})
