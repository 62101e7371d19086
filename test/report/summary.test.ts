import fc from 'fast-check'
import { cell, MARKDOWN_SPECIAL } from '../../src/report/cells.js'
import { routineHead, routineLines } from '../../src/report/routine-summary.js'
import { chooseColumns, renderSummary } from '../../src/report/summary.js'
import { Outcome } from '../../src/routine/lines.js'
import { RoutineResult } from '../../src/routine/routine.js'
import { Listing, PREVIEW_ROWS } from '../../src/targets/file.js'
import { Token } from '../../src/auth/token.js'
import { parseExact } from '../../src/json.js'

/** A listing as TargetsFile describes one, without the file. */
function listing(targets: unknown[], extra: Partial<Listing> = {}): Listing {
  return {
    file: '/tmp/targets.json',
    listed: targets.length,
    selected: targets.length,
    count: targets.length,
    bytes: JSON.stringify(targets).length,
    preview: targets.slice(0, PREVIEW_ROWS),
    digest: 'sha256:00',
    withoutId: 0,
    ...extra
  }
}

const now = Date.parse('2026-11-22T06:00:00Z')
const jwt = (claims: object) => `e30.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.sig`
const token: Token = {
  accessToken: jwt({ sub: 'bot@clients' }),
  tokenType: 'Bearer',
  subject: 'bot@clients',
  expiresAtMs: now + 86_400_000,
  expiresInSeconds: 86400,
  source: 'exchange'
}
const base = 'https://api.test'

describe('renderSummary', () => {
  it('shows the count, expiry, subject and a table of the targets', () => {
    const md = renderSummary(
      token,
      base,
      listing([
        { id: 't1', name: 'one', extra: { a: 1 } },
        { id: 't2', status: 'ok' }
      ]),
      now
    )
    expect(md).toContain(
      '- **Token**: exchanged client credentials; expires 2026-11-23T06:00:00Z (in 24 h); subject bot\\@clients'
    )
    expect(md).toContain('- **Targets**: 2 from https\\://api.test')
    expect(md).toContain('| id | name | status |\n| --- | --- | --- |\n| t1 | one |  |\n| t2 |  | ok |')
    expect(md).not.toContain(token.accessToken)
  })

  it('stays small for a huge list and says how many more there are', () => {
    const targets = Array.from({ length: 100_000 }, (_, i) => ({ id: `t${i}`, name: 'x'.repeat(5000) }))
    const md = renderSummary(token, base, listing(targets), now)
    expect(md.match(/^\| t\d+ /gm)).toHaveLength(50)
    expect(md).toContain('…and 99,950 more: all 100,000 are in the `targets-file` output.')
    expect(Buffer.byteLength(md)).toBeLessThan(16 * 1024)
  })

  it('renders a target nested too deep for JSON.stringify, with a placeholder in its column', () => {
    const status = JSON.parse(`${'['.repeat(200_000)}${']'.repeat(200_000)}`) as unknown
    const targets = [{ id: 't1', status }, { id: 't2' }]
    const md = renderSummary(token, base, { ...listing([{}, {}]), preview: targets }, now)
    expect(md).toContain('| t1 | \\(not shown\\: nested too deep\\) |')
  })

  it('escapes HTML, pipes and line breaks in cells', () => {
    const md = renderSummary(token, base, listing([{ name: '<script>x</script> | a\nb' }]), now)
    expect(md).toContain('| \\<script\\>x\\</script\\> \\| a b |')
  })

  it('uses one column for scalar targets and notes an unlisted run', () => {
    expect(renderSummary(token, base, listing(['a', 'b']), now)).toContain('| target |\n| --- |\n| a |\n| b |')
    expect(renderSummary({ ...token, expiresAtMs: undefined, source: 'input' }, base, undefined, now)).toBe(
      '## Service targets\n\n- **Token**: token input; expiry not stated; subject bot\\@clients\n- **Targets**: not listed (list-targets: false)\n'
    )
  })

  it('names the shard and counts it against the whole listing', () => {
    const md = renderSummary(
      token,
      base,
      listing([{ id: 'a' }], { count: 512, listed: 10_240, selected: 10_240, shard: { index: 3, count: 20 } }),
      now
    )
    expect(md).toContain('- **Targets**: Shard 3 of 20: 512 of 10,240 targets, from https\\://api.test')
    expect(md).toContain('…and 511 more: all 512 are in the `targets-file` output.')
  })

  it('says how many targets a selection kept of how many, by which expression, inert', () => {
    const token = { accessToken: 't', tokenType: 'Bearer', source: 'exchange' as const }
    const where = 'status == "retired" && name != "[x](https://evil.example)"'
    const one = renderSummary(
      token,
      'https://api.test',
      listing([{ id: 'a' }], { listed: 500, selected: 40, count: 40, where }),
      now
    )
    expect(one).toContain(
      '- **Targets**: 40 of 500 selected by status == "retired" \\&\\& name \\!= "\\[x\\]\\(https\\://evil.example\\)", from'
    )
    const shard = renderSummary(
      token,
      'https://api.test',
      listing([{ id: 'a' }], { listed: 500, selected: 40, count: 13, where: 'a', shard: { index: 2, count: 3 } }),
      now
    )
    expect(shard).toContain('- **Targets**: Shard 2 of 3: 13 of 40 targets (40 of 500 selected by a), from')
  })

  it('orders the common fields as people read them', () => {
    const all = ['address', 'host', 'url', 'state', 'status', 'kind', 'type', 'title', 'display_name', 'name', 'id']
    const target = Object.fromEntries(all.map(k => [k, k]))
    expect(chooseColumns([target])).toEqual(['id', 'name', 'display_name', 'title', 'type'])
    expect(chooseColumns([{ address: 1, host: 2, url: 3, state: 4, kind: 5 }])).toEqual([
      'kind',
      'state',
      'url',
      'host',
      'address'
    ])
  })

  it('takes a field absent from some targets, and a null as a scalar, but never a nested object', () => {
    expect(chooseColumns([{ id: 1 }, { z: null }, { nested: { a: 1 } }, ['array']])).toEqual(['id', 'z'])
    expect(chooseColumns([{ flag: true, nested: [1] }])).toEqual(['flag'])
  })

  it('takes a number kept exactly as sent for a value, never for an object with a field', () => {
    const exact = parseExact('[9007199254740993, 12]') as unknown[]
    expect(chooseColumns(exact)).toBeUndefined()
    expect(chooseColumns([{ id: 'a' }, exact[0]])).toEqual(['id'])
    const md = renderSummary(token, base, listing(exact), now)
    expect(md).toContain('| target |\n| --- |\n| 9007199254740993 |\n| 12 |')
    expect(md).not.toContain('rawJSON')
  })

  it('says when the token expires, and cuts long cells', () => {
    const md = renderSummary({ ...token, source: 'sealed' }, base, listing([{ id: 'x'.repeat(200) }]), now)
    expect(md).toContain(
      '- **Token**: reused a sealed token; expires 2026-11-23T06:00:00Z (in 24 h); subject bot\\@clients'
    )
    expect(md).toContain(`| ${'x'.repeat(79)}… |`)
    expect(md).not.toContain('x'.repeat(80))
  })

  it('keeps a cell of exactly 80 characters whole', () => {
    expect(cell('y'.repeat(80))).toBe('y'.repeat(80))
    expect(cell('y'.repeat(81))).toBe(`${'y'.repeat(79)}…`)
    expect(cell(undefined)).toBe('')
    expect(cell(42)).toBe('42')
  })

  it('shows a target that is an object without scalar fields as JSON in one column', () => {
    expect(renderSummary(token, base, listing([{ nested: { a: 1 } }]), now)).toContain(
      '| target |\n| --- |\n| {"nested"\\:{"a"\\:1}} |'
    )
  })

  it('chooses common fields first, then other scalar fields, at most five', () => {
    expect(chooseColumns([{ z: 1, nested: {}, status: 'a', id: 1, b: 2, c: 3, d: 4 }])).toEqual([
      'id',
      'status',
      'z',
      'b',
      'c'
    ])
    expect(chooseColumns([1, 2])).toBeUndefined()
    expect(chooseColumns([{ region: 'eu', zone: 2, on: false, nested: {} }])).toEqual(['region', 'zone', 'on'])
  })
})

describe('the whole summary', () => {
  const unsigned: Token = { ...token, subject: undefined }
  /** A routine that called every one of `count` targets, each with HTTP 200. */
  const allDone = (count: number): RoutineResult => ({
    count,
    calls: count,
    outcomes: new Map<Outcome, number>([['succeeded', count]]),
    byStatus: new Map([['HTTP 200', count]]),
    failedByStatus: new Map(),
    failures: [],
    planned: [],
    durationMs: 2000,
    resultsFile: '/tmp/r.jsonl',
    unrecorded: 0,
    unrecordedOutcomes: new Map(),
    cancelled: false
  })

  it('is the token line, the count, the table and a closing line break, nothing else', () => {
    const md = renderSummary(unsigned, base, listing([{ id: 't1', region: 'eu' }, 7, { id: 't2' }]), now)
    expect(md).toBe(
      [
        '## Service targets',
        '',
        '- **Token**: exchanged client credentials; expires 2026-11-23T06:00:00Z (in 24 h)',
        '- **Targets**: 3 from https\\://api.test',
        '',
        '| id | region |',
        '| --- | --- |',
        '| t1 | eu |',
        '| 7 |  |',
        '| t2 |  |',
        ''
      ].join('\n')
    )
  })

  it('has no table for a listing of no targets', () => {
    expect(renderSummary(unsigned, base, listing([]), now)).toBe(
      [
        '## Service targets',
        '',
        '- **Token**: exchanged client credentials; expires 2026-11-23T06:00:00Z (in 24 h)',
        '- **Targets**: 0 from https\\://api.test',
        '',
        ''
      ].join('\n')
    )
  })

  it("folds the targets under a routine's outcome, their columns named as the target's", () => {
    const calls = allDone(60)
    const targets = Array.from({ length: 60 }, (_, i) => ({ id: `t${i}`, status: 'ok' }))
    const md = renderSummary(unsigned, base, listing(targets), now, routineHead('POST /v1/t/{id}', calls))
    expect(md).toBe(
      [
        ...routineLines('POST /v1/t/{id}', calls),
        '- **Token**: exchanged client credentials; expires 2026-11-23T06:00:00Z (in 24 h)',
        '- **Targets**: 60 from https\\://api.test',
        '',
        '<details><summary>The targets</summary>',
        '',
        '| target id | target status |',
        '| --- | --- |',
        ...targets.slice(0, PREVIEW_ROWS).map(t => `| ${t.id} | ok |`),
        '',
        '…and 10 more: all 60 are in the `targets-file` output.',
        '',
        '</details>',
        ''
      ].join('\n')
    )
  })

  it('keeps the one column of scalar targets named "target" beside a routine', () => {
    const calls = allDone(1)
    const md = renderSummary(unsigned, base, listing(['a']), now, routineHead('POST /v1/t/{id}', calls))
    expect(md.slice(md.indexOf('<details>'))).toBe(
      '<details><summary>The targets</summary>\n\n| target |\n| --- |\n| a |\n\n</details>\n'
    )
  })
})

describe('cell: service data stays inert Markdown', () => {
  it.each([
    ['[Session expired](https://evil.example/login)', '\\[Session expired\\]\\(https\\://evil.example/login\\)'],
    ['![pixel](https://evil.example/p.png)', '\\!\\[pixel\\]\\(https\\://evil.example/p.png\\)'],
    ['*bold* _it_ ~~gone~~', '\\*bold\\* \\_it\\_ \\~\\~gone\\~\\~'],
    ['https://evil.example/login', 'https\\://evil.example/login'],
    ['go to www.evil.example now', 'go to www\\.evil.example now'],
    ['mail admin@evil.example', 'mail admin\\@evil.example'],
    ['<img src=x onerror=alert(1)>', '\\<img src=x onerror=alert\\(1\\)\\>'],
    ['&lt;b&gt;', '\\&lt;b\\&gt;'],
    ['$x^2$ `code` a\\b', '\\$x^2\\$ \\`code\\` a\\\\b']
  ])('renders %j as text', (value, escaped) => {
    expect(cell(value)).toBe(escaped)
  })

  it('escapes every active character, and unescaping gives the text back, for any string', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 60 }), text => {
        const out = cell(text)
        const unescaped = out.replace(/\\(.)/g, '$1')
        const bare = out.replace(/\\./g, '')
        // eslint-disable-next-line no-control-regex
        const expected = text.replace(/[\s\u0000-\u001f\u007f-\u009f]+/g, ' ').trim()
        return unescaped === expected && !new RegExp(MARKDOWN_SPECIAL.source).test(bare) && !/www\./i.test(bare)
      }),
      { numRuns: 2000 }
    )
  })
})

describe('hostile or mixed targets in the summary', () => {
  it('shows a target that is not an object in the first column, never crashing on null', () => {
    const md = renderSummary(token, base, listing([{ id: 'a' }, null, 7, { id: 'b' }]), now)
    expect(md).toContain('| a |\n| null |\n| 7 |\n| b |')
  })

  it('drops bidirectional overrides and isolates from cells', () => {
    expect(cell('admin\u202egnp.exe\u2066x\u2069')).toBe('admingnp.exex')
  })
})
