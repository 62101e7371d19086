import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { LineContext, LineFields, Outcome, OUTCOMES, resultBody, resultLine } from '../../src/routine/lines.js'
import {
  parseResultLine,
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

describe('parseResultLine', () => {
  it.each(OUTCOMES.map(o => [o] as [Outcome]))('reads the action own %s line', outcome => {
    expect(parseResultLine(line({ outcome, status: 503, error: 'x', attempts: 2, ms: 5 }))).toEqual(
      facts({ outcome, status: 503 })
    )
  })

  it('reads status null, no shard and a first attempt', () => {
    expect(parseResultLine(line({ outcome: 'unknown', status: null }, { fingerprint: 'ffff', runAttempt: 1 }))).toEqual(
      facts({ call: 'ffff', outcome: 'unknown', status: null, runAttempt: 1, shard: null })
    )
  })

  it.each([
    ['quotes and backslashes', 'a"b\\c'],
    ['a line break and unicode', 'x\ny\u2028é'],
    ['JSON of a target without id', '{"name":"n","n":1}'],
    ['an empty key', '']
  ])('reads a key with %s', (_, key) => {
    expect(parseResultLine(line({ key, body: resultBody('{"key":"other"}') }))?.key).toBe(key)
  })

  it('reads the head of its own lines without parsing the body', () => {
    // A resume reads a million lines: the fields it needs come first, the rest is not parsed.
    const own =
      '{"key":"k\\"1","call":"0123456789abcdef","outcome":"failed","status":503,"runAttempt":123456789,"shard":"12/16","body":{not json}'
    expect(parseResultLine(own)).toEqual(
      facts({ key: 'k"1', outcome: 'failed', status: 503, runAttempt: 123456789, shard: '12/16' })
    )
  })

  it('reads a head with no status, no shard and a plain key without parsing the body', () => {
    const own = '{"key":"plain","call":"c","outcome":"unknown","status":null,"runAttempt":1,"shard":null,"body":{x}'
    expect(parseResultLine(own)).toEqual({
      key: 'plain',
      call: 'c',
      outcome: 'unknown',
      status: null,
      runAttempt: 1,
      shard: null
    })
  })

  it('does not take a line that only contains a head for one', () => {
    const head = '{"key":"a","call":"c","outcome":"failed","status":503,"runAttempt":1,"shard":null,"body":{x}'
    expect(parseResultLine(`x${head}`)).toBeUndefined()
    expect(parseResultLine(`${head} `)).toBeUndefined()
    expect(parseResultLine(head.replace('}', ''))).toBeUndefined()
  })

  it('refuses an outcome it does not know, even in a line of its own shape', () => {
    expect(parseResultLine(line().replace('"succeeded"', '"done"'))).toBeUndefined()
    expect(parseResultLine(line().replace('"succeeded"', '"DONE"'))).toBeUndefined()
  })

  it.each([
    [
      'another field order',
      '{"outcome":"failed","status":500,"call":"c","key":"k","runAttempt":3,"shard":"1/2"}',
      { key: 'k', call: 'c', outcome: 'failed', status: 500, runAttempt: 3, shard: '1/2' }
    ],
    [
      'spaces',
      '{ "key": "k", "call": "c", "outcome": "skipped", "status": null, "runAttempt": 2, "shard": null }',
      { key: 'k', call: 'c', outcome: 'skipped', status: null, runAttempt: 2, shard: null }
    ],
    [
      'no run attempt or shard',
      '{"key":"k","call":"c","outcome":"not-made","status":null}',
      { key: 'k', call: 'c', outcome: 'not-made', status: null, runAttempt: 0, shard: null }
    ],
    [
      'the lowest and highest status',
      '{"key":"k","call":"c","outcome":"failed","status":100,"runAttempt":0,"shard":null,"x":[999]}',
      { key: 'k', call: 'c', outcome: 'failed', status: 100, runAttempt: 0, shard: null }
    ],
    [
      'a status of 999',
      '{"call":"c","key":"k","outcome":"failed","status":999}',
      { key: 'k', call: 'c', outcome: 'failed', status: 999, runAttempt: 0, shard: null }
    ],
    [
      'an escaped shard',
      '{"key":"k","call":"c","outcome":"failed","status":500,"runAttempt":1,"shard":"1\\/2"}',
      { key: 'k', call: 'c', outcome: 'failed', status: 500, runAttempt: 1, shard: '1/2' }
    ]
  ])('reads a line written by another tool: %s', (_, text, expected) => {
    expect(parseResultLine(text)).toEqual(expected)
  })

  it.each([
    ['an empty line', ''],
    ['text', 'not json'],
    ['null', 'null'],
    ['a number', '42'],
    ['a string', '"key"'],
    ['an array', '["k","c","failed"]'],
    ['no key', '{"call":"c","outcome":"failed","status":500}'],
    ['a number key', '{"key":1,"call":"c","outcome":"failed","status":500}'],
    ['a number call', '{"key":"k","call":1,"outcome":"failed","status":500}'],
    ['no call', '{"key":"k","outcome":"failed","status":500}'],
    ['an unknown outcome', '{"key":"k","call":"c","outcome":"done","status":500}'],
    ['a string status', '{"key":"k","call":"c","outcome":"failed","status":"500"}'],
    ['no status', '{"key":"k","call":"c","outcome":"failed"}'],
    ['a string run attempt', '{"key":"k","call":"c","outcome":"failed","status":500,"runAttempt":"1"}'],
    ['a null run attempt', '{"key":"k","call":"c","outcome":"failed","status":500,"runAttempt":null}'],
    ['a number shard', '{"key":"k","call":"c","outcome":"failed","status":500,"shard":1}'],
    ['a status below 100', '{"key":"k","call":"c","outcome":"failed","status":99}'],
    ['a status above 999', '{"key":"k","call":"c","outcome":"failed","status":1000}'],
    ['a fractional status', '{"key":"k","call":"c","outcome":"failed","status":200.5}'],
    ['a negative run attempt', '{"key":"k","call":"c","outcome":"failed","status":500,"runAttempt":-1}'],
    ['a fractional run attempt', '{"key":"k","call":"c","outcome":"failed","status":500,"runAttempt":1.5}']
  ])('is undefined for %s', (_, text) => {
    expect(parseResultLine(text)).toBeUndefined()
  })
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
        `${file} line ${lineNumber} is not a result line of this action (it should be one JSON object with key, call and outcome)`
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
    expect(() => readResultFile(file, () => undefined, { torn: () => undefined })).toThrow(`${file} line 5 is`)
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
