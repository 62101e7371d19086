import { createHash } from 'node:crypto'
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { createServer } from 'node:net'
import { join } from 'node:path'
import fc from 'fast-check'
import { MAX_TARGET_DEPTH } from '../../src/json.js'
import { BATCH, readSnapshot, SnapshotError, snapshotPath } from '../../src/targets/snapshot.js'

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

  it('refuses a socket, naming it a socket', async () => {
    const path = join(dir, 'sock')
    const server = createServer()
    await new Promise<void>(resolve => server.listen(path, resolve))
    try {
      expect(() => snapshotPath(path)).toThrow(`${path} is neither a file nor a directory (a socket).`)
    } finally {
      server.close()
    }
  })

  it('names at most five of the .json files a directory holds too many of', () => {
    const names = ['a', 'b', 'c', 'd', 'e', 'f'].map(n => `${n}.json`)
    for (const name of names) writeFileSync(join(dir, name), '[]')
    let message = ''
    try {
      snapshotPath(dir)
    } catch (err) {
      message = (err as Error).message
    }
    const found = /\(found (.*)\)\. Download one artifact into it\.$/.exec(message)?.[1]
    expect(found?.split(', ')).toHaveLength(5)
    for (const name of found!.split(', ')) expect(names).toContain(name)
    rmSync(join(dir, 'c.json'))
    rmSync(join(dir, 'd.json'))
    rmSync(join(dir, 'e.json'))
    rmSync(join(dir, 'f.json'))
    expect(() => snapshotPath(dir)).toThrow(/\(found (a\.json, b\.json|b\.json, a\.json)\)/)
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

  it('keeps only the targets at the places asked for, in batches, with their places', async () => {
    const targets = Array.from({ length: 1000 }, (_, i) => ({ id: `t${i}` }))
    const text = `[\n${targets.map(t => JSON.stringify(t)).join(',\n')}\n]\n`
    const seen: unknown[] = []
    const places: number[] = []
    const read = await readSnapshot(
      file(text),
      (batch, at) => {
        seen.push(...batch)
        places.push(...(at ?? []))
      },
      place => place % 3 === 1
    )
    const kept = targets.map((_, i) => i).filter(i => i % 3 === 1)
    expect(places).toEqual(kept)
    expect(seen).toEqual(kept.map(i => targets[i]))
    expect(read.digest).toBe(`sha256:${createHash('sha256').update(text).digest('hex')}`)
  })

  it('names the place of a target that is not JSON among the kept ones', async () => {
    await expect(
      readSnapshot(
        file('[{"id":1},{"id":2},{"id":}]'),
        () => undefined,
        p => p === 2
      )
    ).rejects.toThrow(/not valid JSON near target 3/)
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

  it('refuses a target nested deeper than MAX_TARGET_DEPTH with a clear error, not a stack overflow', async () => {
    const deep = 100_000
    await expect(read(file(`[{"id":1},${'['.repeat(deep)}${']'.repeat(deep)}]`))).rejects.toThrow(
      `Input targets-from: the file nests JSON more than ${MAX_TARGET_DEPTH} levels deep in target 2: it is not a targets file of this action.`
    )
    const atLimit = `[${'['.repeat(MAX_TARGET_DEPTH - 1)}${']'.repeat(MAX_TARGET_DEPTH - 1)}]`
    await expect(read(file(atLimit))).resolves.toMatchObject({ count: 1 })
  })

  it('hands over full batches of BATCH targets, and never an empty one', async () => {
    const batches: number[] = []
    const onTargets = (b: unknown[]) => void batches.push(b.length)
    const targets = (n: number) => file(JSON.stringify(Array.from({ length: n }, (_, i) => ({ id: i }))))
    await expect(readSnapshot(file('[]'), onTargets)).resolves.toMatchObject({ count: 0 })
    await expect(readSnapshot(targets(BATCH), onTargets)).resolves.toMatchObject({ count: BATCH })
    await expect(readSnapshot(targets(2 * BATCH + 1), onTargets)).resolves.toMatchObject({ count: 2 * BATCH + 1 })
    expect(batches).toEqual([BATCH, BATCH, BATCH, 1])
  })

  it('takes spaces, tabs, CR and LF around the array and its elements', async () => {
    await expect(read(file('\t\r\n [ \r\n\t] \t\r\n'))).resolves.toMatchObject({ count: 0, targets: [] })
    await expect(read(file('\r\t[\t{"id":1}\r\n,\t 2 ]\r\t'))).resolves.toMatchObject({ targets: [{ id: 1 }, 2] })
    await expect(read(file('[{"id":1},\t\r\n ]'))).rejects.toThrow(/an empty element/)
  })

  it('refuses bytes after the array even when they end the file mid-character', async () => {
    await expect(read(file(Buffer.from([...Buffer.from('[{"id":1}]'), 0xc3])))).rejects.toThrow(
      /more after its JSON array/
    )
  })

  it('reads a target nested exactly MAX_TARGET_DEPTH levels deep', async () => {
    const nested = (depth: number) => `[${'['.repeat(depth)}${']'.repeat(depth)}]`
    await expect(read(file(nested(MAX_TARGET_DEPTH)))).resolves.toMatchObject({ count: 1 })
    await expect(read(file(nested(MAX_TARGET_DEPTH + 1)))).rejects.toThrow(
      `more than ${MAX_TARGET_DEPTH} levels deep in target 1`
    )
  })

  describe('a target of 16 MiB of JSON at the most', () => {
    const MAX = 16 * 1024 * 1024
    const CHUNK = 16 * 1024

    it('reads one of exactly 16 MiB (characters, not bytes)', async () => {
      // 1,025 chunks of 16 KiB: the target's 16 MiB characters fill them after the [, thanks to
      // 16,383 two-byte characters, and the ] comes in the next chunk.
      const wide = 'é'.repeat(CHUNK - 1)
      const target = `"${wide}${'a'.repeat(MAX - wide.length - 2)}"`
      expect(target.length).toBe(MAX)
      const got = await read(file(`[${target}]`))
      expect(got.count).toBe(1)
      expect((got.targets[0] as string).length).toBe(MAX - 2)
    })

    it('refuses a longer one before it ends, naming the limit', async () => {
      const target = `"${'a'.repeat(MAX + CHUNK + 100)}"`
      await expect(read(file(`[${target}]`))).rejects.toThrow(
        'Input targets-from: the file holds a target over 16 MiB of JSON: it is not a targets file of this action.'
      )
    })

    it('refuses one that passes it by a few characters, ending in the next read', async () => {
      // After the [, 1,024 reads hold 16 MiB - 1 of it; the last 11 characters come in the next.
      const target = `"${'a'.repeat(MAX + 8)}"`
      await expect(read(file(`[${target}]`))).rejects.toThrow(
        'Input targets-from: the file holds a target over 16 MiB of JSON: it is not a targets file of this action.'
      )
      await expect(read(file(`[${target.slice(0, MAX - 1)}"]`))).resolves.toMatchObject({ count: 1 })
    })

    it('counts no whitespace after the array toward it', async () => {
      await expect(read(file(`[1]${' '.repeat(MAX + CHUNK)}`))).resolves.toMatchObject({ count: 1, targets: [1] })
    })
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
