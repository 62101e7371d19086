import { describe, expect, it } from '@jest/globals'
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { POOL_BYTES, RandomPool, randomHex } from '../src/random.js'

describe('randomHex', () => {
  it('gives the bytes asked for, in hex, never the same twice', () => {
    const seen = new Set<string>()
    for (let i = 0; i < 200; i++) {
      const hex = randomHex(16)
      expect(hex).toMatch(/^[0-9a-f]{32}$/)
      seen.add(hex)
    }
    expect(seen.size).toBe(200)
  })
})

describe('RandomPool', () => {
  const dir = mkdtempSync(join(tmpdir(), 'm2m-random-'))

  it('gives out each byte of what it read once, in order, and reads again when they run out', () => {
    // A "device" of known bytes: 0, 1, 2, … 255, 0, 1, … for the first pool; then it runs dry.
    const device = join(dir, 'known')
    writeFileSync(device, Buffer.from(Array.from({ length: POOL_BYTES }, (_, i) => i % 256)))
    const pool = new RandomPool(device)
    expect(pool.hex(3)).toBe('000102')
    expect(pool.hex(2)).toBe('0304')
    let given = 5
    while (given + 6 <= POOL_BYTES) {
      pool.hex(6)
      given += 6
    }
    // The rest of the pool cannot give 6 bytes: it reads the device again, from its start.
    expect(pool.hex(6)).toBe('000102030405')
  })

  it('gives a whole pool, and the rest of a pool, from the bytes it read', () => {
    const device = join(dir, 'counting')
    const bytes = Buffer.from(Array.from({ length: POOL_BYTES }, (_, i) => (i * 7) % 256))
    writeFileSync(device, bytes)
    expect(new RandomPool(device).hex(POOL_BYTES)).toBe(bytes.toString('hex'))
    const pool = new RandomPool(device)
    expect(pool.hex(3)).toBe(bytes.subarray(0, 3).toString('hex'))
    // Exactly what is left: from this pool, not a new read from the device's start.
    expect(pool.hex(POOL_BYTES - 3)).toBe(bytes.subarray(3).toString('hex'))
  })

  it('closes the device after each read', () => {
    const device = join(dir, 'closed')
    writeFileSync(device, Buffer.alloc(POOL_BYTES, 9))
    const open = (): number => readdirSync('/proc/self/fd').length
    const before = open()
    for (let i = 0; i < 50; i++) new RandomPool(device).hex(1)
    expect(open()).toBe(before)
  })

  it('falls back to node:crypto where there is no device, or it gives too few bytes', () => {
    for (const device of [join(dir, 'missing'), join(dir, 'short')]) {
      writeFileSync(join(dir, 'short'), Buffer.alloc(POOL_BYTES - 1))
      const pool = new RandomPool(device)
      const a = pool.hex(16)
      const b = pool.hex(16)
      expect(a).toMatch(/^[0-9a-f]{32}$/)
      expect(a).not.toBe(b)
      expect(a).not.toBe('0'.repeat(32))
    }
  })

  it('asks node:crypto for more than a pool holds', () => {
    const device = join(dir, 'zeros')
    writeFileSync(device, Buffer.alloc(POOL_BYTES))
    const pool = new RandomPool(device)
    const hex = pool.hex(POOL_BYTES + 1)
    expect(hex).toHaveLength(2 * (POOL_BYTES + 1))
    expect(hex).not.toBe('0'.repeat(2 * (POOL_BYTES + 1)))
    // The pool itself is untouched: the device's bytes (zeros) come next.
    expect(pool.hex(4)).toBe('00000000')
  })
})
