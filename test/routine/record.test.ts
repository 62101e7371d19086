import { createHash } from 'node:crypto'
import { closeSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, dirname, join } from 'node:path'
import { recordSigner, recordVerifier } from '../../src/auth/record-key.js'
import { Outcome } from '../../src/routine/lines.js'
import { RecordHeader, sealLine, sealMessage } from '../../src/routine/record-format.js'
import { RecordOptions, ResultsRecord, RESULTS_BODY_CAP_BYTES } from '../../src/routine/record.js'
import { parseResultLine } from '../../src/routine/result-line.js'
import { mask, WITHHELD } from '../../src/secrets.js'

type Write = typeof writeSync

let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'm2m-record-'))
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

const infos: string[] = []
beforeEach(() => {
  infos.length = 0
})
const HEADER: RecordHeader = {
  run: '77',
  attempt: 2,
  call: '0123456789abcdef',
  shard: '1/2',
  snapshot: `sha256:${'a'.repeat(64)}`,
  listing: null,
  where: 'a == 1',
  plan: null,
  canary: false,
  signer: null
}
const HEADER_LINE =
  '{"m2m":"results","format":2,"run":"77","attempt":2,"call":"0123456789abcdef","shard":"1/2",' +
  `"snapshot":"sha256:${'a'.repeat(64)}","listing":null,"where":"a == 1","plan":null,"canary":false,"signer":null}\n`

const record = (overrides: Partial<RecordOptions> = {}) =>
  new ResultsRecord({ dir, info: m => infos.push(m), header: HEADER, ...overrides })
const contents = (r: ResultsRecord) => readFileSync(r.path, 'utf8')
/** The file's lines after its header: result lines, and seals as "seal N". */
const body = (r: ResultsRecord) =>
  contents(r)
    .slice(HEADER_LINE.length)
    .split('\n')
    .filter(Boolean)
    .map(l => (l.startsWith('{"m2m":"seal"') ? `seal ${(JSON.parse(l) as { lines: number }).lines}` : l))

/** Whether every seal in the file holds the SHA-256 of every byte before it. */
const sealsHold = (r: ResultsRecord) => {
  const text = contents(r)
  const seals = [...text.matchAll(/^\{"m2m":"seal".*$/gm)]
  return (
    seals.length > 0 &&
    seals.every(
      m =>
        (JSON.parse(m[0]) as { sha256: string }).sha256 ===
        createHash('sha256').update(text.slice(0, m.index)).digest('hex')
    )
  )
}

/** A writer that writes at most `size` bytes a call, as a nearly full disk may. */
const chunked = (size: number, calls: number[] = []): Write =>
  ((fd: number, buffer: Uint8Array, offset: number, length: number, position?: number) => {
    calls.push(length)
    return writeSync(fd, buffer, offset, Math.min(size, length), position)
  }) as Write

/** A disk that holds `limit` bytes of the file: a write past it is cut there, then refused. */
const limited = (limit: number): Write =>
  ((fd: number, buffer: Uint8Array, offset: number, length: number, position?: number) => {
    const at = position ?? 0
    if (at >= limit) throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' })
    return writeSync(fd, buffer, offset, Math.min(length, limit - at), at)
  }) as Write

describe('ResultsRecord', () => {
  it('creates its own file in the folder, readable by the runner user only, starting with its header', () => {
    const r = record()
    expect(dirname(r.path)).toBe(dir)
    expect(basename(r.path)).toMatch(/^results-[0-9a-f]{12}\.jsonl$/)
    expect(statSync(r.path).mode & 0o777).toBe(0o600)
    expect(record().path).not.toBe(r.path)
    expect(contents(r)).toBe(HEADER_LINE)
    expect(r).toMatchObject({ unrecorded: 0, failure: undefined, keepsBodies: true })
    r.close()
  })

  it('names the folder and RUNNER_TEMP when the file cannot be created', () => {
    const missing = join(dir, 'gone')
    expect(() => record({ dir: missing })).toThrow(
      new RegExp(
        `^Failed to write the results file in ${missing} \\(RUNNER_TEMP\\): ENOENT.*\\. Free disk space on the runner`
      )
    )
  })

  it('leaves no file when its header cannot be written', () => {
    expect(() => record({ write: limited(0) })).toThrow(/^Failed to write the results file in .*: ENOSPC/)
    expect(readdirSync(dir)).toEqual([])
  })

  it('keeps lines until 64 KiB are buffered, then writes them and their seal in one write', () => {
    const calls: number[] = []
    const r = record({ write: chunked(Infinity, calls) })
    calls.length = 0
    r.add('x'.repeat(64 * 1024 - 2), 'succeeded') // with its newline, one character short of 64 KiB
    expect(calls).toEqual([])
    r.add('', 'failed')
    expect(calls).toHaveLength(1)
    expect(body(r)).toEqual(['x'.repeat(64 * 1024 - 2), 'seal 2'])
    r.add('{"a":1}', 'skipped')
    expect(calls).toHaveLength(1)
    r.close()
    expect(body(r)).toEqual(['x'.repeat(64 * 1024 - 2), 'seal 2', '{"a":1}', 'seal 3'])
    expect(calls).toHaveLength(2)
    expect(r.written).toEqual(
      new Map<Outcome, number>([
        ['succeeded', 1],
        ['failed', 1],
        ['skipped', 1]
      ])
    )
  })

  it('counts a block in bytes, and keeps a line longer than a block whole after the lines before it', () => {
    const calls: number[] = []
    const r = record({ write: chunked(Infinity, calls) })
    calls.length = 0
    r.add('é'.repeat(32 * 1024 - 1), 'succeeded') // with its newline, one byte short of 64 KiB
    expect(calls).toEqual([])
    r.add('x', 'failed')
    expect(calls).toHaveLength(1)
    const long = `{"body":"${'ü€'.repeat(60_000)}"}`
    r.add('a', 'succeeded')
    r.add(long, 'succeeded')
    expect(calls).toHaveLength(2)
    r.add('b', 'failed')
    r.close()
    expect(body(r)).toEqual(['é'.repeat(32 * 1024 - 1), 'x', 'seal 2', 'a', long, 'seal 4', 'b', 'seal 5'])
    expect(sealsHold(r)).toBe(true)
  })

  it('seals each block with the SHA-256 of every byte before it, unsigned without a signer', () => {
    const r = record()
    r.add('{"key":"a"}', 'succeeded')
    r.flush()
    r.add('{"key":"b"}', 'failed')
    r.close()
    const text = contents(r)
    const lines = text.split('\n').filter(Boolean)
    expect(lines).toHaveLength(5)
    const before = (i: number) => lines.slice(0, i).join('\n') + '\n'
    expect(JSON.parse(lines[2])).toEqual({
      m2m: 'seal',
      lines: 1,
      sha256: createHash('sha256').update(before(2)).digest('hex'),
      sig: null
    })
    expect(JSON.parse(lines[4])).toEqual({
      m2m: 'seal',
      lines: 2,
      sha256: createHash('sha256').update(before(4)).digest('hex'),
      sig: null
    })
  })

  it("signs each seal with the run's record key, and names the key in the header", () => {
    const signer = recordSigner(Buffer.alloc(32, 7))
    const r = record({ signer, header: { ...HEADER, signer: signer.publicKey } })
    r.add('{"key":"a"}', 'succeeded')
    r.close()
    const [header, , sealText] = contents(r).split('\n')
    expect(JSON.parse(header)).toMatchObject({ signer: signer.publicKey })
    const seal = JSON.parse(sealText) as { lines: number; sha256: string; sig: string }
    const verifier = recordVerifier(signer.publicKey)!
    expect(verifier.verify(sealMessage(seal.lines, seal.sha256), seal.sig)).toBe(true)
    expect(verifier.verify(sealMessage(seal.lines + 1, seal.sha256), seal.sig)).toBe(false)
  })

  it('writes no seal for a flush with nothing buffered', () => {
    const calls: number[] = []
    const r = record({ write: chunked(Infinity, calls) })
    calls.length = 0
    r.flush()
    r.add('a', 'succeeded')
    r.flush()
    r.flush()
    r.close()
    expect(calls).toHaveLength(1)
    expect(body(r)).toEqual(['a', 'seal 1'])
  })

  it('redacts each line as it keeps it', () => {
    mask('some-secret-value')
    const r = record()
    r.add('{"echo":"some-secret-value","n":1}', 'succeeded')
    r.close()
    expect(body(r)).toEqual(['{"echo":"***","n":1}', 'seal 1'])
  })

  it('keeps every line JSON, and readable by a resume, whatever redaction replaces', () => {
    // This secret's hex is all digits: 12 characters of it are a 24-digit JSON number.
    const secret = 'aPbQcRdSeTfUgVhW'
    mask(secret)
    mask('p4ss***word-secret')
    const digits = Buffer.from(secret.slice(2, 14)).toString('hex')
    const head =
      '{"key":"t1","call":"0123456789abcdef","outcome":"failed","status":500,"runAttempt":1,"shard":null,"index":0'
    const r = record()
    r.add(`${head},"body":{"ok":true,"n":${digits}}}`, 'failed')
    // Cutting this secret out leaves it whole again: redact() withholds the whole text.
    r.add(`${head},"error":"p4ssp4ss***word-secretword-secret"}`, 'failed')
    r.close()
    const lines = body(r).slice(0, 2)
    expect(lines.map(l => JSON.parse(l) as unknown)).toEqual([
      { ...JSON.parse(`${head}}`), body: { ok: true, n: '***' } },
      { ...JSON.parse(`${head}}`), error: WITHHELD }
    ])
    expect(lines.map(parseResultLine)).toEqual([
      expect.objectContaining({ key: 't1', outcome: 'failed' }),
      expect.anything()
    ])
  })

  it('keeps the fields a resume reads when the parts of a line hold a secret only together', () => {
    mask('wqzvjk",9876543')
    const line =
      '{"key":"t2","call":"0123456789abcdef","outcome":"failed","status":500,"runAttempt":1,"shard":null,"index":3,"body":["wqzvjk",9876543]}'
    const r = record()
    r.add(line, 'failed')
    r.close()
    expect(JSON.parse(body(r)[0])).toEqual({ ...JSON.parse(line), body: WITHHELD })
  })

  it('writes every byte when the disk takes 3 at a time', () => {
    const r = record({ write: chunked(3) })
    r.add('{"key":"a"}', 'succeeded')
    r.add('{"key":"b"}', 'succeeded')
    r.close()
    expect(body(r)).toEqual(['{"key":"a"}', '{"key":"b"}', 'seal 2'])
    expect(r).toMatchObject({ unrecorded: 0, failure: undefined })
  })

  it('keeps every whole line that fits on a full disk, sealed, and counts the rest by outcome', () => {
    const line = (i: number) => `{"key":"k${String(i).padStart(3, '0')}","pad":"${'p'.repeat(80)}"}`
    // Room for the header, a first block of 10 lines, and about 25 more lines with their seals.
    const limit = HEADER_LINE.length + 10 * 100 + 140 + 25 * 100 + 4 * 140
    const r = record({ write: limited(limit) })
    for (let i = 0; i < 10; i++) r.add(line(i), 'succeeded')
    r.flush()
    for (let i = 10; i < 110; i++) r.add(line(i), i % 2 ? 'failed' : 'succeeded')
    r.flush()
    expect(r.failure?.message).toMatch(
      new RegExp(`^Failed to write the results file in ${dir} \\(RUNNER_TEMP\\): ENOSPC: no space left on device`)
    )
    const kept = body(r)
    const results = kept.filter(l => !l.startsWith('seal'))
    // A prefix of the lines, every one whole, and the file ends with the seal of them all.
    expect(results).toEqual(Array.from({ length: results.length }, (_, i) => line(i)))
    expect(results.length).toBeGreaterThan(20)
    expect(kept.at(-1)).toBe(`seal ${results.length}`)
    expect(sealsHold(r)).toBe(true)
    expect(statSync(r.path).size).toBeLessThanOrEqual(limit)
    const written = [...r.written.values()].reduce((a, b) => a + b, 0)
    expect(written).toBe(results.length)
    expect(r.unrecorded).toBe(110 - results.length)
    expect([...r.lost.values()].reduce((a, b) => a + b, 0)).toBe(r.unrecorded)
    r.add(line(200), 'unknown')
    r.close()
    expect(r.unrecorded).toBe(111 - results.length)
    expect(r.lost.get('unknown')).toBe(1)
    expect(body(r)).toEqual(kept)
  })

  it('keeps lines under a file-size limit smaller than one block', () => {
    const r = record({ write: limited(HEADER_LINE.length + 40 * 1024) })
    for (let i = 0; i < 1000; i++) r.add(`{"key":"k${i}","pad":"${'p'.repeat(100)}"}`, 'succeeded')
    r.close()
    const results = body(r).filter(l => !l.startsWith('seal'))
    expect(results.length).toBeGreaterThan(250)
    expect(r.written.get('succeeded')).toBe(results.length)
    expect(r.unrecorded).toBe(1000 - results.length)
  })

  it('treats a write of no byte as a failure rather than looping', () => {
    let calls = 0
    const r = record({ write: ((...args: Parameters<Write>) => (++calls === 1 ? writeSync(...args) : 0)) as Write })
    r.add('a', 'succeeded')
    r.close()
    expect(r.failure?.message).toContain('no byte was written')
    expect(r.unrecorded).toBe(1)
    expect(contents(r)).toBe(HEADER_LINE)
  })

  const SEAL = sealLine({ lines: 1, sha256: '0'.repeat(64), sig: null }).length
  it.each([
    [HEADER_LINE.length + 51 + SEAL, false],
    [HEADER_LINE.length + 51 + SEAL + 1, true]
  ])('with a body cap of %i B, a flush of 51 B and its seal leaves keepsBodies %s', (cap, keeps) => {
    const r = record({ bodyCapBytes: cap })
    r.add('x'.repeat(50), 'succeeded')
    r.flush()
    expect(r.keepsBodies).toBe(keeps)
    r.close()
  })

  it('stops keeping bodies after the flush that passes the cap, and says so once', () => {
    const r = record({ bodyCapBytes: HEADER_LINE.length + 300 })
    r.add('x'.repeat(60), 'succeeded')
    r.flush()
    expect(r.keepsBodies).toBe(true)
    r.add('y'.repeat(60), 'succeeded')
    expect(infos).toEqual([])
    r.flush()
    expect(r.keepsBodies).toBe(false)
    expect(infos).toEqual([
      `The results file passed ${HEADER_LINE.length + 300} B: from here on its lines keep their fields but not the service's bodies`
    ])
    r.add('z', 'succeeded')
    r.close()
    expect(infos).toHaveLength(1)
  })

  it('caps bodies at 1 GiB by default', () => {
    expect(RESULTS_BODY_CAP_BYTES).toBe(1024 * 1024 * 1024)
    const r = record()
    r.add('x'.repeat(1000), 'succeeded')
    r.close()
    expect(r.keepsBodies).toBe(true)
  })

  it('flushes on close, drops lines after it without counting them, and closes once', () => {
    const r = record()
    r.add('a', 'succeeded')
    r.close()
    r.close()
    r.add('b', 'succeeded')
    r.flush()
    expect(body(r)).toEqual(['a', 'seal 1'])
    expect(r).toMatchObject({ unrecorded: 0, failure: undefined })
    expect(existsSync(r.path)).toBe(true)
  })

  it('keeps a failed close as its failure', () => {
    const r = record()
    r.add('a', 'succeeded')
    closeSync((r as unknown as { fd: number }).fd) // the descriptor is gone under it
    r.close()
    expect(r.failure?.message).toMatch(/^Failed to write the results file in .*EBADF/)
    const s = record()
    closeSync((s as unknown as { fd: number }).fd)
    s.close()
    expect(s.failure?.message).toMatch(/^Failed to close the results file: EBADF/)
  })
})
