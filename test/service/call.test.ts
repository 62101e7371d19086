import {
  CallInputError,
  fieldOf,
  hasDotSegment,
  missingFields,
  parseCall,
  renderBody,
  renderPath
} from '../../src/service/call.js'
import { parseExact } from '../../src/json.js'

describe('parseCall', () => {
  it('reads METHOD /path and the placeholders of the path and body', () => {
    const spec = parseCall('post /v1/targets/{id}/scans', '{"for":"{owner.name}","n":1}')
    expect(spec.method).toBe('POST')
    expect(spec.fields).toEqual(['id', 'owner.name'])
  })

  it.each([
    ['GET', /must be METHOD \/path/],
    ['TRACE /v1/x', /must be METHOD \/path/],
    ['GET v1/x', /has the path "v1\/x", which does not start with \/: .* write "GET \/v1\/x"$/],
    ['GET https://h.example/v1', /full URL, "https:\/\/h.example\/v1": base-url gives the scheme and host/],
    [
      'GET /v1//x',
      /starts with one \/ below base-url, with no \/\/, backslash, # or control character, got "\/v1\/\/x"$/
    ],
    ['GET /v1/x#y', /starts with one \/ .*, got "\/v1\/x#y"$/],
    ['GET /v1\\x', /starts with one \/ .*, got "\/v1\\\\x"$/],
    ['GET /v1/%2e%2E/x', /\. or \.\. segment/],
    ['GET /v1/{a!}', /not a placeholder/],
    ['GET /v1/}', /not a placeholder/],
    ['GET /v1/{1a}', /not a placeholder/],
    ['GET /v1/{a.1b}', /not a placeholder/],
    ['GET /v1/x{a}}', /not a placeholder/],
    ['GET /v1/x extra', /must be METHOD \/path/],
    ['GET/v1/x', /must be METHOD \/path/],
    ['1GET /v1/x', /must be METHOD \/path/],
    ['GET /v1/../x', /\. or \.\. segment/],
    ['GET /v1/.', /\. or \.\. segment/]
  ])('refuses %s', (call, message) => {
    expect(() => parseCall(call, '')).toThrow(CallInputError)
    expect(() => parseCall(call, '')).toThrow(message)
  })

  it('refuses a body that is not JSON, and a body on GET or HEAD', () => {
    expect(() => parseCall('POST /x', '{nope')).toThrow('Input call-body is not valid JSON')
    expect(() => parseCall('GET /x', '{}')).toThrow('Input call-body is set, but a GET request has no body')
    expect(() => parseCall('HEAD /x', '[]')).toThrow('Input call-body is set, but a HEAD request has no body')
    expect(() => parseCall('TRACE /x', '')).toThrow(
      'Input call must be METHOD /path with METHOD one of GET, HEAD, POST, PUT, PATCH, DELETE, got "TRACE /x"'
    )
  })

  it('accepts spacing around the parts, dots inside segments, and a blank body as none', () => {
    const spec = parseCall('  delete \t /v1/..x/x../{id}?q=..  ', '  \n ')
    expect(spec).toMatchObject({ method: 'DELETE', body: undefined, fields: ['id'] })
    expect(renderPath(spec, { id: 'a' })).toBe('/v1/..x/x../a?q=..')
    expect(parseCall('GET /x', ' ').body).toBeUndefined()
  })

  it('finds the fields of every placeholder, in path and body, nested or not', () => {
    const spec = parseCall('POST /x/{a}/{b.c}', '{"k":"{d}","l":["{e}",{"m":"x{f}","n":[1,null,true]}],"o":"plain"}')
    expect(spec.fields).toEqual(['a', 'b.c', 'd', 'e', 'f'])
    const target = { a: 1, b: { c: 2 }, d: [3], e: { deep: true }, f: 'F' }
    expect(renderBody(spec, target)).toBe('{"k":[3],"l":[{"deep":true},{"m":"xF","n":[1,null,true]}],"o":"plain"}')
    expect(missingFields(spec, target)).toEqual([])
  })
})

describe('rendering for a target', () => {
  const target = parseExact('{"id":"a/../b?#","n":9007199254740993,"tags":["x"],"owner":{"name":"Zoë"},"on":true}')

  it('puts each value in the path as one encoded segment, dots included', () => {
    const spec = parseCall('GET /v1/{id}/{n}/{on}/{{lit}}', '')
    expect(renderPath(spec, target)).toBe('/v1/a%2F%2E%2E%2Fb%3F%23/9007199254740993/true/{lit}')
  })

  it('fills a whole-string placeholder with the JSON value, and longer strings with text', () => {
    const spec = parseCall(
      'POST /x',
      '{"tags":"{tags}","n":"{n}","who":"by {owner.name}","id":"{id}","none":"{missing}"}'
    )
    expect(renderBody(spec, target)).toBe(
      '{"tags":["x"],"n":9007199254740993,"who":"by Zoë","id":"a/../b?#","none":null}'
    )
  })

  it('keeps a body key named "template" as data, and empty objects and arrays as they are', () => {
    // A body's {"template": "…"} once read as a placeholder's parts: every call threw a TypeError.
    const spec = parseCall('POST /x', '{"template":"weekly","t":{"template":"{id}"},"e":{},"a":[],"z":[{}, "{on}"]}')
    expect(renderBody(spec, target)).toBe(
      '{"template":"weekly","t":{"template":"a/../b?#"},"e":{},"a":[],"z":[{},true]}'
    )
    expect(renderBody(parseCall('POST /x', '"{owner}"'), target)).toBe('{"name":"Zoë"}')
    expect(renderBody(parseCall('POST /x', '[1, "n={n}", -0, 1e3]'), target)).toBe('[1,"n=9007199254740993",0,1000]')
    expect(renderBody(parseCall('POST /x', '{"k":"{id}"}'), {})).toBe('{"k":null}')
  })

  it('names call-body for a stray brace in a body string', () => {
    expect(() => parseCall('POST /x', '{"a":"x}y"}')).toThrow(/^Input call-body has "}" that is not a placeholder/)
  })

  it('fills a body string that starts with a placeholder as text, and reads no field of a string', () => {
    expect(renderBody(parseCall('POST /x', '{"k":"{id}-x","n":"{n}{n}"}'), target)).toBe(
      '{"k":"a/../b?#-x","n":"90071992547409939007199254740993"}'
    )
    // A string's own "length" is no field of a target.
    expect(renderBody(parseCall('POST /x', '{"k":"{id.length}"}'), target)).toBe('{"k":null}')
  })

  it('writes every body as JSON.stringify writes its template filled', () => {
    const spec = parseCall('POST /x', '{"a":{"b":["{id}",{"c":"x{n}y"}],"d":null},"\\"":"{tags}","n":2.5}')
    const filled = { a: { b: ['a/../b?#', { c: 'x9007199254740993y' }], d: null }, '"': ['x'], n: 2.5 }
    expect(renderBody(spec, target)).toBe(JSON.stringify(filled))
  })

  it('finds a . or .. segment in a rendered path, in every form a URL parser reads as one', () => {
    for (const segment of ['.', '..', '%2E', '%2e', '%2E%2E', '.%2e', '%2E.']) {
      expect(hasDotSegment(`/v1/${segment}/x`)).toBe(true)
      expect(hasDotSegment(`/v1/t/${segment}`)).toBe(true)
    }
    for (const path of [
      '/v1/t/a.b',
      '/v1/t/...',
      '/v1/t/%2E%2E%2E',
      '/v1/t/x%2E',
      '/v1/t//x',
      '/v1/t?next=..',
      '/v1/t?a=/../'
    ]) {
      expect(hasDotSegment(path)).toBe(false)
    }
  })

  it('lets a whole-value placeholder take an object, unless the field is also used in text', () => {
    const target = { owner: { name: 'x' } }
    expect(missingFields(parseCall('POST /x', '{"a":"{owner}"}'), target)).toEqual([])
    expect(missingFields(parseCall('POST /x', '{"a":"{owner}","b":"by {owner}"}'), target)).toEqual([
      'holds an object or array in {owner}'
    ])
    expect(missingFields(parseCall('POST /x/{owner}', '{"a":"{owner}"}'), target)).toEqual([
      'holds an object or array in {owner}'
    ])
    expect(missingFields(parseCall('POST /x', '{"a":"{owner}"}'), {})).toEqual(['lacks {owner}'])
  })

  it('reads a field only from objects, and writes scalars in text as JSON does', () => {
    expect(fieldOf([{ id: 1 }], ['id'])).toBeUndefined()
    expect(fieldOf({ n: parseExact('9007199254740993') }, ['n', 'x'])).toBeUndefined()
    expect(fieldOf({ a: null }, ['a', 'b'])).toBeUndefined()
    expect(fieldOf({ a: { b: false } }, ['a', 'b'])).toBe(false)
    const spec = parseCall('PUT /x/{v}', '{"s":"v={v}"}')
    const numbers = [12.5, parseExact('1.50')]
    expect(numbers.map(v => renderPath(spec, { v }))).toEqual(['/x/12%2E5', '/x/1%2E50'])
    expect(numbers.map(v => missingFields(spec, { v }))).toEqual([[], []])
    const inText = parseCall('PUT /x', '{"s":"v={v}"}')
    const values = [true, null, 12.5, parseExact('1.50'), '']
    expect(values.map(v => renderBody(inText, { v }))).toEqual([
      '{"s":"v=true"}',
      '{"s":"v=null"}',
      '{"s":"v=12.5"}',
      '{"s":"v=1.50"}',
      '{"s":"v="}'
    ])
    expect(values.map(v => missingFields(inText, { v }))).toEqual([[], [], [], [], []])
    expect(renderBody(parseCall('DELETE /x/{v}', ''), { v: 1 })).toBeUndefined()
  })

  it('names what a target cannot fill', () => {
    const spec = parseCall('POST /x/{owner}', '{"a":"{tags}","b":"x{gone}"}')
    expect(missingFields(spec, target)).toEqual(['holds an object or array in {owner}', 'lacks {gone}'])
    expect(missingFields(parseCall('GET /x/{id}', ''), 'not an object')).toEqual(['lacks {id}'])
    expect(fieldOf(target, ['owner', 'name'])).toBe('Zoë')
    expect(fieldOf(target, ['n', 'deeper'])).toBeUndefined()
  })

  it.each([
    ['an empty string', '', 'holds an empty string in {id}'],
    ['null', null, 'holds null in {id}'],
    ['true', true, 'holds true in {id}'],
    ['false', false, 'holds false in {id}'],
    ['a lone surrogate', 'a\ud800b', 'holds text that is not well-formed (a lone surrogate) in {id}'],
    ['a lone low surrogate', '\udc00', 'holds text that is not well-formed (a lone surrogate) in {id}']
  ])('refuses %s in a path placeholder: it would make an empty or meaningless segment', (_what, id, problem) => {
    const spec = parseCall('DELETE /v1/targets/{id}', '')
    expect(missingFields(spec, { id })).toEqual([problem])
  })

  it('refuses a lone surrogate in a body text too, and takes a whole value as it is', () => {
    expect(missingFields(parseCall('POST /x', '{"a":"by {v}"}'), { v: '\ud800' })).toEqual([
      'holds text that is not well-formed (a lone surrogate) in {v}'
    ])
    expect(missingFields(parseCall('POST /x', '{"a":"{v}"}'), { v: '' })).toEqual([])
  })

  it.each(['constructor', 'toString', '__proto__', 'hasOwnProperty'])(
    'reads {%s} from the target itself, never from its prototype',
    name => {
      const spec = parseCall(`GET /v1/{${name}}`, '')
      expect(fieldOf({}, [name])).toBeUndefined()
      expect(missingFields(spec, { id: 1 })).toEqual([`lacks {${name}}`])
      const own = parseExact(`{"${name}":"x1"}`)
      expect(missingFields(spec, own)).toEqual([])
      expect(renderPath(spec, own)).toBe('/v1/x1')
    }
  )
})
