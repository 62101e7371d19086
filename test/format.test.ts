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
    [300, '5 min'],
    [5400, '1 h 30 min'],
    [86400, '24 h']
  ])('%d s -> %s', (n, text) => {
    expect(formatDuration(n)).toBe(text)
  })
})
