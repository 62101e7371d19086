import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { callEntry, PlanBuilder } from '../../src/routine/plan-calls.js'
import { describeDifference, entryHash, plannedCallAt, readPlanFile } from '../../src/routine/plan-file.js'
import { headerLine, RecordHeader, sealLine } from '../../src/routine/record-format.js'
import { fmix32, fnv1a32 } from '../../src/targets/shards.js'
import { plainHeader } from '../helpers.js'

let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'm2m-plan-file-'))
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

const INPUTS = {
  targets: 'sha256:x',
  call: 'POST /v1/t/{id}',
  body: '{"a":"{id}"}',
  baseUrl: new URL('https://api.test/')
}
const CALLS = ['t1', 't2', 't3'].map(id => ({ key: id, method: 'POST', path: `/v1/t/${id}`, body: `{"a":"${id}"}` }))

interface Call {
  readonly key: string
  readonly method: string
  readonly path: string
  readonly body: string | undefined
}

/** A dry run's results file for CALLS, with one skipped target, and its digest. */
function planFile(): { file: string; digest: string } {
  return planFileOf(CALLS)
}

/** A dry run's results file for `calls` after a skipped target, t0 (`lines` as written), and its digest. */
function planFileOf(calls: readonly Call[], lines = (line: string) => line): { file: string; digest: string } {
  const plan = new PlanBuilder()
  for (const c of calls) plan.add(c.key, c.method, c.path, c.body)
  plan.skip('t0')
  const digest = plan.digest(INPUTS)
  const header: RecordHeader = { ...plainHeader('1'), plan: digest }
  const text = [
    headerLine(header).trimEnd(),
    '{"key":"t0","call":"0123456789abcdef","outcome":"skipped","status":200,"runAttempt":1,"shard":null,"index":0}',
    ...calls.map((c, i) =>
      lines(
        `{"key":"${c.key}","call":"0123456789abcdef","outcome":"planned","status":null,"runAttempt":1,"shard":null,"index":${i + 1},"method":"${c.method}","path":"${c.path}"${c.body === undefined ? '' : `,"body":${c.body}`}}`
      )
    ),
    sealLine({ lines: 4, sha256: '0'.repeat(64), sig: null }).trimEnd()
  ]
  const folder = join(dir, 'plan')
  mkdirSync(folder)
  const file = join(folder, 'results-abc.jsonl')
  writeFileSync(file, `${text.join('\n')}\n`)
  return { file, digest }
}

describe('readPlanFile', () => {
  it("reads the approved plan's file, from a folder that holds it alone, with a hash per call", () => {
    const { file, digest } = planFile()
    const plan = readPlanFile(join(dir, 'plan'), digest)
    expect(plan).toMatchObject({ file, count: 3 })
    expect([...plan.hashes.subarray(2, 4)]).toEqual([...entryHash(callEntry('t2', 'POST', '/v1/t/t2', '{"a":"t2"}'))])
    expect(plannedCallAt(plan, 2)).toEqual(CALLS[2])
    expect(plannedCallAt(plan, 3)).toBeUndefined()
  })

  it('refuses a file whose calls were altered', () => {
    const { file, digest } = planFile()
    writeFileSync(file, readFileSync(file, 'utf8').replace('"/v1/t/t2"', '"/v1/t/t9"'))
    expect(() => readPlanFile(file, digest)).toThrow(
      /^Input plan-from: ".*results-abc\.jsonl" is not the approved plan: its calls are not the approved plan’s: it was altered after the plan was made\. No call was made\./
    )
  })

  it("refuses another plan's file, a line of another kind, and a folder of several files", () => {
    const { file, digest } = planFile()
    expect(() => readPlanFile(file, digest.replace('plan2.3.', 'plan2.4.'))).toThrow(
      /its header names another plan, or none/
    )
    writeFileSync(file, `${readFileSync(file, 'utf8')}{"key":"t5","outcome":"succeeded"}\n`)
    expect(() => readPlanFile(file, digest)).toThrow(/line 7 is neither a planned nor a skipped line/)
    writeFileSync(join(dir, 'plan', 'other.jsonl'), '')
    expect(() => readPlanFile(join(dir, 'plan'), digest)).toThrow(
      /^Input plan-from: ".*plan" must be the plan job's results file, or a folder holding it alone; it holds 2 \.jsonl files/
    )
  })
})

describe('readPlanFile: what it reads', () => {
  it('reads a plan of more calls than its first room, each hash and place in order', () => {
    const calls = Array.from({ length: 1100 }, (_, i) => ({
      key: `k${i}`,
      method: 'DELETE',
      path: `/v1/k/${i}`,
      body: undefined
    }))
    const { file, digest } = planFileOf(calls)
    const plan = readPlanFile(file, digest)
    expect(plan.count).toBe(1100)
    expect(plan.hashes).toHaveLength(2200)
    for (const i of [0, 511, 512, 1023, 1099]) {
      const { key, method, path } = calls[i]
      expect([...plan.hashes.subarray(2 * i, 2 * i + 2)]).toEqual([
        ...entryHash(callEntry(key, method, path, undefined))
      ])
      expect(plan.places[i]).toBe(fmix32(fnv1a32(key)))
    }
  })

  it('passes blank lines, and reads a body of null as none and any other as its JSON', () => {
    const calls = [
      { key: 'a', method: 'POST', path: '/a', body: 'null' },
      { key: 'b', method: 'POST', path: '/b', body: '[1,{"x":"y"}]' }
    ]
    const { file, digest } = planFileOf(calls, line => `${line}\n  `)
    const plan = readPlanFile(file, digest)
    expect(plannedCallAt(plan, 0)).toEqual({ key: 'a', method: 'POST', path: '/a', body: undefined })
    expect(plannedCallAt(plan, 1)).toEqual({ key: 'b', method: 'POST', path: '/b', body: '[1,{"x":"y"}]' })
  })

  it.each([
    ['with no outcome planned', '{"key":"a","outcome":"succeeded","method":"POST","path":"/a"}'],
    ['without a key', '{"outcome":"planned","method":"POST","path":"/a"}'],
    ['without a method', '{"key":"a","outcome":"planned","path":"/a"}'],
    ['without a path', '{"key":"a","outcome":"planned","method":"POST"}'],
    ['skipped, with a key that is no string', '{"key":5,"outcome":"skipped"}'],
    ['that is null', 'null'],
    ['that is an array', '["a","POST","/a"]']
  ])('refuses a line %s as neither planned nor skipped', (_what, line) => {
    const { file, digest } = planFile()
    writeFileSync(file, `${readFileSync(file, 'utf8')}${line}\n`)
    expect(() => readPlanFile(file, digest)).toThrow(
      /: line 7 is neither a planned nor a skipped line\. No call was made/
    )
  })

  it('refuses a first line that is no results header, whatever plan it names', () => {
    const { file, digest } = planFile()
    const [, ...rest] = readFileSync(file, 'utf8').split('\n')
    writeFileSync(file, [`{"plan":"${digest}"}`, ...rest].join('\n'))
    expect(() => readPlanFile(file, digest)).toThrow(/its header names another plan, or none/)
  })

  it('names plan-from for a path that holds no file, or is neither a file nor a folder', () => {
    const { digest } = planFile()
    expect(() => readPlanFile(join(dir, 'none'), digest)).toThrow(
      /^Input plan-from: ".*none" must be the plan job's results file, or a folder holding it alone; it holds 0 \.jsonl files/
    )
    expect(() => readPlanFile('/dev/null', digest)).toThrow(
      /^Input plan-from: \/dev\/null is neither a file nor a folder/
    )
  })
})

describe('describeDifference', () => {
  it('says the body differs only when the key, the method and the path are the same', () => {
    const [call] = CALLS
    for (const other of [{ key: 'x' }, { method: 'PUT' }, { path: '/v1/t/x' }]) {
      expect(describeDifference(0, call, { ...call, ...other, body: '{}' })).not.toContain('the body differs')
    }
    expect(describeDifference(0, call, { ...call, body: '{}' })).toContain('(the body differs)')
  })

  it('shows at most 200 characters of a path', () => {
    const long = `/v1/${'p'.repeat(300)}`
    expect(describeDifference(0, { ...CALLS[0], path: long }, undefined)).toContain(`"${long.slice(0, 200)}"`)
  })

  it('names the call of each side, quoted, or that one side has no more', () => {
    expect(describeDifference(3, CALLS[0], CALLS[1])).toBe(
      '#4: the approved plan has POST "/v1/t/t1" with its body, this step POST "/v1/t/t2" with its body'
    )
    expect(describeDifference(0, CALLS[0], { ...CALLS[0], body: '{}' })).toMatch(/\(the body differs\)$/)
    expect(describeDifference(1, undefined, { ...CALLS[0], body: undefined })).toBe(
      '#2: the approved plan has no more calls, this step POST "/v1/t/t1"'
    )
    expect(describeDifference(1, CALLS[0], undefined)).toMatch(/this step no more calls$/)
    expect(describeDifference(0, { ...CALLS[0], path: '/a\n::error::x' }, undefined)).not.toContain('\n')
  })
})
