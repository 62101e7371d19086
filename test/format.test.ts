import { formatBytes, formatCount, formatDuration, formatElapsed, logSafe, quoted } from '../src/format.js'

describe('formatCount', () => {
  it.each([
    [0, '0'],
    [999, '999'],
    [1000, '1,000'],
    [10_240, '10,240'],
    [1_000_000, '1,000,000']
  ])('%d -> %s', (n, text) => {
    expect(formatCount(n)).toBe(text)
  })
})

describe('formatBytes', () => {
  it.each([
    [512, '512 B'],
    [1023, '1023 B'],
    [1024, '1 KiB'],
    [1024 * 1024 - 1, '1024 KiB'],
    [1024 * 1024, '1 MiB'],
    [1024 ** 3 - 1, '1024 MiB'],
    [1536, '1.5 KiB'],
    [128 * 1024, '128 KiB'],
    [100 * 1024 * 1024, '100 MiB'],
    [2 * 1024 ** 3, '2 GiB']
  ])('%d -> %s', (n, text) => {
    expect(formatBytes(n)).toBe(text)
  })
})

describe('formatDuration', () => {
  it.each([
    [42, '42 s'],
    [59.4, '59 s'],
    [59.6, '1 min'],
    [3599, '59 min'],
    [3600, '1 h'],
    [-5, '0 s'],
    [300, '5 min'],
    [5400, '1 h 30 min'],
    [86400, '24 h']
  ])('%d s -> %s', (n, text) => {
    expect(formatDuration(n)).toBe(text)
  })
})

describe('logSafe and quoted', () => {
  it.each([
    ['a plain name', 'results-1-3/r.jsonl', 'results-1-3/r.jsonl'],
    ['line breaks before a command', 'x\n::stop-commands::t\r\n::add-mask::y', 'x::stop-commands::t::add-mask::y'],
    ['C0, DEL and C1 controls', 'a\u0000\u0007\t\u001b[31mb\u007f\u0085\u009fc', 'a[31mbc'],
    ['line and paragraph separators', 'a\u2028b\u2029c', 'abc'],
    ['bidirectional controls', 'a\u202egpj.exe\u202c\u2066\u2069\u200e\u200f\u061cb', 'agpj.exeb'],
    ['other unicode, kept', 'ü ✓ 日本 \u00a0', 'ü ✓ 日本 \u00a0']
  ])('keeps %s from starting a log line', (_, text, safe) => {
    expect(logSafe(text)).toBe(safe)
    expect(quoted(text)).toBe(`"${safe}"`)
  })
})

describe('formatElapsed', () => {
  it.each<[number, string]>([
    [0, '0 ms'],
    [-5, '0 ms'],
    [51.4, '51 ms'],
    [999, '999 ms'],
    [1000, '1 s'],
    [4210, '4.2 s'],
    [9949, '9.9 s'],
    [9950, '10 s'],
    [42_400, '42 s'],
    [59_499, '59 s'],
    [59_500, '1 min'],
    [60_000, '1 min'],
    [185_000, '3 min 5 s'],
    [3_599_000, '59 min 59 s'],
    [3_600_000, '1 h'],
    [3_720_000, '1 h 2 min']
  ])('gives %i ms as %p', (ms, text) => {
    expect(formatElapsed(ms)).toBe(text)
  })
})
