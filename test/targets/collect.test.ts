import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Bearer } from '../../src/auth/bearer.js'
import { HttpRequest, HttpResponse, Transport } from '../../src/http/client.js'
import { listInto, readInto } from '../../src/targets/collect.js'
import { TargetsFile } from '../../src/targets/file.js'
import { compileSelection } from '../../src/targets/select.js'
import { Shard, shardOf } from '../../src/targets/shards.js'
import { SnapshotError } from '../../src/targets/snapshot.js'
import { captureStdout } from '../helpers.js'

const stdout = captureStdout()
const logged = (): string => stdout.join('')

let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'm2m-collect-'))
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

const BASE = new URL('https://api.service.test/')
const bearer = () =>
  new Bearer({ accessToken: 'header.payload.sig', tokenType: 'Bearer', source: 'input' }, undefined, () => {})
const ids = (from: number, n: number) => Array.from({ length: n }, (_, i) => ({ id: `t${from + i}` }))

/** A transport with no socket: answers page n (1-based) with pages[n - 1], linking to the next one. */
function pagesOf(pages: unknown[][]): Transport & { sent: HttpRequest[] } {
  const sent: HttpRequest[] = []
  return {
    sent,
    send: async (request): Promise<HttpResponse> => {
      sent.push(request)
      const n = Number(request.url.searchParams.get('page') ?? 1)
      const page = pages[n - 1]
      if (!page) return { status: 503, headers: {}, body: Buffer.from('down'), attempts: 1 }
      const headers = n < pages.length ? { link: `</v1/targets?page=${n + 1}>; rel="next"` } : {}
      return { status: 200, headers, body: Buffer.from(JSON.stringify(page)), attempts: 1 }
    }
  }
}

async function list(pages: unknown[][], options: { shard?: Shard; shardSize?: number; maxPages?: number } = {}) {
  const transport = pagesOf(pages)
  const { shard, shardSize = 100, maxPages = 100 } = options
  const collected = await listInto(
    transport,
    { baseUrl: BASE, maxPages, shard, shardSize },
    bearer(),
    new TargetsFile({ dir, shard })
  )
  return { collected, sent: transport.sent, text: readFileSync(collected.listing.file, 'utf8') }
}

function snapshot(targets: unknown[]): { path: string; digest: string } {
  const file = new TargetsFile({ dir })
  file.add(targets)
  const listing = file.finish()
  return { path: listing.file, digest: listing.digest }
}

describe('listInto', () => {
  it('lists into the file and says how many, with no page lines for a single page', async () => {
    const { collected, sent, text } = await list([ids(0, 3)])
    expect(JSON.parse(text)).toEqual(ids(0, 3))
    expect(collected).toMatchObject({ from: 'listing', shardCount: 1, listing: { listed: 3, count: 3 } })
    expect(sent.map(r => r.url.href)).toEqual(['https://api.service.test/v1/targets'])
    expect(logged()).toBe('Listed 3 targets\n')
  })

  it('logs one line per page inside one collapsed group for a list of several pages', async () => {
    const { collected } = await list([ids(0, 2), ids(2, 1), ids(3, 2)])
    expect(collected.listing.listed).toBe(5)
    expect(logged()).toBe(
      [
        '::group::Listing targets page by page',
        'Page 1: 2 targets (2 so far)',
        'Page 2: 1 targets (3 so far)',
        'Page 3: 2 targets (5 so far)',
        '::endgroup::',
        'Listed 5 targets',
        ''
      ].join('\n')
    )
  })

  it('holds the page lines while it lists, and writes them by the time it ends', async () => {
    const transport = pagesOf([ids(0, 1), ids(1, 1), ids(2, 1)])
    const corked: number[] = []
    const watching: Transport = {
      send: r => {
        corked.push(process.stdout.writableCorked)
        return transport.send(r)
      }
    }
    await listInto(watching, { baseUrl: BASE, maxPages: 10, shardSize: 10 }, bearer(), new TargetsFile({ dir }))
    // Each page is asked for before the page before it is logged: the log is held from the first line on.
    expect(corked).toEqual([0, 0, 1])
    expect(process.stdout.writableCorked).toBe(0)
    expect(logged()).toContain('Page 3: 1 targets (3 so far)\n::endgroup::\n')
  })

  it('closes the group when a later page fails', async () => {
    const transport = pagesOf([ids(0, 1), ids(1, 1)])
    const failing: Transport = {
      send: async r =>
        r.url.searchParams.get('page') === '2'
          ? { status: 404, headers: {}, body: Buffer.from(''), attempts: 1 }
          : transport.send(r)
    }
    const file = new TargetsFile({ dir })
    await expect(listInto(failing, { baseUrl: BASE, maxPages: 10, shardSize: 10 }, bearer(), file)).rejects.toThrow(
      'Failed to list targets: api.service.test answered HTTP 404'
    )
    file.discard()
    expect(logged()).toBe('::group::Listing targets page by page\nPage 1: 1 targets (1 so far)\n::endgroup::\n')
  })

  it('opens no group when the first page fails', async () => {
    const file = new TargetsFile({ dir })
    await expect(listInto(pagesOf([]), { baseUrl: BASE, maxPages: 10, shardSize: 10 }, bearer(), file)).rejects.toThrow(
      'HTTP 503'
    )
    file.discard()
    expect(logged()).toBe('')
  })

  it('stops at max-pages', async () => {
    const file = new TargetsFile({ dir })
    await expect(
      listInto(
        pagesOf([ids(0, 1), ids(1, 1), ids(2, 1)]),
        { baseUrl: BASE, maxPages: 2, shardSize: 10 },
        bearer(),
        file
      )
    ).rejects.toThrow('the list has more than max-pages (2) pages')
    file.discard()
  })

  it('says one target in the singular', async () => {
    await list([ids(0, 1)])
    expect(logged()).toBe('Listed 1 target\n')
  })

  it('keeps the shard, names it, and counts shards from the whole listing', async () => {
    const all = ids(0, 40)
    const shard = { index: 2, count: 3 }
    const kept = all.filter(t => shardOf(t, 3) === 2)
    const { collected, text } = await list([all], { shard, shardSize: 7 })
    expect(JSON.parse(text)).toEqual(kept)
    expect(collected).toMatchObject({ shardCount: 6, listing: { listed: 40, count: kept.length, withoutId: 0 } })
    expect(logged()).toBe(`Listed 40 targets; shard 2 of 3 holds ${kept.length} targets\n`)
  })

  it.each([
    [[{ name: 'a' }, { id: 'b' }], '1 listed target of 2 has no string or number id'],
    [[{ name: 'a' }, { id: { deep: 1 } }, { id: 'c' }], '2 listed targets of 3 have no string or number id']
  ])('warns a sharded listing of targets without an id (%j)', async (targets, warning) => {
    await list([targets], { shard: { index: 1, count: 2 } })
    const lines = logged().split('\n')
    expect(lines.filter(l => l.startsWith('::warning::'))).toEqual([expect.stringContaining(`::warning::${warning}`)])
    expect(logged()).toContain(
      'only if the service sends every shard job the same JSON. Read one snapshot in every shard job instead ' +
        '(targets-from; README, "Fan-out").\n'
    )
  })

  it('counts the shards from the selected targets and says how many were selected', async () => {
    const select = await compileSelection('kind  ==\n "vm"')
    const all = Array.from({ length: 50 }, (_, i) => ({ id: `t${i}`, kind: i < 10 ? 'vm' : 'db' }))
    const collected = await listInto(
      pagesOf([all]),
      { baseUrl: BASE, maxPages: 10, shardSize: 4 },
      bearer(),
      new TargetsFile({ dir, select })
    )
    expect(collected).toMatchObject({ shardCount: 3, listing: { listed: 50, selected: 10, count: 10 } })
    expect(logged()).toBe('Listed 50 targets; 10 of 50 targets selected by `kind == "vm"`\n')
  })

  it('does not warn of targets without an id when the listing is not sharded', async () => {
    await list([[{ name: 'a' }]])
    expect(logged()).not.toContain('::warning::')
  })

  it('counts 256 shards at the most, and says why when shard-size asks for more', async () => {
    const many = ids(0, 600)
    expect((await list([many], { shardSize: 2 })).collected.shardCount).toBe(256)
    expect(logged()).toContain(
      'The shards output has 256 shards, not 300: a matrix runs at most 256 jobs, so each shard holds about 3 targets, more than shard-size (2).\n'
    )
  })

  it('says nothing of the cap when the shards fit in it exactly', async () => {
    expect((await list([ids(0, 512)], { shardSize: 2 })).collected.shardCount).toBe(256)
    expect(logged()).toBe('Listed 512 targets\n')
  })

  it('counts no shard for an empty listing', async () => {
    const { collected, text } = await list([[]])
    expect(text).toBe('[]\n')
    expect(collected.shardCount).toBe(0)
    expect(logged()).toBe('Listed 0 targets\n')
  })
})

describe('readInto', () => {
  it('reads the snapshot into the file, names it, and makes no request', async () => {
    const { path, digest } = snapshot(ids(0, 3))
    const collected = await readInto(
      { targetsFrom: path, targetsDigest: digest, shardSize: 2 },
      new TargetsFile({ dir })
    )
    expect(collected).toMatchObject({ from: 'snapshot', shardCount: 2, listing: { listed: 3, count: 3, digest } })
    expect(JSON.parse(readFileSync(collected.listing.file, 'utf8'))).toEqual(ids(0, 3))
    expect(logged()).toBe(`Read ${path}: 3 targets\n`)
  })

  it('narrows a snapshot with a selection, counting shards from what it keeps', async () => {
    const { path, digest } = snapshot(ids(0, 30))
    const select = await compileSelection('id.endsWith("7")')
    const collected = await readInto(
      { targetsFrom: path, targetsDigest: digest, shardSize: 2 },
      new TargetsFile({ dir, select })
    )
    expect(collected).toMatchObject({ shardCount: 2, digest, listing: { listed: 30, selected: 3, count: 3 } })
    expect(logged()).toBe(`Read ${path}: 30 targets; 3 of 30 targets selected by \`id.endsWith("7")\`\n`)
  })

  it('reads without a digest to check', async () => {
    const { path } = snapshot(ids(0, 1))
    const collected = await readInto({ targetsFrom: path, shardSize: 10 }, new TargetsFile({ dir }))
    expect(collected.listing.count).toBe(1)
    expect(logged()).toBe(`Read ${path}: 1 target\n`)
  })

  it("refuses a snapshot whose digest is not targets-digest's, before any target is kept", async () => {
    const { path, digest } = snapshot(ids(0, 2))
    const wanted = `sha256:${'0'.repeat(64)}`
    const file = new TargetsFile({ dir })
    const read = readInto({ targetsFrom: path, targetsDigest: wanted, shardSize: 10 }, file)
    await expect(read).rejects.toThrow(SnapshotError)
    await expect(read).rejects.toThrow(
      `Input targets-from: ${path} has the digest ${digest}, not ${wanted} (targets-digest). It is not the file ` +
        "the listing step wrote: most likely an artifact of another run or run attempt. Pass the artifact's name " +
        'from the listing job as a job output, as the README shows.'
    )
    file.discard()
    expect(logged()).toBe('')
  })

  it('names the shard a sharded read keeps', async () => {
    const path = join(dir, 'given.json')
    writeFileSync(path, JSON.stringify(ids(0, 20)))
    const shard = { index: 1, count: 2 }
    const kept = ids(0, 20).filter(t => shardOf(t, 2) === 1).length
    await readInto({ targetsFrom: path, shardSize: 5 }, new TargetsFile({ dir, shard }))
    expect(logged()).toBe(`Read ${path}: 20 targets; shard 1 of 2 holds ${kept} targets\n`)
  })
})
