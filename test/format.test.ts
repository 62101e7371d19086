import { formatBytes, formatCount, formatDuration, formatElapsed, isoSeconds, logSafe, quoted } from '../src/format.js'

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

describe('isoSeconds', () => {
  const reference = (ms: number): string => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z')

  it.each([
    [0, '1970-01-01T00:00:00Z'],
    [Date.UTC(2026, 10, 23, 6, 0, 0, 999), '2026-11-23T06:00:00Z'],
    [Date.UTC(2024, 1, 29, 23, 59, 59, 500), '2024-02-29T23:59:59Z'],
    [Date.UTC(9999, 11, 31, 23, 59, 59), '9999-12-31T23:59:59Z'],
    [Date.parse('0005-01-02T03:04:05.678Z'), '0005-01-02T03:04:05Z']
  ])('%d -> %s', (ms, text) => {
    expect(isoSeconds(ms)).toBe(text)
  })

  it('writes any time to the second as toISOString does, past year 9999 and before year 0 too', () => {
    let seed = 7
    const next = (): number => (seed = (seed * 48271) % 2147483647) / 2147483647
    for (let i = 0; i < 2000; i++) {
      const ms = Math.floor((next() * 2 - 1) * 8.64e15)
      expect(isoSeconds(ms)).toBe(reference(ms))
    }
    expect(isoSeconds(253402300800000)).toBe('+010000-01-01T00:00:00Z')
    expect(isoSeconds(-62167219200001)).toBe('-000001-12-31T23:59:59Z')
  })
})
