import { jest } from '@jest/globals'
import { mkdirSync, mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { LineFields, resultLine } from '../../src/routine/lines.js'
import { ResultFileError } from '../../src/routine/result-files.js'
import { expectedLines, MAX_ROOM_KEYS, PlaceMemo, readEarlierResults, ResumeOptions } from '../../src/routine/resume.js'
import { keyHash, KeyTable } from '../../src/targets/key-table.js'
import { Shard, shardOf } from '../../src/targets/shards.js'

let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'm2m-resume-'))
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

const FP = '0123456789abcdef'

/** One result line of attempt `runAttempt`: [key, outcome, status]. */
const line = (runAttempt: number, key: string, outcome: LineFields['outcome'], status: number | null, call = FP) =>
  resultLine({ fingerprint: call, runAttempt }, { key, outcome, status, index: 0, target: { id: key } })

const file = (name: string, lines: string[]) => {
  const path = join(dir, name)
  mkdirSync(join(path, '..'), { recursive: true })
  writeFileSync(path, lines.map(l => `${l}\n`).join(''))
  return path
}

function read(overrides: Partial<ResumeOptions> = {}) {
  const infos: string[] = []
  const warnings: string[] = []
  const earlier = readEarlierResults({
    from: dir,
    fingerprint: FP,
    info: m => infos.push(m),
    warning: m => warnings.push(m),
    ...overrides
  })
  return { earlier, infos, warnings }
}

describe('finishedAt', () => {
  const keys = ['ok', 'none', 'bad', 'never', 'other']
  const earlierOf = () =>
    read({
      from: file('r.jsonl', [
        line(1, 'ok', 'succeeded', 200),
        line(1, 'none', 'skipped', null),
        line(1, 'bad', 'failed', 500)
      ])
    }).earlier
  const answers = [200, null, undefined, undefined, undefined]

  it('answers as finished, asked in list order and again by place, in any order', () => {
    const earlier = earlierOf()
    expect(keys.map((key, place) => earlier.finishedAt(place, key))).toEqual(answers)
    const again = [4, 2, 0, 3, 1, 0]
    expect(again.map(place => earlier.finishedAt(place, keys[place]))).toEqual(again.map(p => answers[p]))
    expect(keys.map(key => earlier.finished(key))).toEqual(answers)
  })

  it("looks up a place asked with another key, not the first key's answer", () => {
    const earlier = earlierOf()
    expect(keys.map((key, place) => earlier.finishedAt(place, key))).toEqual(answers)
    // Place 0 held "ok" (200), place 2 "bad" (not finished): each answers for the key asked.
    expect(earlier.finishedAt(0, 'bad')).toBeUndefined()
    expect(earlier.finishedAt(2, 'ok')).toBe(200)
    expect(earlier.finishedAt(1, 'ok')).toBe(200)
    // Asked first out of order (place 7 before 5 and 6), each is still answered.
    expect(earlier.finishedAt(7, 'ok')).toBe(200)
    expect(earlier.finishedAt(5, 'none')).toBeNull()
    expect(earlier.finishedAt(6, 'bad')).toBeUndefined()
  })
})

describe('expectedLines', () => {
  const lines = (count: number, width = 99) => Array.from({ length: count }, (_, i) => `${i}`.padEnd(width, '.'))

  it("gives the lines of all the files at the rate of the first one's first 64 KiB", () => {
    // 100-byte lines: 655 whole ones in the sample, so the rate is 655 lines in 65,536 bytes.
    const one = file('a/results.jsonl', lines(3000))
    expect(expectedLines([one])).toBe(Math.ceil((300_000 * 655) / 65_536))
    expect(expectedLines([one])).toBeGreaterThanOrEqual(2990)
    expect(expectedLines([one])).toBeLessThanOrEqual(3000)
    const two = file('b/results.jsonl', lines(1000))
    expect(expectedLines([one, two])).toBe(Math.ceil((400_000 * 655) / 65_536))
  })

  it('reads a first file shorter than 64 KiB whole, and only it', () => {
    const small = file('a/results.jsonl', lines(10))
    const big = file('b/results.jsonl', lines(90))
    expect(expectedLines([small, big])).toBe(100)
    expect(expectedLines([big, small])).toBe(100)
  })

  it('counts only lines long enough to be result lines, and makes room for at most MAX_ROOM_KEYS', () => {
    // 97 bytes and a newline: the shortest result line; blank and short lines are not counted.
    const mixed = file('a/mixed.jsonl', [...lines(10, 97), ...Array(500).fill(''), ...lines(10, 96)])
    expect(expectedLines([mixed])).toBe(10) // read whole: its long lines exactly
    const blank = file('b/blank.jsonl', Array(70_000).fill(''))
    expect(expectedLines([blank, mixed])).toBe(0)
    // A sparse gigabyte after it: its size at the first file's rate is more than the bound.
    const sparse = join(dir, 'c/big.jsonl')
    file('c/big.jsonl', [])
    truncateSync(sparse, 2 ** 30)
    expect(expectedLines([file('d/first.jsonl', lines(700)), sparse])).toBe(MAX_ROOM_KEYS)
  })

  it('gives 0 for fewer than two whole lines, an empty file, or one that cannot be read', () => {
    expect(expectedLines([file('one.jsonl', lines(1, 70_000))])).toBe(0)
    expect(expectedLines([file('two.jsonl', lines(2, 97))])).toBe(2)
    expect(expectedLines([file('empty.jsonl', [])])).toBe(0)
    expect(expectedLines([join(dir, 'missing.jsonl')])).toBe(0)
    expect(expectedLines([file('x.jsonl', lines(5)), join(dir, 'missing.jsonl')])).toBe(0)
  })
})

describe('PlaceMemo', () => {
  const h = (key: string) => keyHash(key)

  it('gives back the word noted for a place, for the same hashes only', () => {
    const memo = new PlaceMemo(0)
    expect(memo.word(0, h('a'))).toBeUndefined()
    expect(memo.note(0, h('a'), 7)).toBe(7)
    expect(memo.note(1, h('b'), 0)).toBe(0)
    expect(memo.word(0, h('a'))).toBe(7)
    expect(memo.word(1, h('b'))).toBe(0)
    expect(memo.word(0, h('b'))).toBeUndefined()
    expect(memo.word(1, h('a'))).toBeUndefined()
    expect(memo.word(2, h('a'))).toBeUndefined()
  })

  it('has nothing for a place not noted yet, even for hashes of 0 (as its unwritten words are)', () => {
    const memo = new PlaceMemo(8)
    const zero = { shard: 0, first: 0, second: 0 }
    expect(memo.word(0, zero)).toBeUndefined()
    memo.note(0, h('a'), 5)
    expect(memo.word(1, zero)).toBeUndefined()
    expect(memo.word(3, zero)).toBeUndefined()
  })

  it('tells apart keys whose first hashes are equal', () => {
    const memo = new PlaceMemo(0)
    const a = h('a')
    memo.note(0, a, 9)
    expect(memo.word(0, { shard: a.shard, first: a.first, second: a.second ^ 1 })).toBeUndefined()
    expect(memo.word(0, { shard: a.shard, first: a.first ^ 1, second: a.second })).toBeUndefined()
  })

  it('notes places in order only: one asked ahead is answered but not kept', () => {
    const memo = new PlaceMemo(0)
    expect(memo.note(1, h('b'), 5)).toBe(5)
    expect(memo.word(1, h('b'))).toBeUndefined()
    memo.note(0, h('a'), 3)
    memo.note(0, h('x'), 4)
    expect(memo.word(0, h('a'))).toBe(3)
    expect(memo.word(0, h('x'))).toBeUndefined()
  })

  it('grows past the room it was made with, keeping every place', () => {
    const memo = new PlaceMemo(2)
    const count = 1000
    for (let place = 0; place < count; place++) memo.note(place, h(`k${place}`), place + 1)
    for (let place = 0; place < count; place++) expect(memo.word(place, h(`k${place}`))).toBe(place + 1)
    expect(memo.word(count, h(`k${count}`))).toBeUndefined()
  })
})

describe('readEarlierResults', () => {
  it('makes room for the lines at once, not in a shard job, and reads on when there is no memory for it', () => {
    const path = file(
      'r.jsonl',
      Array.from({ length: 50 }, (_, i) => line(1, `t-${i}`, 'succeeded', 200))
    )
    const reserve = jest.spyOn(KeyTable.prototype, 'reserve')
    try {
      expect(read({ from: path }).earlier.size).toBe(50)
      expect(reserve).toHaveBeenCalledTimes(1)
      expect(reserve.mock.calls[0][0]).toBe(50)
      reserve.mockClear()
      read({ from: path, shard: { index: 1, count: 2 } })
      expect(reserve).not.toHaveBeenCalled()
      reserve.mockImplementation(() => {
        throw new RangeError('Array buffer allocation failed')
      })
      const { earlier } = read({ from: path })
      expect(earlier.size).toBe(50)
      expect(earlier.finished('t-49')).toBe(200)
    } finally {
      reserve.mockRestore()
    }
  })

  it.each([
    ['a missing path', () => join(dir, 'missing')],
    ['an empty folder', () => dir],
    ['a folder without results files', () => (file('notes.txt', ['x']), dir)]
  ])('takes %s for a first attempt, with a notice', (_, from) => {
    const path = from()
    const { earlier, infos, warnings } = read({ from: path })
    expect(infos).toEqual([
      `No earlier results in ${path} (call-resume-from): a first attempt, so every target is called`
    ])
    expect(warnings).toEqual([])
    expect(earlier.size).toBe(0)
    expect(earlier.finished('a')).toBeUndefined()
    expect(earlier.finishedAt(0, 'a')).toBeUndefined()
  })

  it('finishes the targets whose latest line succeeded or was skipped, with their status', () => {
    const path = file('r.jsonl', [
      line(1, 'ok', 'succeeded', 200),
      line(1, 'accepted', 'succeeded', 404),
      line(1, 'skip', 'skipped', 204),
      line(1, 'none', 'skipped', null),
      line(1, 'bad', 'failed', 500),
      line(1, 'lost', 'unknown', null),
      line(1, 'never', 'not-made', null)
    ])
    const { earlier, infos, warnings } = read({ from: path })
    expect(['ok', 'accepted', 'skip', 'none', 'bad', 'lost', 'never', 'other'].map(earlier.finished)).toEqual([
      200,
      404,
      204,
      null,
      undefined,
      undefined,
      undefined,
      undefined
    ])
    expect(earlier.size).toBe(7)
    expect(infos).toEqual(['Read 7 earlier result lines from 1 file (call-resume-from)'])
    expect(warnings).toEqual([])
  })

  it.each([100, 599])('keeps a status of %i', status => {
    const { earlier } = read({ from: file('r.jsonl', [line(1, 'a', 'succeeded', status)]) })
    expect(earlier.finished('a')).toBe(status)
  })

  it.each<[string, string[][], number | null | undefined]>([
    ['attempt 2 failed after attempt 1 succeeded', [['1 a succeeded 200', '2 a failed 500']], undefined],
    ['attempt 1 failed, then attempt 2 skipped', [['1 a failed 500', '2 a skipped 201']], 201],
    ['attempt 2 read before attempt 1', [['2 a failed 500'], ['1 a succeeded 200']], undefined],
    ['attempt 2 succeeded, read before attempt 1 failed', [['2 a succeeded 200'], ['1 a failed 500']], 200],
    ['a later line of the same attempt', [['1 a failed 500', '1 a succeeded 202']], 202],
    ['a later line of the same attempt, in another file', [['1 a succeeded 200'], ['1 a unknown null']], undefined],
    ['attempt 12 after attempt 3', [['12 a succeeded 200', '3 a failed 500']], 200],
    ['attempt 100,000 after attempt 3', [['100000 a succeeded 200', '3 a failed 500']], 200],
    ['attempt 3 after attempt 100,000', [['100000 a failed 500', '3 a succeeded 200']], undefined],
    ['a skipped line carrying no status', [['1 a failed 500', '2 a skipped null']], null]
  ])('lets the latest line win: %s', (_, files, expected) => {
    files.forEach((lines, i) =>
      file(`${i}.jsonl`, [
        ...lines.map(text => {
          const [attempt, key, outcome, status] = text.split(' ')
          return line(Number(attempt), key, outcome as LineFields['outcome'], status === 'null' ? null : Number(status))
        })
      ])
    )
    const { earlier, infos } = read()
    expect(earlier.finished('a')).toBe(expected)
    expect(earlier.size).toBe(1)
    expect(infos).toEqual([
      `Read ${files.flat().length} earlier result lines from ${files.length} file${files.length === 1 ? '' : 's'} (call-resume-from)`
    ])
  })

  it('keeps each target apart', () => {
    file('r.jsonl', [line(1, 'a', 'succeeded', 200), line(2, 'b', 'failed', 500), line(1, 'c', 'succeeded', 201)])
    const { earlier } = read()
    expect(['a', 'b', 'c'].map(earlier.finished)).toEqual([200, undefined, 201])
    expect(earlier.size).toBe(3)
  })

  it('keeps apart two keys made to share their public hashes: a failed one is called again', () => {
    // FNV-1a and the multiplicative hash the table once keyed by, both equal (test/targets/key-table.test.ts).
    const a = 'host-6ishl2ymnayxvhbxkg3x5om2tjcw6d0zpnx6ax8v4u7zpbbwvl7i4srf3uen13hrf6e1o5obpo19vjgborgec5dt5u'
    const b = 'host-6ishl2ymnaodhr8wka5o160ugjcw6dij6x16ax8v4u7zpbbwvldun5uf3uen13hrfxofidobpo1apfuborgecfsfgw'
    file('r.jsonl', [line(1, b, 'failed', 503), line(1, a, 'succeeded', 201)])
    const { earlier } = read()
    expect([a, b].map(earlier.finished)).toEqual([201, undefined])
    expect([earlier.finishedAt(0, b), earlier.finishedAt(1, a)]).toEqual([undefined, 201])
    expect(earlier.size).toBe(2)
  })

  it('ignores planned lines: a dry run finishes nothing and changes nothing', () => {
    file('r.jsonl', [line(1, 'a', 'succeeded', 200), line(2, 'a', 'planned', null), line(3, 'p', 'planned', null)])
    const { earlier, warnings } = read()
    expect(earlier.finished('a')).toBe(200)
    expect(earlier.finished('p')).toBeUndefined()
    expect(earlier.size).toBe(1)
    expect(warnings).toEqual([])
  })

  it("counts another call's lines in one warning, and finishes none of them", () => {
    file('a.jsonl', [line(1, 'a', 'succeeded', 200, 'ffffffffffffffff'), line(1, 'b', 'succeeded', 200)])
    file('b.jsonl', [
      line(2, 'a', 'succeeded', 200, 'eeeeeeeeeeeeeeee'),
      line(2, 'c', 'failed', 500, 'eeeeeeeeeeeeeeee')
    ])
    const { earlier, warnings, infos } = read()
    expect(earlier.finished('a')).toBeUndefined()
    expect(earlier.finished('b')).toBe(200)
    expect(earlier.size).toBe(1)
    expect(warnings).toEqual([
      '3 of 4 earlier result lines are of another call (another method, path, body or base-url) and were ignored'
    ])
    expect(infos).toEqual(['Read 4 earlier result lines from 2 files (call-resume-from)'])
  })

  it('writes large counts with separators', () => {
    const lines = Array.from({ length: 1500 }, (_, i) =>
      line(1, `k${i}`, 'succeeded', 200, i < 1200 ? 'ffffffffffffffff' : FP)
    )
    file('r.jsonl', lines)
    const { earlier, warnings, infos } = read()
    expect(earlier.size).toBe(300)
    expect(earlier.finished('k1499')).toBe(200)
    expect(warnings[0]).toMatch(/^1,200 of 1,500 earlier result lines/)
    expect(infos).toEqual(['Read 1,500 earlier result lines from 1 file (call-resume-from)'])
  })

  it.each<[Shard]>([[{ index: 1, count: 3 }], [{ index: 2, count: 3 }], [{ index: 3, count: 3 }]])(
    "keeps only shard %j's targets",
    shard => {
      const keys = Array.from({ length: 60 }, (_, i) => `target-${i}`)
      file('r.jsonl', [...keys.map(k => line(1, k, 'succeeded', 200)), line(2, 'target-0', 'failed', 500)])
      const { earlier } = read({ shard })
      const mine = keys.filter(k => shardOf({ id: k }, shard.count) === shard.index)
      expect(mine.length).toBeGreaterThan(5)
      expect(mine.length).toBeLessThan(55)
      expect(earlier.size).toBe(mine.length)
      for (const k of keys.slice(1)) expect(earlier.finished(k)).toBe(mine.includes(k) ? 200 : undefined)
    }
  )

  it('warns of a torn last line, once a file, and reads the rest', () => {
    const a = file('a.jsonl', [line(1, 'a', 'succeeded', 200)])
    writeFileSync(a, `${line(1, 'a', 'succeeded', 200)}\n${line(1, 'b', 'succeeded', 200).slice(0, 40)}`)
    const b = file('sub/b.jsonl', [line(1, 'c', 'succeeded', 200)])
    writeFileSync(b, `${line(1, 'c', 'succeeded', 200)}\n{"key":"d","call`)
    const { earlier, warnings } = read()
    expect(['a', 'b', 'c', 'd'].map(earlier.finished)).toEqual([200, undefined, 200, undefined])
    expect(warnings).toEqual([
      `"${a}" ends in a torn line or block (its writer was stopped mid-line): it is ignored`,
      `"${b}" ends in a torn line or block (its writer was stopped mid-line): it is ignored`
    ])
  })

  it('refuses an unreadable line before any call, naming the file and line', () => {
    const bad = file('b.jsonl', [line(1, 'a', 'succeeded', 200), 'garbage', line(1, 'b', 'succeeded', 200)])
    file('a.jsonl', [line(1, 'c', 'succeeded', 200)])
    const infos: string[] = []
    expect(() => read({ info: m => infos.push(m) })).toThrow(
      new ResultFileError(
        `Input call-resume-from: "${bad}" line 2 is not a result line of this action: it should be one JSON object naming key, call, outcome, status, runAttempt and shard once each, in the shapes docs/routine.md gives; no call was made`
      )
    )
    expect(() => read()).toThrow(ResultFileError)
    expect(infos).toEqual([])
  })

  it('reads a file that starts with a byte-order mark', () => {
    const path = join(dir, 'bom.jsonl')
    writeFileSync(path, `\ufeff${line(1, 'a', 'succeeded', 200)}\n${line(1, 'b', 'failed', 500)}\n`)
    const { earlier, infos } = read({ from: path })
    expect(['a', 'b'].map(earlier.finished)).toEqual([200, undefined])
    expect(infos).toEqual(['Read 2 earlier result lines from 1 file (call-resume-from)'])
  })

  it.each([
    ['a repeated outcome', `${line(1, 'a', 'failed', 500).slice(0, -1)},"outcome":"succeeded"}`],
    ['an attempt past the bound', line(100_001, 'a', 'succeeded', 200)],
    ['a call that is not a fingerprint', line(1, 'a', 'succeeded', 200, '\n::stop-commands::x')]
  ])('refuses a line with %s before any call', (_, text) => {
    const bad = file('r.jsonl', [line(1, 'b', 'succeeded', 200), text])
    expect(() => read()).toThrow(`Input call-resume-from: "${bad}" line 2 is not a result line of this action`)
  })

  it('refuses a line longer than 16 MiB before any call, having read no more of it', () => {
    const path = join(dir, 'long.jsonl')
    writeFileSync(path, `${line(1, 'b', 'succeeded', 200)}\n{"key":"${'a'.repeat(16 * 1024 * 1024)}`)
    expect(() => read({ from: path })).toThrow(
      new ResultFileError(
        `Input call-resume-from: "${path}" line 2 is longer than 16 MiB, so it is not a result line of this action; no call was made`
      )
    )
  })

  it('names a file in its warnings quoted, without the control characters of its name', () => {
    const torn = file('a\r\n::stop-commands::b\u0085/r.jsonl', [line(1, 'a', 'succeeded', 200)])
    writeFileSync(torn, `${line(1, 'a', 'succeeded', 200)}\n{"key"`)
    const { warnings } = read()
    expect(warnings).toEqual([
      `"${join(dir, 'a::stop-commands::b', 'r.jsonl')}" ends in a torn line or block (its writer was stopped mid-line): it is ignored`
    ])
  })

  // /proc/self/mem is a regular file whose first page cannot be read: EIO.
  const onLinux = process.platform === 'linux' ? it : it.skip
  onLinux('says why a file cannot be read, before any call', () => {
    expect(() => read({ from: '/proc/self/mem' })).toThrow(
      new ResultFileError(
        'Input call-resume-from: "/proc/self/mem" cannot be read (EIO: i/o error, read); no call was made'
      )
    )
  })

  it("keeps which targets a file of this step's plan finished: an apply's own earlier attempt", () => {
    const header = (plan: string) =>
      `{"m2m":"results","format":2,"run":"1","attempt":1,"call":"${FP}","shard":null,"snapshot":null,"listing":null,"where":null,"plan":"${plan}","canary":false,"key":null}`
    const seal = `{"m2m":"seal","lines":1,"sha256":"${'0'.repeat(64)}","sig":null}`
    const plan = `plan2.2.${'a'.repeat(8)}.${'b'.repeat(8)}.${'c'.repeat(8)}.${'d'.repeat(8)}.${'e'.repeat(8)}.${'f'.repeat(8)}.${'0'.repeat(8)}.${'1'.repeat(64)}`
    file('applied.jsonl', [header(plan), line(1, 'a', 'succeeded', 204), seal])
    file('earlier.jsonl', [header(plan.replace('plan2.2', 'plan2.3')), line(1, 'b', 'succeeded', 204), seal])
    const { earlier, warnings } = read({ plan })
    expect(warnings).toEqual([])
    expect([earlier.finished('a'), earlier.finishedByPlan('a')]).toEqual([204, true])
    expect([earlier.finished('b'), earlier.finishedByPlan('b')]).toEqual([204, false])
    expect(earlier.finishedByPlan('c')).toBe(false)
    expect(read().earlier.finishedByPlan('a')).toBe(false)
  })

  it('sets aside, in one warning, files that are not evidence: their targets are called again', () => {
    file('r.jsonl', [line(1, 'a', 'succeeded', 200)])
    const { earlier, warnings } = read({ expected: { sameAttempt: 'canary only', attempt: 1 } })
    expect(earlier.finished('a')).toBeUndefined()
    expect(warnings).toEqual([
      "1 result line was not counted: another call, attempt or shard than their file's header, or a later attempt; their targets are called again."
    ])
  })

  it('refuses a path that is neither a file nor a folder', () => {
    expect(() => read({ from: '/dev/null' })).toThrow(
      new ResultFileError('Input call-resume-from: /dev/null is neither a file nor a folder')
    )
  })
})
