import { createHash } from 'node:crypto'
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import fc from 'fast-check'
import { BATCH, MAX_DEPTH, readSnapshot, SnapshotError, snapshotPath } from '../../src/targets/snapshot.js'

let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'm2m-snapshot-unit-'))
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

const file = (text: string | Buffer, name = 't.json') => {
  const path = join(dir, name)
  writeFileSync(path, text)
  return path
}
async function read(path: string) {
  const batches: unknown[][] = []
  const result = await readSnapshot(path, b => void batches.push(b))
  return { ...result, targets: batches.flat(), batches: batches.length }
}

const fifo = (): string => {
  const path = join(dir, 'fifo')
  execFileSync('mkfifo', [path])
  return path
}
const link = (to: string): string => {
  const path = join(dir, 'link.json')
  symlinkSync(to, path)
  return path
}

describe('snapshotPath', () => {
  it('takes a file as it is, or the one .json file of a directory', () => {
    const path = file('[]')
    expect(snapshotPath(path)).toBe(path)
    mkdirSync(join(dir, 'artifact'))
    writeFileSync(join(dir, 'artifact', 'targets-abc.json'), '[]')
    writeFileSync(join(dir, 'artifact', 'README.txt'), 'not json')
    expect(snapshotPath(join(dir, 'artifact'))).toBe(join(dir, 'artifact', 'targets-abc.json'))
  })

  it('names the input and what is wrong', () => {
    expect(() => snapshotPath(join(dir, 'missing'))).toThrow(SnapshotError)
    expect(() => snapshotPath(join(dir, 'missing'))).toThrow(/^Input targets-from: .*missing does not exist/)
    expect(() => snapshotPath(dir)).toThrow('must hold exactly one .json targets file (found none)')
  })

  it.each([
    ['a device', () => '/dev/null', 'a device'],
    ['a FIFO', () => fifo(), 'a FIFO'],
    ['a link to a device', () => link('/dev/null'), 'a device'],
    ['a link to a FIFO', () => link(fifo()), 'a FIFO']
  ])('refuses %s, naming the input, before reading it', (_what, make, kind) => {
    const path = make()
    expect(() => snapshotPath(path)).toThrow(
      `Input targets-from: ${path} is neither a file nor a directory (${kind}). Give the targets-file of an earlier step`
    )
  })
})

describe('readSnapshot', () => {
  it('reads any layout of a JSON array, in batches, with the digest of its bytes', async () => {
    const targets = Array.from({ length: 2500 }, (_, i) => ({ id: `t${i}`, tags: ['a,b', '[x]'], note: 'say "}"' }))
    const text = `  [\n${targets.map(t => JSON.stringify(t, null, 1)).join(' ,\n')}  ]\n\n`
    const got = await read(file(text))
    expect(got.targets).toEqual(targets)
    expect(got.count).toBe(2500)
    expect(got.batches).toBe(Math.ceil(2500 / BATCH))
    expect(got.batches).toBeGreaterThan(1)
    expect(got.digest).toBe(`sha256:${createHash('sha256').update(text).digest('hex')}`)
  })

  it('keeps numbers as written, across chunk boundaries and multi-byte characters', async () => {
    const element = '{"id":9007199254740993,"name":"ü✓ 𝄞","x":1.50}'
    const text = `[${Array.from({ length: 40_000 }, () => element).join(',')}]`
    const got = await read(file(text))
    expect(got.count).toBe(40_000)
    expect(JSON.stringify(got.targets[39_999])).toBe(element)
  })

  it.each([
    ['', /is empty/],
    ['{"targets":[]}', /is not a JSON array of targets \(it does not start with \[\)\.$/],
    ['"secret-looking content"', /is not a JSON array of targets \(it does not start with \[\)\.$/],
    ['[{"id":1},]', /an empty element/],
    ['[,{"id":1}]', /an empty element/],
    ['[{"id":1}', /truncated/],
    ['[{"id":"a]"}', /truncated/],
    ['[{"id":1}] []', /more after its JSON array/],
    ['[{"id":1},{"id":}]', /not valid JSON near target 1/]
  ])('refuses %j', async (text, message) => {
    await expect(read(file(text))).rejects.toThrow(message)
    await expect(read(file(text))).rejects.toThrow(/^Input targets-from: /)
  })

  it('refuses a target nested deeper than MAX_DEPTH with a clear error, not a stack overflow', async () => {
    const deep = 100_000
    await expect(read(file(`[{"id":1},${'['.repeat(deep)}${']'.repeat(deep)}]`))).rejects.toThrow(
      `Input targets-from: the file nests JSON more than ${MAX_DEPTH} levels deep in target 2: it is not a targets file of this action.`
    )
    const atLimit = `[${'['.repeat(MAX_DEPTH - 1)}${']'.repeat(MAX_DEPTH - 1)}]`
    await expect(read(file(atLimit))).resolves.toMatchObject({ count: 1 })
  })

  it('reads back exactly what JSON.stringify writes, whatever the values', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.jsonValue(), { maxLength: 30 }), async values => {
        const got = await read(file(JSON.stringify(values.map(v => JSON.parse(JSON.stringify(v))))))
        expect(JSON.stringify(got.targets)).toBe(JSON.stringify(values.map(v => JSON.parse(JSON.stringify(v)))))
      }),
      { numRuns: 200 }
    )
  })
})
