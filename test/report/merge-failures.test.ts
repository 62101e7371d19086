import { mkdtempSync, readdirSync, readlinkSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PendingFailure, readFailures, statusText } from '../../src/report/merge-failures.js'
import { mask } from '../../src/secrets.js'
import { FP, line } from '../helpers.js'

let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'm2m-merge-failures-'))
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

const OTHER = 'fedcba9876543210'

const file = (name: string, lines: string[], { eol = '\n', end = eol }: { eol?: string; end?: string } = {}) => {
  const path = join(dir, name)
  writeFileSync(path, lines.join(eol) + end)
  return path
}

const pending = (key: string, file: string, overrides: Partial<PendingFailure> = {}): PendingFailure => ({
  key,
  status: 500,
  outcome: 'failed',
  runAttempt: 1,
  file,
  ...overrides
})

describe('statusText', () => {
  it.each([
    [500, 'HTTP 500'],
    [null, 'no response']
  ])('says %p as %p', (status, text) => {
    expect(statusText(status)).toBe(text)
  })
})

describe('readFailures', () => {
  it('takes the error, else the body as text or JSON, of each failure, in the order given', () => {
    const path = file('r.jsonl', [
      line('a', 'failed', 500, { error: 'boom' }),
      line('b', 'failed', 502, { body: '"body":"bad gateway"' }),
      line('c', 'failed', 409, { body: '"body":{"error":"conflict"}' }),
      line('d', 'unknown', null),
      line('e', 'failed', 500, { body: '"body":null' })
    ])
    const failures = readFailures(
      [
        pending('c', path, { status: 409 }),
        pending('a', path),
        pending('b', path, { status: 502 }),
        pending('d', path, { status: null, outcome: 'unknown' }),
        pending('e', path)
      ],
      FP
    )
    expect(failures).toEqual([
      { key: 'c', status: 'HTTP 409', outcome: 'failed', said: 'conflict' },
      { key: 'a', status: 'HTTP 500', outcome: 'failed', said: 'boom' },
      { key: 'b', status: 'HTTP 502', outcome: 'failed', said: 'bad gateway' },
      { key: 'd', status: 'no response', outcome: 'unknown', said: '' },
      { key: 'e', status: 'HTTP 500', outcome: 'failed', said: '' }
    ])
  })

  it('shows a JSON body’s message field unescaped, and the name a line carries', () => {
    const body = JSON.stringify({ error: { message: 'profile "nightly" is locked', code: 42 } })
    const path = file('r.jsonl', [
      line('a', 'failed', 409, { name: 'build-01', body: `"body":${body}` }),
      line('b', 'failed', 500, { name: '', body: `"body":${JSON.stringify(JSON.stringify({ detail: 'as text' }))}` }),
      line('c', 'failed', 500, { error: 'boom' }).replace('"index":0', '"index":0,"name":7')
    ])
    expect(readFailures([pending('a', path, { status: 409 }), pending('b', path), pending('c', path)], FP)).toEqual([
      { key: 'a', name: 'build-01', status: 'HTTP 409', outcome: 'failed', said: 'profile "nightly" is locked' },
      { key: 'b', status: 'HTTP 500', outcome: 'failed', said: 'as text' },
      { key: 'c', status: 'HTTP 500', outcome: 'failed', said: 'boom' }
    ])
  })

  it('reads a key written with escapes, as another tool may write it, and a key of one letter', () => {
    // A line is parsed only when it holds a key as it is, or a backslash: the escaped one holds no "é".
    const escaped = `{"key":"\\u00e9","call":"${FP}","outcome":"failed","status":500,"runAttempt":1,"shard":null,"error":"via escape"}`
    const path = file('r.jsonl', [
      line('x', 'failed', 500, { error: 'other' }),
      escaped,
      line('b', 'failed', 503, { error: 'one letter' })
    ])
    expect(readFailures([pending('é', path), pending('b', path, { status: 503 })], FP)).toEqual([
      { key: 'é', status: 'HTTP 500', outcome: 'failed', said: 'via escape' },
      { key: 'b', status: 'HTTP 503', outcome: 'failed', said: 'one letter' }
    ])
  })

  it('says nothing of a failure whose line is not in its file', () => {
    const path = file('r.jsonl', [line('a', 'failed', 500, { error: 'boom' })])
    expect(readFailures([pending('z', path)], FP)).toEqual([
      { key: 'z', status: 'HTTP 500', outcome: 'failed', said: '' }
    ])
  })

  it('takes the last line of the winning attempt, not a later line of an earlier attempt', () => {
    const path = file('r.jsonl', [
      line('a', 'failed', 500, { attempt: 2, error: 'first of 2' }),
      line('a', 'failed', 500, { attempt: 2, error: 'last of 2' }),
      line('a', 'failed', 500, { attempt: 1, error: 'of 1' })
    ])
    expect(readFailures([pending('a', path, { runAttempt: 2 })], FP)[0].said).toBe('last of 2')
  })

  it('takes the line of the winning attempt exactly, up to the highest a line may claim', () => {
    const path = file('r.jsonl', [
      line('a', 'failed', 500, { attempt: 100_000, error: 'late' }),
      line('a', 'failed', 500, { attempt: 99_999, error: 'early' })
    ])
    expect(readFailures([pending('a', path, { runAttempt: 100_000 })], FP)[0].said).toBe('late')
  })

  it('says a body nested deeper than 64 levels is so, and writes one of 64 levels', () => {
    const nested = (depth: number) => `${'['.repeat(depth)}"deep"${']'.repeat(depth)}`
    const path = file('r.jsonl', [
      line('a', 'failed', 500, { body: `"body":${nested(6000)}` }),
      line('b', 'failed', 500, { body: `"body":${nested(65)}` }),
      line('c', 'failed', 500, { body: `"body":${nested(64)}` })
    ])
    expect(readFailures([pending('a', path), pending('b', path), pending('c', path)], FP).map(f => f.said)).toEqual([
      '(a body nested more than 64 levels deep)',
      '(a body nested more than 64 levels deep)',
      nested(64)
    ])
  })

  it('says nothing of the failures of a file that is gone, and still reads the others', () => {
    const gone = join(dir, 'gone.jsonl')
    const path = file('r.jsonl', [line('b', 'failed', 500, { error: 'here' })])
    expect(readFailures([pending('a', gone), pending('b', path)], FP).map(f => f.said)).toEqual(['', 'here'])
  })

  it('reads a file that starts with a byte-order mark', () => {
    const path = join(dir, 'bom.jsonl')
    writeFileSync(path, `\ufeff${line('a', 'failed', 500, { error: 'boom' })}\n`)
    expect(readFailures([pending('a', path)], FP)[0].said).toBe('boom')
  })

  it('skips lines of another call, planned lines and lines that are not result lines', () => {
    const path = file('r.jsonl', [
      'not a result line',
      line('a', 'failed', 500, { error: 'mine' }),
      line('a', 'failed', 503, { call: OTHER, error: 'theirs' }),
      line('a', 'planned', null),
      '{"key":"a"}',
      ''
    ])
    expect(readFailures([pending('a', path)], FP)[0].said).toBe('mine')
  })

  it('reads each failure from its own file only', () => {
    const early = file('1.jsonl', [line('a', 'failed', 500, { error: 'early' }), line('c', 'failed', 500)])
    const late = file('2.jsonl', [line('a', 'failed', 502, { error: 'late' }), line('b', 'failed', 500)])
    const failures = readFailures(
      [pending('a', late, { status: 502 }), pending('c', early), pending('b', early, { outcome: 'unknown' })],
      FP
    )
    expect(failures.map(f => [f.key, f.said])).toEqual([
      ['a', 'late'],
      ['c', ''],
      ['b', '']
    ])
  })

  it('says nothing of a line that starts as a result line but is not JSON', () => {
    const broken = `${line('a', 'failed', 500, { error: 'boom' }).slice(0, -1)},"x":}`
    const path = file('r.jsonl', [broken])
    expect(readFailures([pending('a', path)], FP)[0].said).toBe('')
  })

  it('reads lines that end in CRLF, the last one without its line break', () => {
    const path = file(
      'r.jsonl',
      [line('a', 'failed', 500, { error: 'one' }), line('b', 'failed', 500, { error: 'two' })],
      { eol: '\r\n', end: '\r' }
    )
    expect(readFailures([pending('a', path), pending('b', path)], FP).map(f => f.said)).toEqual(['one', 'two'])
  })

  it('drops only the carriage return that ends a line', () => {
    // A raw CR inside a JSON string is not JSON: the excerpt is empty, not the text without the CR.
    const inner = (key: string) => `${line(key, 'failed', 500).slice(0, -1)},"error":"x\ry"}`
    const path = file('r.jsonl', [inner('a'), inner('b')], { eol: '\r\n', end: '\r' })
    expect(readFailures([pending('a', path), pending('b', path)], FP).map(f => f.said)).toEqual(['', ''])
  })

  it('reads a file larger than its 64 KiB block, with characters across the blocks', () => {
    const lines = Array.from({ length: 400 }, (_, i) =>
      line(`k${i}`, 'failed', 500, { error: `${'é'.repeat(150)}-${i}` })
    )
    const path = file('r.jsonl', lines)
    const failures = readFailures([pending('k0', path), pending('k199', path), pending('k399', path)], FP)
    expect(failures.map(f => f.said)).toEqual([
      `${'é'.repeat(150)}-0`,
      `${'é'.repeat(150)}-199`,
      `${'é'.repeat(150)}-399`
    ])
  })

  it('cuts and redacts the excerpt', () => {
    mask('failures-secret-93')
    const path = file('r.jsonl', [line('a', 'failed', 500, { error: `failures-secret-93 ${'y'.repeat(300)}` })])
    expect(readFailures([pending('a', path)], FP)[0].said).toBe(`*** ${'y'.repeat(156)}…`)
  })

  // Linux lists a process's open files in /proc/self/fd.
  const onLinux = process.platform === 'linux' ? it : it.skip
  onLinux('closes every file it reads', () => {
    const path = file('r.jsonl', [line('a', 'failed', 500, { error: 'boom' })])
    const open = () =>
      readdirSync('/proc/self/fd').filter(fd => {
        try {
          return readlinkSync(join('/proc/self/fd', fd)) === path
        } catch {
          return false
        }
      })
    readFailures([pending('a', path)], FP)
    expect(open()).toEqual([])
  })
})
