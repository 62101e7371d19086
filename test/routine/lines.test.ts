import { parseExact } from '../../src/json.js'
import {
  LineContext,
  LineFields,
  MAX_BODY_DEPTH,
  Outcome,
  OUTCOMES,
  resultBody,
  resultLine
} from '../../src/routine/lines.js'
import { mask } from '../../src/secrets.js'

const context: LineContext = { fingerprint: '0123456789abcdef', runAttempt: 2, shard: '3/8' }
const fields = (overrides: Partial<LineFields> = {}): LineFields => ({
  key: 'a',
  outcome: 'succeeded',
  status: 200,
  index: 0,
  target: { id: 'a' },
  ...overrides
})

describe('resultLine', () => {
  it('lists the outcomes a line can have', () => {
    expect(OUTCOMES).toEqual(['succeeded', 'failed', 'unknown', 'not-made', 'skipped', 'planned'])
  })

  it.each(OUTCOMES.map(o => [o] as [Outcome]))('writes the %s outcome in the head of the line', outcome => {
    expect(resultLine(context, fields({ outcome }))).toBe(
      `{"key":"a","call":"0123456789abcdef","outcome":"${outcome}","status":200,"runAttempt":2,"shard":"3/8","index":0,"id":"a"}`
    )
  })

  it('writes the name a failure line carries after the id, cut at 200 characters', () => {
    expect(resultLine(context, fields({ outcome: 'failed', status: 500, name: 'build "01"' }))).toBe(
      '{"key":"a","call":"0123456789abcdef","outcome":"failed","status":500,"runAttempt":2,"shard":"3/8","index":0,"id":"a","name":"build \\"01\\""}'
    )
    const long = JSON.parse(resultLine(context, fields({ name: 'n'.repeat(300) }))) as { name: string }
    expect(long.name).toBe('n'.repeat(200))
  })

  it('writes a call with every optional field, in the README order', () => {
    const line = resultLine(
      { fingerprint: 'ffff', runAttempt: 1 },
      fields({
        key: 'k"1',
        outcome: 'failed',
        status: 503,
        index: 41,
        target: { id: 'k"1', name: 'x' },
        error: 'the "service" said no\n',
        attempts: 3,
        ms: 1250,
        body: resultBody('{"e":1}')
      })
    )
    expect(line).toBe(
      '{"key":"k\\"1","call":"ffff","outcome":"failed","status":503,"runAttempt":1,"shard":null,"index":41,' +
        '"id":"k\\"1","error":"the \\"service\\" said no\\n","attempts":3,"ms":1250,"body":{"e":1}}'
    )
    expect(JSON.parse(line)).toEqual({
      key: 'k"1',
      call: 'ffff',
      outcome: 'failed',
      status: 503,
      runAttempt: 1,
      shard: null,
      index: 41,
      id: 'k"1',
      error: 'the "service" said no\n',
      attempts: 3,
      ms: 1250,
      body: { e: 1 }
    })
  })

  it('writes no response as status null, and attempts null when none is known', () => {
    expect(resultLine(context, fields({ outcome: 'unknown', status: null, attempts: null, error: 'cut' }))).toBe(
      '{"key":"a","call":"0123456789abcdef","outcome":"unknown","status":null,"runAttempt":2,"shard":"3/8","index":0,"id":"a","error":"cut","attempts":null}'
    )
  })

  it.each([
    ['a number id as sent', { id: parseExact('9007199254740993') }, ',"id":9007199254740993'],
    ['a number id', { id: 7 }, ',"id":7'],
    ['an object id', { id: { a: 1 } }, ''],
    ['no id', { name: 'x' }, ''],
    ['a scalar target', 'plain', ''],
    ['null', null, ''],
    ['an array', [{ id: 'a' }], '']
  ])('gives the id of a target with %s', (_, target, id) => {
    expect(resultLine(context, fields({ key: 'k', target }))).toBe(
      `{"key":"k","call":"0123456789abcdef","outcome":"succeeded","status":200,"runAttempt":2,"shard":"3/8","index":0${id}}`
    )
  })

  it('writes a skipped line with the status it carries and no optional field', () => {
    const line = resultLine(
      context,
      fields({ outcome: 'skipped', status: 204, index: 9, target: { x: 1 }, key: '{"x":1}' })
    )
    expect(line).toBe(
      '{"key":"{\\"x\\":1}","call":"0123456789abcdef","outcome":"skipped","status":204,"runAttempt":2,"shard":"3/8","index":9}'
    )
  })
})

describe('resultBody', () => {
  it.each([
    ['an empty body as null', '', true, '"body":null'],
    ['an empty body as null, not dropped', '', false, '"body":null'],
    ['a dropped body', '{"a":1}', false, '"body":null,"bodyDropped":true'],
    [
      'JSON as written',
      '{"n": 1.50, "big": 12345678901234567890}',
      true,
      '"body":{"n": 1.50, "big": 12345678901234567890}'
    ],
    ['a JSON scalar', '42', true, '"body":42'],
    ['line breaks as spaces', '{\r\n "a": [1,\n2]\n}\n', true, '"body":{   "a": [1, 2] } '],
    [
      'escapes written again',
      '{"s":"\\u0041\\"b","n":12345678901234567890}',
      true,
      '"body":{"s":"A\\"b","n":12345678901234567890}'
    ],
    ['text as a string', 'not json\n{', true, '"body":"not json\\n{"'],
    ['text with a backslash as a string', 'C:\\dir', true, '"body":"C:\\\\dir"'],
    ['broken JSON with an escape as a string', '{"a":"\\n"', true, '"body":"{\\"a\\":\\"\\\\n\\""']
  ])('gives %s', (_, text, keep, expected) => {
    expect(resultBody(text, keep)).toBe(expected)
  })

  it('keeps bodies unless told not to', () => {
    expect(resultBody('{"a":1}')).toBe('"body":{"a":1}')
  })

  it('keeps a body of 64 KiB whole, and cuts a longer one there with a marker', () => {
    const exact = `"${'x'.repeat(64 * 1024 - 2)}"`
    expect(resultBody(exact)).toBe(`"body":${exact}`)
    const long = `${exact}y`
    expect(resultBody(long)).toBe(`"body":${JSON.stringify(exact)},"truncated":true`)
    expect(resultBody(long, false)).toBe('"body":null,"bodyDropped":true')
  })

  it('gives a line that parses as one JSON object for every kind of body', () => {
    for (const text of ['', 'x', '{"a":\n1}', '"\\u0000"', `[${'1,'.repeat(40_000)}1]`]) {
      const line = resultLine(context, fields({ body: resultBody(text) }))
      expect(line).not.toMatch(/[\r\n]/)
      expect(JSON.parse(line)).toHaveProperty('body')
    }
  })
})

describe('resultBody of a deeply nested body', () => {
  const nested = (depth: number, inner = '1') => `${'['.repeat(depth)}${inner}${']'.repeat(depth)}`

  it('keeps JSON nested 64 levels deep as JSON, and a deeper body as text', () => {
    expect(MAX_BODY_DEPTH).toBe(64)
    expect(resultBody(nested(64))).toBe(`"body":${nested(64)}`)
    expect(resultBody(nested(65))).toBe(`"body":${JSON.stringify(nested(65))}`)
    expect(resultBody(`{"a":${nested(64, '"\\u0041"')}}`)).toBe(
      `"body":${JSON.stringify(`{"a":${nested(64, '"\\u0041"')}}`)}`
    )
  })

  it('keeps 12 KB of nested arrays as text, which any reader can write again', () => {
    const body = resultBody(nested(6000, ''))
    expect(body).toBe(`"body":"${nested(6000, '')}"`)
    const line = resultLine(context, fields({ outcome: 'failed', status: 500, body }))
    expect(JSON.stringify(JSON.parse(line))).toBe(line)
  })
})

describe('resultBody of a body cut by the transport', () => {
  it('marks a kept head as truncated even when it is short', () => {
    expect(resultBody('{"a":1', true, true)).toBe('"body":"{\\"a\\":1","truncated":true')
  })

  it('redacts before it cuts: a secret across the 64 KiB cut is withheld whole', () => {
    const secret = 'straddling-secret-0123456789-abcdefghij'
    mask(secret)
    const text = `${'x'.repeat(64 * 1024 - 10)}${secret}${'y'.repeat(100)}`
    const body = resultBody(text, true, false)
    expect(body).toMatch(/,"truncated":true$/)
    expect(body).not.toContain(secret.slice(0, 10))
    expect(body).toContain('***')
  })
})
