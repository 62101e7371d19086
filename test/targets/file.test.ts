import { jest } from '@jest/globals'
import { createHash } from 'node:crypto'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseExact } from '../../src/json.js'
import { shardOf } from '../../src/targets/shards.js'
import { jsonLines, MAX_OUTPUT_BYTES, PREVIEW_ROWS, TargetsFile } from '../../src/targets/file.js'
import { compileSelection } from '../../src/targets/select.js'

let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'm2m-targets-file-'))
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

const page = (from: number, n: number) => Array.from({ length: n }, (_, i) => ({ id: `t${from + i}` }))

describe('TargetsFile', () => {
  it('writes the pages as one JSON array, readable by its owner only', () => {
    const file = new TargetsFile({ dir })
    file.add(page(0, 3))
    file.add([])
    file.add(page(3, 2))
    const listing = file.finish()
    const text = readFileSync(listing.file, 'utf8')
    expect(JSON.parse(text)).toEqual(page(0, 5))
    // One target per line; the targets output holds the same array, compact.
    expect(text).toBe(
      `[\n${page(0, 5)
        .map(t => JSON.stringify(t))
        .join(',\n')}\n]\n`
    )
    const compact = JSON.stringify(page(0, 5))
    expect(listing).toMatchObject({ listed: 5, count: 5, bytes: Buffer.byteLength(compact), json: compact })
    expect(listing.digest).toBe(`sha256:${createHash('sha256').update(text).digest('hex')}`)
    expect(statSync(listing.file).mode & 0o777).toBe(0o600)
  })

  it('writes a page from its JSON as the response held it when every target is kept, else by JSON.stringify', async () => {
    const stringify = jest.spyOn(JSON, 'stringify')
    try {
      const written = (file: TargetsFile, targets: unknown[]) => {
        stringify.mockClear()
        file.add(targets, JSON.stringify(targets))
        return stringify.mock.calls.length - 1
      }
      const whole = new TargetsFile({ dir })
      expect(written(whole, page(0, 3))).toBe(0)
      const everyOne = new TargetsFile({ dir, select: await compileSelection('true') })
      expect(written(everyOne, page(0, 3))).toBe(0)
      const some = new TargetsFile({ dir, select: await compileSelection('id != "t1"') })
      expect(written(some, page(0, 3))).toBe(1)
      const shard = new TargetsFile({ dir, shard: { index: 1, count: 2 } })
      expect(written(shard, page(0, 40))).toBe(1)
      // The same file either way.
      const plain = new TargetsFile({ dir })
      plain.add(page(0, 3))
      const files = [whole, everyOne, plain].map(f => readFileSync(f.finish().file, 'utf8'))
      expect(files[0]).toBe(files[2])
      expect(files[1]).toBe(files[2])
      some.discard()
      shard.discard()
    } finally {
      stringify.mockRestore()
    }
  })

  it('keeps only the selected targets, then the shard of those, and counts each', async () => {
    const select = await compileSelection('status == "retired"')
    const targets = Array.from({ length: 60 }, (_, i) => ({ id: `t${i}`, status: i % 3 === 0 ? 'retired' : 'active' }))
    const all = new TargetsFile({ dir, select })
    all.add(targets.slice(0, 25))
    all.add(targets.slice(25))
    const selected = all.finish()
    const retired = targets.filter(t => t.status === 'retired')
    expect(JSON.parse(readFileSync(selected.file, 'utf8'))).toEqual(retired)
    expect(selected).toMatchObject({ listed: 60, selected: 20, count: 20, where: 'status == "retired"' })
    const sharded = new TargetsFile({ dir, select, shard: { index: 2, count: 3 } })
    sharded.add(targets)
    const share = sharded.finish()
    const kept = retired.filter(t => shardOf(t, 3) === 2)
    expect(share).toMatchObject({ listed: 60, selected: 20, count: kept.length })
    expect(JSON.parse(readFileSync(share.file, 'utf8'))).toEqual(kept)
  })

  it('names a target the selection fails on by its place in the whole list', async () => {
    const select = await compileSelection('region == "eu"')
    const file = new TargetsFile({ dir, select })
    file.add([{ region: 'eu' }, { region: 'us' }])
    expect(() => file.add([{ region: 'eu' }, { name: 'x' }])).toThrow(/on target #4 \(Unknown variable: region/)
    file.discard()
  })

  it('writes [] for an empty listing', () => {
    const listing = new TargetsFile({ dir }).finish()
    expect(readFileSync(listing.file, 'utf8')).toBe('[]\n')
    expect(listing).toMatchObject({ listed: 0, selected: 0, count: 0, json: '[]', preview: [] })
    expect(listing.where).toBeUndefined()
  })

  it('streams: what a page added is on disk before the listing ends', () => {
    const file = new TargetsFile({ dir })
    file.add(page(0, 2))
    expect(readFileSync(file.path, 'utf8')).toBe('[\n{"id":"t0"},\n{"id":"t1"}')
    file.discard()
  })

  it('counts the listed targets that have no string or number id, when it keeps a shard', () => {
    const targets = [{ id: 'a' }, { id: 7 }, { name: 'b' }, 'c', null, { id: { nested: 1 } }]
    const file = new TargetsFile({ dir, shard: { index: 1, count: 2 } })
    file.add(targets)
    expect(file.finish().withoutId).toBe(4)
    // Without a shard nothing places targets by their id: the count is not taken.
    const whole = new TargetsFile({ dir })
    whole.add(targets)
    expect(whole.finish().withoutId).toBe(0)
  })

  it('writes numbers exactly as they were sent', () => {
    const file = new TargetsFile({ dir })
    file.add(parseExact('[{"id":9007199254740993},{"id":1e400},{"id":1.50}]') as unknown[])
    const listing = file.finish()
    expect(readFileSync(listing.file, 'utf8')).toBe('[\n{"id":9007199254740993},\n{"id":1e400},\n{"id":1.50}\n]\n')
    expect(listing.json).toBe('[{"id":9007199254740993},{"id":1e400},{"id":1.50}]')
  })

  it('keeps only the shard, counting the whole listing', () => {
    const file = new TargetsFile({ dir, shard: { index: 2, count: 3 } })
    const all = page(0, 300)
    for (let i = 0; i < 300; i += 50) file.add(all.slice(i, i + 50))
    const listing = file.finish()
    const expected = all.filter(t => shardOf(t, 3) === 2)
    expect(JSON.parse(readFileSync(listing.file, 'utf8'))).toEqual(expected)
    expect(listing).toMatchObject({ listed: 300, count: expected.length, shard: { index: 2, count: 3 } })
  })

  it('shows onTarget every kept target, in order, as it is added', () => {
    const seen: unknown[] = []
    const file = new TargetsFile({ dir, shard: { index: 1, count: 2 }, onTarget: t => seen.push(t) })
    const all = page(0, 40)
    file.add(all.slice(0, 25))
    expect(seen).toEqual(all.slice(0, 25).filter(t => shardOf(t, 2) === 1))
    file.add(all.slice(25))
    const listing = file.finish()
    expect(seen).toEqual(JSON.parse(readFileSync(listing.file, 'utf8')))
  })

  it(`previews the first ${PREVIEW_ROWS} targets only`, () => {
    const file = new TargetsFile({ dir })
    file.add(page(0, 30))
    file.add(page(30, 30))
    expect(file.finish().preview).toEqual(page(0, PREVIEW_ROWS))
  })

  it('writes any text as UTF-8, on small pages and on a page larger than its buffer', () => {
    const targets = [{ id: 'é€😀', note: 'lone \ud800 surrogate' }, { id: 'ascii' }]
    const big = [{ id: 'big', blob: '€'.repeat(600_000) }]
    const file = new TargetsFile({ dir })
    file.add(targets)
    file.add(big)
    file.add(targets.slice(1))
    const listing = file.finish()
    const all = [...targets, ...big, ...targets.slice(1)]
    const text = `[\n${all.map(t => JSON.stringify(t)).join(',\n')}\n]\n`
    expect(readFileSync(listing.file)).toEqual(Buffer.from(text))
    expect(listing.bytes).toBe(Buffer.byteLength(JSON.stringify(all)))
    expect(listing.digest).toBe(`sha256:${createHash('sha256').update(text).digest('hex')}`)
  })

  it('gives the targets output as JSON.stringify writes the list, escaped newlines and all', () => {
    const targets = [
      { id: 'a', note: 'two\nlines\r\n' },
      { id: 'b', 'key\nwith newline': [1, { x: '\n' }] }
    ]
    const file = new TargetsFile({ dir })
    file.add(targets.slice(0, 1))
    file.add(targets.slice(1))
    expect(file.finish().json).toBe(JSON.stringify(targets))
  })

  it('holds the JSON for the targets output up to 1 MiB and not past it', () => {
    const id = 'x'.repeat(1000)
    const fits = new TargetsFile({ dir })
    // 1,034 targets of 1,013 bytes each, with commas and brackets: 1,048,477 bytes, just under 1 MiB.
    const target = (i: number) => ({ id: `${id}${String(i).padStart(4, '0')}` })
    const small = Array.from({ length: 1034 }, (_, i) => target(i))
    fits.add(small)
    const under = fits.finish()
    expect(under.bytes).toBe(1_048_477)
    expect(under.bytes).toBeLessThanOrEqual(MAX_OUTPUT_BYTES)
    expect(under.json).toBe(JSON.stringify(small))

    const over = new TargetsFile({ dir })
    over.add(small)
    over.add([target(9999)])
    const listing = over.finish()
    expect(listing.bytes).toBeGreaterThan(MAX_OUTPUT_BYTES)
    expect(listing.json).toBeUndefined()
    expect(JSON.parse(readFileSync(listing.file, 'utf8'))).toHaveLength(1035)
  })

  it('holds the JSON of a list of exactly 1 MiB, and not of one byte more', () => {
    // [{"id":"…"}]: 11 bytes around the id.
    const exactly = [{ id: 'x'.repeat(MAX_OUTPUT_BYTES - 11) }]
    const file = new TargetsFile({ dir })
    file.add(exactly)
    const listing = file.finish()
    expect(listing.bytes).toBe(MAX_OUTPUT_BYTES)
    expect(listing.json).toBe(JSON.stringify(exactly))
    const more = new TargetsFile({ dir })
    more.add([{ id: `${exactly[0].id}x` }])
    expect(more.finish().json).toBeUndefined()
  })

  it('accepts a list of exactly the size cap', () => {
    const file = new TargetsFile({ dir, maxBytes: 2 + JSON.stringify(page(0, 3)).length - 2 })
    file.add(page(0, 3))
    expect(file.finish().count).toBe(3)
  })

  it('fails past the size cap, and discard leaves nothing behind', () => {
    const file = new TargetsFile({ dir, maxBytes: 100 })
    file.add(page(0, 3))
    expect(() => file.add(page(3, 10))).toThrow(
      /^Failed to list targets: the list is larger than 100 B \(13 targets so far\), more than this action writes to disk/
    )
    file.discard()
    expect(readdirSync(dir)).toEqual([])
    file.discard() // twice is harmless
    expect(existsSync(file.path)).toBe(false)
  })
})

describe('jsonLines', () => {
  const oneByOne = (targets: unknown[]) => targets.map(t => JSON.stringify(t)).join(',\n')

  it('writes a page of objects one a line, as JSON.stringify writes each', () => {
    const targets = [{ id: 't1', tags: ['a', 'b'] }, { id: 't2', owner: { team: 'x' } }, {}, { id: 't4' }]
    expect(jsonLines(targets)).toBe(
      '{"id":"t1","tags":["a","b"]},\n{"id":"t2","owner":{"team":"x"}},\n{},\n{"id":"t4"}'
    )
    expect(jsonLines([{ id: 'only' }])).toBe('{"id":"only"}')
    expect(jsonLines([])).toBe('')
  })

  it.each([
    ['a "},{" in a string', [{ id: 'a', note: 'x},{y' }, { id: 'b' }]],
    ['objects in an array in a target', [{ id: 'a', hosts: [{ n: 1 }, { n: 2 }] }, { id: 'b' }]],
    ['a string beside an object holding "},{"', ['a', { note: '},{' }]],
    ['null beside an object holding "},{"', [null, { note: '},{' }]],
    ['an array beside an object holding "},{"', [[1], { note: '},{' }]],
    ['a number beside an object holding "},{"', [7, { note: '},{' }]],
    [
      'a number kept as sent beside an object holding "},{"',
      parseExact('[12345678901234567890, {"note":"},{"}]') as unknown[]
    ]
  ])('breaks lines only between targets: %s', (_, targets) => {
    expect(jsonLines(targets)).toBe(oneByOne(targets))
    expect(JSON.parse(`[${jsonLines(targets)}]`)).toEqual(JSON.parse(JSON.stringify(targets)))
  })

  it('writes a page of plain objects with one JSON.stringify, anything else with one a target', () => {
    const stringify = jest.spyOn(JSON, 'stringify')
    try {
      const calls = (targets: unknown[]) => {
        stringify.mockClear()
        jsonLines(targets)
        return stringify.mock.calls.length
      }
      expect(calls([{ id: 'a' }, { id: 'b' }, { id: 'c' }])).toBe(1)
      expect(calls([{ id: 'a' }, 'b', { id: 'c' }])).toBe(3)
      // Tried whole, then one by one: the "},{" in a string is not a seam.
      expect(calls([{ id: 'a', note: '},{' }, { id: 'c' }])).toBe(3)
    } finally {
      stringify.mockRestore()
    }
  })

  it('agrees with JSON.stringify of each target on pages of every kind', () => {
    // A small generator of JSON values, seeded: strings that hold },{ and escapes, nesting, numbers.
    // Of its 300 pages, about half take the one-call path; a quarter hold a "},{" within a target,
    // and a quarter a value that is not an object.
    let seed = 7
    const next = (n: number) => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0), (seed >>> 16) % n)
    const strings = ['},{', '}', '{', ',', 'a"b', 'é', '\n', '},\n{', 'x']
    const value = (depth: number): unknown => {
      switch (next(depth > 2 ? 3 : 6)) {
        case 0:
          return strings[next(strings.length)]
        case 1:
          return next(1000) - 500
        case 2:
          return next(2) === 0 ? null : true
        case 3:
          return Array.from({ length: next(3) }, () => value(depth + 1))
        default:
          return Object.fromEntries(
            Array.from({ length: next(4) }, (_, i) => [strings[next(strings.length)] + i, value(depth + 1)])
          )
      }
    }
    for (let round = 0; round < 300; round++) {
      const targets = Array.from({ length: 1 + next(6) }, () =>
        next(8) === 0 ? value(1) : { id: `t${round}`, v: value(1) }
      )
      expect(jsonLines(targets)).toBe(oneByOne(targets))
    }
  })
})

describe('a RUNNER_TEMP that cannot be written', () => {
  it('names the folder and what to do, and leaves nothing behind', () => {
    const missing = join(dir, 'no-such-folder')
    expect(() => new TargetsFile({ dir: missing })).toThrow(
      new RegExp(
        `^Failed to write the targets file in ${missing} \\(RUNNER_TEMP\\): ENOENT.*Free disk space on the runner`
      )
    )
    expect(readdirSync(dir)).toEqual([])
  })
})
