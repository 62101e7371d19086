import { createHash } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { recordSigner, recordVerifier } from '../../src/auth/record-key.js'
import { Expectation, NewerFormatError, Refusal } from '../../src/routine/evidence.js'
import { RecordHeader, sealLine, sealMessage } from '../../src/routine/record-format.js'
import { ResultsRecord } from '../../src/routine/record.js'
import { readResultFile } from '../../src/routine/result-files.js'
import { MAX_RUN_ATTEMPT } from '../../src/routine/result-line.js'
import { FP, line } from '../helpers.js'

let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'm2m-evidence-'))
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

const signer = recordSigner(Buffer.alloc(32, 3))
const other = recordSigner(Buffer.alloc(32, 4))
const HEADER: RecordHeader = {
  run: '100',
  attempt: 1,
  call: FP,
  shard: null,
  snapshot: `sha256:${'c'.repeat(64)}`,
  listing: null,
  where: null,
  plan: null,
  canary: false,
  signer: signer.publicKey
}

/** A results file as the routine writes it: header, lines in blocks of `block`, each sealed. */
function written(keys: string[], header: Partial<RecordHeader> = {}, by = signer, block = 2): string {
  const full = { ...HEADER, ...header }
  const record = new ResultsRecord({ dir, info: () => undefined, header: full, signer: full.signer ? by : undefined })
  keys.forEach((key, i) => {
    record.add(line(key, 'succeeded', 200, { attempt: full.attempt, shard: full.shard ?? undefined }), 'succeeded')
    if ((i + 1) % block === 0) record.flush()
  })
  record.close()
  return record.path
}

function read(file: string, expected: Partial<Expectation> = {}) {
  const keys: string[] = []
  const refused: Refusal[] = []
  let torn = 0
  let refusedLines = 0
  readResultFile(
    file,
    facts => keys.push(facts.key),
    { torn: () => torn++, refused: (_f, r) => refused.push(r), refusedLines: (_f, n) => (refusedLines += n) },
    { sameAttempt: 'counted', ...expected }
  )
  return { keys, refused, torn, refusedLines }
}

const verifier = recordVerifier(signer.publicKey)!

describe('a results file as evidence', () => {
  it('gives every line a signed file holds, checked against the run key', () => {
    const file = written(['a', 'b', 'c', 'd', 'e'])
    expect(read(file, { verifier, run: '100', attempt: 1, snapshot: HEADER.snapshot! })).toEqual({
      keys: ['a', 'b', 'c', 'd', 'e'],
      refused: [],
      torn: 0,
      refusedLines: 0
    })
  })

  it.each<[string, Partial<RecordHeader>, string, string, Partial<Expectation>]>([
    ['unsigned', { signer: null }, 'unsigned', 'unsigned', {}],
    ['signed with another key', { signer: other.publicKey }, 'key', 'signed with another key', {}],
    ['of another run', {}, 'run', 'of run "100", not this run (101)', { run: '101' }],
    ['of a later attempt', { attempt: 3 }, 'attempt', 'of run attempt 3, not before this one (2)', { attempt: 2 }],
    [
      'of another snapshot',
      { snapshot: `sha256:${'d'.repeat(64)}` },
      'snapshot',
      `of another snapshot (sha256:${'d'.repeat(64)}), not targets-from's`,
      { snapshot: HEADER.snapshot! }
    ],
    [
      'of a listing',
      { snapshot: null },
      'snapshot',
      "of another snapshot (a listing), not targets-from's",
      { snapshot: HEADER.snapshot! }
    ]
  ])('refuses a file %s, whole, and says why', (_what, header, reason, detail, expected) => {
    const file = written(['a', 'b'], header, header.signer === other.publicKey ? other : signer)
    const got = read(file, { verifier, ...expected })
    expect(got.keys).toEqual([])
    expect(got.refused).toEqual([{ reason, detail, fromLine: 1 }])
  })

  it('takes the same attempt in a report, and in a resume only from a canary', () => {
    const plain = written(['a'], { attempt: 2 })
    expect(read(plain, { attempt: 2, sameAttempt: 'counted' }).keys).toEqual(['a'])
    expect(read(plain, { attempt: 2, sameAttempt: 'canary only' }).refused).toEqual([
      expect.objectContaining({ reason: 'attempt', detail: 'of run attempt 2, not before this one (2)' })
    ])
    const canary = written(['b'], { attempt: 2, canary: true })
    expect(read(canary, { attempt: 2, sameAttempt: 'canary only' }).keys).toEqual(['b'])
    expect(read(written(['c'], { attempt: 1 }), { attempt: 2, sameAttempt: 'canary only' }).keys).toEqual(['c'])
  })

  it('counts the blocks before an altered one, and refuses the rest from its seal', () => {
    const file = written(['a', 'b', 'c', 'd', 'e', 'f'])
    writeFileSync(file, readFileSync(file, 'utf8').replace('"key":"d"', '"key":"x"'))
    const got = read(file, { verifier })
    expect(got.keys).toEqual(['a', 'b'])
    expect(got.refused).toEqual([expect.objectContaining({ reason: 'altered', fromLine: 7 })])
  })

  it('refuses a forged seal: the right hash, without the key, or a signature of other lines', () => {
    const file = written(['a', 'b'])
    const text = readFileSync(file, 'utf8')
    writeFileSync(file, text.replace(/"sig":"[^"]+"/, '"sig":null'))
    expect(read(file, { verifier }).refused).toEqual([expect.objectContaining({ reason: 'altered' })])
    // Without a verifier the seals are not checked: an unsigned file counts, block by block.
    expect(read(file).keys).toEqual(['a', 'b'])
  })

  it('drops a block without its seal as torn: a writer stopped mid-block', () => {
    const file = written(['a', 'b'])
    writeFileSync(file, `${readFileSync(file, 'utf8')}${line('c', 'succeeded', 200)}\n`)
    expect(read(file, { verifier })).toMatchObject({ keys: ['a', 'b'], torn: 1 })
    expect(read(file)).toMatchObject({ keys: ['a', 'b'], torn: 1 })
  })

  it('refuses, line by line, lines whose call, attempt or shard is not their header', () => {
    const file = written(['a'], { signer: null })
    const text = readFileSync(file, 'utf8').split('\n')
    const strays = [
      line('b', 'succeeded', 200, { call: 'fedcba9876543210' }),
      line('c', 'succeeded', 200, { attempt: 2 }),
      line('d', 'succeeded', 200, { shard: '1/2' }),
      line('e', 'succeeded', 200)
    ]
    text.splice(1, 0, ...strays)
    writeFileSync(file, text.join('\n'))
    expect(read(file)).toMatchObject({ keys: ['e', 'a'], refusedLines: 3 })
  })

  it('reads a format 1 file line by line, refusing later attempts, and refuses it whole with a verifier', () => {
    const file = join(dir, 'v1.jsonl')
    writeFileSync(file, [line('a', 'succeeded', 200), line('b', 'failed', 500, { attempt: 5 })].join('\n') + '\n')
    expect(read(file, { attempt: 2 })).toMatchObject({ keys: ['a'], refusedLines: 1 })
    expect(read(file, { verifier }).refused).toEqual([
      expect.objectContaining({ reason: 'unsigned', detail: 'unsigned (format 1, written before records were signed)' })
    ])
  })

  it('reads an earlier format 2 file, whose header names its signer `key`, and checks its seals', () => {
    const file = join(dir, 'released.jsonl')
    const head = readFileSync(written([]), 'utf8').split('\n')[0].replace('"signer":', '"key":')
    expect(head).toContain(`"key":"${signer.publicKey}"`)
    const text = `${head}\n${line('a', 'succeeded', 200)}\n${line('b', 'failed', 500)}\n`
    const sha256 = createHash('sha256').update(text).digest('hex')
    writeFileSync(file, text + sealLine({ lines: 2, sha256, sig: signer.sign(sealMessage(2, sha256)) }))
    expect(read(file, { verifier, run: '100' })).toMatchObject({ keys: ['a', 'b'], refused: [] })
    const otherKey = recordVerifier(other.publicKey)!
    expect(read(file, { verifier: otherKey }).refused).toEqual([
      expect.objectContaining({ reason: 'key', fromLine: 1 })
    ])
    // Both names at once is no header this action wrote.
    writeFileSync(file, text.replace('"key":', '"signer":null,"key":'))
    expect(() => read(file)).toThrow(/is not a results file's of this action/)
  })

  it('writes the record-key as signer, so that a result line is the only kind with a key', () => {
    const [head, ...rest] = readFileSync(written(['a']), 'utf8')
      .trimEnd()
      .split('\n')
    expect(JSON.parse(head)).toMatchObject({ m2m: 'results', signer: signer.publicKey })
    expect(JSON.parse(head)).not.toHaveProperty('key')
    expect(
      [head, ...rest]
        .map(l => JSON.parse(l) as { key?: string })
        .filter(l => l.key)
        .map(l => l.key)
    ).toEqual(['a'])
  })

  it('refuses a file of a newer format, naming both versions and what to upgrade', () => {
    const file = join(dir, 'v3.jsonl')
    writeFileSync(file, '{"m2m":"results","format":3,"anything":"new"}\n')
    expect(() => read(file)).toThrow(NewerFormatError)
    expect(() => read(file)).toThrow(
      /is a results file of format 3, which this version of the action does not read \(it reads formats 1 and 2\): upgrade this step's action/
    )
  })

  it.each([
    ['a header with a field too many', (h: string) => h.replace('"m2m":"results",', '"m2m":"results","x":1,')],
    ['a header of the wrong shape', (h: string) => h.replace('"attempt":1', '"attempt":"1"')],
    ['a first line of another kind', (h: string) => h.replace('"m2m":"results"', '"m2m":"other"')]
  ])('throws for %s, naming the file', (_what, change) => {
    const file = written(['a'], { signer: null })
    const [head, ...rest] = readFileSync(file, 'utf8').split('\n')
    writeFileSync(file, [change(head), ...rest].join('\n'))
    expect(() => read(file)).toThrow(/is not a results file's of this action/)
  })

  const field = (patch: Record<string, unknown>) => (head: string) => JSON.stringify({ ...JSON.parse(head), ...patch })
  const key43 = 'A'.repeat(43)
  it.each<[string, Record<string, unknown>]>([
    ['a run of 101 characters', { run: '1'.repeat(101) }],
    ['a run with a space', { run: '10 0' }],
    ['attempt 0', { attempt: 0 }],
    ['an attempt past the last a run has', { attempt: MAX_RUN_ATTEMPT + 1 }],
    ['a call of other characters', { call: 'g'.repeat(16) }],
    ['a shard that is none', { shard: '0/2' }],
    ['a shard of 8 characters', { shard: '10/20000' }],
    ['a snapshot that is no digest', { snapshot: `sha256:${'g'.repeat(64)}` }],
    ['a listing that is no digest', { listing: `sha256:${'c'.repeat(63)}` }],
    ['a where of 4,097 characters', { where: 'x'.repeat(4097) }],
    ['a plan of another form', { plan: 'plan3.abc' }],
    ['a plan after other text', { plan: 'x.plan2.abc' }],
    ['a plan before other text', { plan: 'plan2.abc x' }],
    ['a plan of 301 characters', { plan: `plan2.${'a'.repeat(295)}` }],
    ['a canary that is a string', { canary: 'false' }],
    ['a signer one character short', { signer: `m2mrk1.${key43.slice(1)}` }],
    ['a signer after other text', { signer: `xm2mrk1.${key43}` }],
    ['a signer before other text', { signer: `m2mrk1.${key43}.` }]
  ])('throws for a header with %s', (_what, patch) => {
    const file = written(['a'], { signer: null })
    const [head, ...rest] = readFileSync(file, 'utf8').split('\n')
    writeFileSync(file, [field(patch)(head), ...rest].join('\n'))
    expect(() => read(file)).toThrow(/results-[^"]*\.jsonl" its header is not a results file's of this action/)
  })

  it('reads a header with every field at its edge', () => {
    const file = written(['a'], { signer: null })
    const [head, ...rest] = readFileSync(file, 'utf8').split('\n')
    const edges = {
      run: `${'9'.repeat(99)}-`,
      attempt: MAX_RUN_ATTEMPT,
      shard: '1/2',
      listing: `sha256:${'e'.repeat(64)}`,
      where: 'x'.repeat(4096),
      plan: `plan2.${'a'.repeat(294)}`,
      signer: `m2mrk1.${key43}`
    }
    writeFileSync(file, [field(edges)(head), ...rest].join('\n'))
    // Read, and its line refused as not its header's (the attempt and the shard moved).
    expect(read(file)).toMatchObject({ keys: [], refused: [], refusedLines: 1 })
  })

  it.each([
    ['that is not JSON', '{"m2m":"results",'],
    ['whose format is no integer', '{"m2m":"results","format":"2"}']
  ])('throws for a first line of its own %s, naming it', (_what, first) => {
    const file = written(['a'], { signer: null })
    const [, ...rest] = readFileSync(file, 'utf8').split('\n')
    writeFileSync(file, [first, ...rest].join('\n'))
    expect(() => read(file)).toThrow(/" its first line is not a results file's of this action/)
  })

  it.each([
    ['a sha256 one digit short', (seal: string) => seal.replace(/"sha256":"[0-9a-f]/, '"sha256":"')],
    ['a sha256 after other text', (seal: string) => seal.replace(/"sha256":"/, '"sha256":"x')],
    ['a sha256 before other text', (seal: string) => seal.replace(/("sha256":"[0-9a-f]+)"/, '$1x"')],
    ['a signature that is a number', (seal: string) => seal.replace(/"sig":null/, '"sig":5')],
    ['a sha256 that is a number', (seal: string) => seal.replace(/"sha256":"[0-9a-f]+"/, '"sha256":5')],
    ['another kind', (seal: string) => seal.replace('"m2m":"seal"', '"m2m":"results"')]
  ])('throws for a seal with %s, naming its line', (_what, change) => {
    const file = written(['a'], { signer: null })
    const lines = readFileSync(file, 'utf8').split('\n')
    lines[2] = change(lines[2])
    writeFileSync(file, lines.join('\n'))
    expect(() => read(file)).toThrow(/" line 3 is not a results file's of this action/)
  })

  it('throws for a seal of the wrong shape', () => {
    const file = written(['a'], { signer: null })
    writeFileSync(file, readFileSync(file, 'utf8').replace('"lines":1', '"lines":"one"'))
    expect(() => read(file)).toThrow(/line 3 is not a results file's of this action/)
  })
})
