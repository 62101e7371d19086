import fc from 'fast-check'
import { LineContext, LineFields, Outcome, OUTCOMES, resultBody, resultLine } from '../../src/routine/lines.js'
import { MAX_RUN_ATTEMPT, parseResultLine, ResultFacts } from '../../src/routine/result-line.js'

const FP = '0123456789abcdef'
const context: LineContext = { fingerprint: FP, runAttempt: 12, shard: '12/16' }
const line = (fields: Partial<LineFields> = {}, ctx: LineContext = context) =>
  resultLine(ctx, { key: 'a', outcome: 'succeeded', status: 200, index: 0, target: { id: 'a' }, ...fields })
const facts = (overrides: Partial<ResultFacts> = {}): ResultFacts => ({
  key: 'a',
  call: FP,
  outcome: 'succeeded',
  status: 200,
  runAttempt: 12,
  shard: '12/16',
  ...overrides
})
/** A line of another tool: the six fields in the order given, then `rest`. */
const json = (fields: Record<string, unknown>, rest = '') => `${JSON.stringify(fields).slice(0, -1)}${rest}}`
const six = { key: 'k', call: FP, outcome: 'failed', status: 500, runAttempt: 1, shard: null }

describe('parseResultLine of the action own lines', () => {
  it.each(OUTCOMES.map(o => [o] as [Outcome]))('reads a %s line', outcome => {
    expect(parseResultLine(line({ outcome, status: 503, error: 'x', attempts: 2, ms: 5 }))).toEqual(
      facts({ outcome, status: 503 })
    )
  })

  it('reads status null, no shard and a first attempt', () => {
    expect(parseResultLine(line({ outcome: 'unknown', status: null }, { fingerprint: FP, runAttempt: 1 }))).toEqual(
      facts({ outcome: 'unknown', status: null, runAttempt: 1, shard: null })
    )
  })

  it.each([
    ['quotes and backslashes', 'a"b\\c'],
    ['a line break, a tab and unicode', 'x\ny\t\u2028é'],
    ['JSON of a target without id', '{"name":"n","n":1}'],
    ['an escaped quote before its end', 'ends in \\"'],
    ['an empty key', '']
  ])('reads a key with %s', (_, key) => {
    expect(parseResultLine(line({ key, body: resultBody('{"key":"other"}') }))?.key).toBe(key)
  })

  it('reads the head without parsing the body', () => {
    // A resume reads a million lines: the fields it needs come first, the rest is not parsed.
    const own = `{"key":"k\\"1","call":"${FP}","outcome":"failed","status":503,"runAttempt":100000,"shard":"256/256","body":{not json}`
    expect(parseResultLine(own)).toEqual(
      facts({ key: 'k"1', outcome: 'failed', status: 503, runAttempt: 100_000, shard: '256/256' })
    )
  })

  it('reads the lowest status, attempt and shard', () => {
    const own = `{"key":"k","call":"${FP}","outcome":"failed","status":100,"runAttempt":1,"shard":"1/1","index":0}`
    expect(parseResultLine(own)).toEqual(
      facts({ key: 'k', outcome: 'failed', status: 100, runAttempt: 1, shard: '1/1' })
    )
  })

  it('reads the call and shard of each line where lines of two calls and shards alternate', () => {
    const OTHER = 'fedcba9876543210'
    const a = line({ key: 'a' })
    const b = line({ key: 'b' }, { fingerprint: OTHER, runAttempt: 3, shard: '3/4' })
    const c = line({ key: 'c', outcome: 'skipped', status: null }, { fingerprint: FP, runAttempt: 12_345 })
    for (let round = 0; round < 2; round++) {
      expect(parseResultLine(a)).toEqual(facts())
      expect(parseResultLine(b)).toEqual(facts({ key: 'b', call: OTHER, runAttempt: 3, shard: '3/4' }))
      expect(parseResultLine(c)).toEqual(
        facts({ key: 'c', outcome: 'skipped', status: null, runAttempt: 12_345, shard: null })
      )
    }
  })

  it('does not take a line that only contains a head for one', () => {
    const head = `{"key":"a","call":"${FP}","outcome":"failed","status":503,"runAttempt":1,"shard":null,"body":{}`
    expect(parseResultLine(`x${head}`)).toBeUndefined()
    expect(parseResultLine(`${head} `)).toBeUndefined()
    expect(parseResultLine(head.replace('}', ''))).toBeUndefined()
    expect(parseResultLine('{"key":"never closed')).toBeUndefined()
  })

  it.each([
    ['an outcome it does not know', (l: string) => l.replace('"succeeded"', '"done"')],
    ['an outcome in capitals', (l: string) => l.replace('"succeeded"', '"SUCCEEDED"')],
    ['a call of 15 digits', (l: string) => l.replace(FP, FP.slice(1))],
    ['a call of 17 digits', (l: string) => l.replace(FP, `${FP}0`)],
    ['a call in capitals', (l: string) => l.replace(FP, FP.toUpperCase())],
    ['a call that is a command', (l: string) => l.replace(FP, '::stop-commands::')],
    ['a status of 600', (l: string) => l.replace('"status":200', '"status":600')],
    ['a status of 99', (l: string) => l.replace('"status":200', '"status":99')],
    ['attempt 0', (l: string) => l.replace('"runAttempt":12', '"runAttempt":0')],
    ['an attempt past the bound', (l: string) => l.replace('"runAttempt":12', `"runAttempt":${MAX_RUN_ATTEMPT + 1}`)],
    ['an attempt of 10 digits', (l: string) => l.replace('"runAttempt":12', '"runAttempt":1234567890')],
    ['shard 0/3', (l: string) => l.replace('"12/16"', '"0/3"')],
    ['shard 4/3', (l: string) => l.replace('"12/16"', '"4/3"')],
    ['shard 1/257', (l: string) => l.replace('"12/16"', '"1/257"')],
    ['shard 01/16', (l: string) => l.replace('"12/16"', '"01/16"')],
    ['shard 1 / 2', (l: string) => l.replace('"12/16"', '"1 / 2"')],
    ['a key with a raw control character', (l: string) => l.replace('"key":"a"', '"key":"a\u0001"')],
    ['a key with an escape JSON has not', (l: string) => l.replace('"key":"a"', '"key":"a\\x"')]
  ])('refuses a line of its own shape with %s', (_, change) => {
    const changed = change(line())
    expect(changed).not.toBe(line())
    expect(parseResultLine(changed)).toBeUndefined()
  })
})

describe('parseResultLine of lines written by another tool', () => {
  it.each([
    [
      'another field order',
      `{"outcome":"failed","status":500,"call":"${FP}","key":"k","runAttempt":3,"shard":"1/2"}`,
      { key: 'k', call: FP, outcome: 'failed', status: 500, runAttempt: 3, shard: '1/2' }
    ],
    [
      'spaces',
      `{ "key": "k", "call": "${FP}", "outcome": "skipped", "status": null, "runAttempt": 2, "shard": null }`,
      { key: 'k', call: FP, outcome: 'skipped', status: null, runAttempt: 2, shard: null }
    ],
    [
      'the six fields only',
      json(six),
      { key: 'k', call: FP, outcome: 'failed', status: 500, runAttempt: 1, shard: null }
    ],
    [
      'the highest status and attempt',
      json({ ...six, status: 599, runAttempt: MAX_RUN_ATTEMPT }, ',"x":[999]'),
      { key: 'k', call: FP, outcome: 'failed', status: 599, runAttempt: MAX_RUN_ATTEMPT, shard: null }
    ],
    [
      'an escaped shard and key',
      json({ ...six, key: 'k' })
        .replace('"shard":null', '"shard":"1\\/2"')
        .replace('"key":"k"', '"k\\u0065y":"\\u006b"'),
      { key: 'k', call: FP, outcome: 'failed', status: 500, runAttempt: 1, shard: '1/2' }
    ]
  ])('reads %s', (_, text, expected) => {
    expect(parseResultLine(text)).toEqual(expected)
  })

  it.each([
    ['an empty line', ''],
    ['text', 'not json'],
    ['null', 'null'],
    ['a number', '42'],
    ['a string', '"key"'],
    ['an array', `["k","${FP}","failed"]`],
    ['no key', json({ ...six, key: undefined })],
    ['a number key', json({ ...six, key: 1 })],
    ['no call', json({ ...six, call: undefined })],
    ['a number call', json({ ...six, call: 1 })],
    ['a short call', json({ ...six, call: 'c' })],
    ['a call with a line break and a command', json({ ...six, call: `\n::stop-commands::x\n` })],
    ['an unknown outcome', json({ ...six, outcome: 'done' })],
    ['no status', json({ ...six, status: undefined })],
    ['a string status', json({ ...six, status: '500' })],
    ['a status below 100', json({ ...six, status: 99 })],
    ['a status above 599', json({ ...six, status: 600 })],
    ['a fractional status', json({ ...six, status: 200.5 })],
    ['no run attempt', json({ ...six, runAttempt: undefined })],
    ['a string run attempt', json({ ...six, runAttempt: '1' })],
    ['a null run attempt', json({ ...six, runAttempt: null })],
    ['run attempt 0', json({ ...six, runAttempt: 0 })],
    ['a negative run attempt', json({ ...six, runAttempt: -1 })],
    ['a fractional run attempt', json({ ...six, runAttempt: 1.5 })],
    ['a run attempt past the bound', json({ ...six, runAttempt: MAX_RUN_ATTEMPT + 1 })],
    ['no shard', json({ ...six, shard: undefined })],
    ['a number shard', json({ ...six, shard: 1 })],
    ['shard x', json({ ...six, shard: 'x' })],
    ['shard 3/2', json({ ...six, shard: '3/2' })],
    ['shard 1/02', json({ ...six, shard: '1/02' })]
  ])('refuses %s', (_, text) => {
    expect(parseResultLine(text)).toBeUndefined()
  })
})

describe('parseResultLine of a line that repeats a field', () => {
  const own = line({ body: '"body":{"outcome":"failed","key":"b","status":"x","list":["shard"]}' })

  it('reads a line that names the fields again only inside its body or as values', () => {
    expect(parseResultLine(own)).toEqual(facts())
    expect(parseResultLine(line({ error: 'the "status" was \\u-escaped' }))).toEqual(facts())
    expect(parseResultLine(json(six, ',"body":{"outcome":"succeeded"},"note":"outcome"'))).toMatchObject({
      outcome: 'failed'
    })
  })

  it.each([
    ['a second outcome', ',"outcome":"failed"'],
    ['a second outcome, escaped', ',"\\u006futcome":"failed"'],
    ['a second key', ',"key":"b"'],
    ['a second call', `,"call":"${FP}"`],
    ['a second status after spaces', ', "status" :500'],
    ['a second run attempt', ',"runAttempt":99'],
    ['a second shard', ',"shard":null']
  ])('refuses %s in a line of its own shape, as in any other', (_, repeat) => {
    const repeated = `${own.slice(0, -1)}${repeat}}`
    expect(JSON.parse(repeated)).toBeTruthy()
    expect(parseResultLine(repeated)).toBeUndefined()
    expect(parseResultLine(json(six, repeat))).toBeUndefined()
  })

  it('refuses a line whose keys cannot be read, and reads one that repeats another field', () => {
    expect(parseResultLine(`${own.slice(0, -1)},"\\u00":1,"status":1}`)).toBeUndefined()
    expect(parseResultLine(json(six, ',"body":1,"body":2'))).toMatchObject({ key: 'k' })
  })

  // The two parsers agree: wherever the head answers, JSON.parse (and jq, which keeps the last of a
  // repeated key too) reads the same six fields, and a line it reads whole is read.
  it('gives the facts JSON.parse gives, for any line of either shape that JSON.parse reads', () => {
    const name = fc.constantFrom(
      'key',
      'call',
      'outcome',
      'status',
      'runAttempt',
      'shard',
      'body',
      'index',
      'k\\u0065y'
    )
    const value = fc.oneof(
      fc.jsonValue({ maxDepth: 2 }).map(v => JSON.stringify(v)),
      fc.constantFrom('"failed"', '"b"', `"${FP}"`, '1', '404', 'null', '"3/4"', '{"outcome":"failed"}')
    )
    const fieldsOf = fc.record({
      key: fc.string(),
      outcome: fc.constantFrom(...OUTCOMES),
      status: fc.option(fc.integer({ min: 100, max: 599 }), { nil: null }),
      runAttempt: fc.integer({ min: 1, max: MAX_RUN_ATTEMPT }),
      shard: fc.option(fc.constantFrom('1/1', '3/4', '12/16', '99/100', '256/256'), { nil: null })
    })
    fc.assert(
      fc.property(fieldsOf, fc.array(fc.tuple(name, value), { maxLength: 3 }), fc.boolean(), (f, extra, ownShape) => {
        const head = ownShape
          ? resultLine(
              { fingerprint: FP, runAttempt: f.runAttempt, shard: f.shard ?? undefined },
              { key: f.key, outcome: f.outcome, status: f.status, index: 0, target: null }
            ).slice(0, -1)
          : JSON.stringify({
              status: f.status,
              shard: f.shard,
              outcome: f.outcome,
              runAttempt: f.runAttempt,
              call: FP,
              key: f.key
            }).slice(0, -1)
        const text = `${head}${extra.map(([k, v]) => `,"${k}":${v}`).join('')}}`
        const parsed = JSON.parse(text) as Record<string, unknown>
        const repeats = extra.some(([k]) =>
          ['key', 'call', 'outcome', 'status', 'runAttempt', 'shard', 'k\\u0065y'].includes(k)
        )
        const read = parseResultLine(text)
        if (repeats) expect(read).toBeUndefined()
        else
          expect(read).toEqual({
            key: parsed.key,
            call: FP,
            outcome: parsed.outcome,
            status: parsed.status,
            runAttempt: parsed.runAttempt,
            shard: parsed.shard
          })
      }),
      { numRuns: 500 }
    )
  })
})
