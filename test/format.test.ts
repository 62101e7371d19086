import { formatBytes, formatCount, formatDuration } from '../src/format.js'

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
