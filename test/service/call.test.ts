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
    ['GET v1/x', /starts with one \//],
    ['GET /v1//x', /starts with one \//],
    ['GET /v1/x#y', /starts with one \//],
    ['GET /v1/%2e%2E/x', /\. or \.\. segment/],
    ['GET /v1/{a!}', /not a placeholder/],
    ['GET /v1/}', /not a placeholder/]
  ])('refuses %s', (call, message) => {
    expect(() => parseCall(call, '')).toThrow(CallInputError)
    expect(() => parseCall(call, '')).toThrow(message)
  })

  it('refuses a body that is not JSON, and a body on GET', () => {
    expect(() => parseCall('POST /x', '{nope')).toThrow('Input call-body is not valid JSON')
    expect(() => parseCall('GET /x', '{}')).toThrow('a GET request has no body')
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

  it('names what a target cannot fill', () => {
    const spec = parseCall('POST /x/{owner}', '{"a":"{tags}","b":"x{gone}"}')
    expect(missingFields(spec, target)).toEqual(['holds an object or array in {owner}', 'lacks {gone}'])
    expect(missingFields(parseCall('GET /x/{id}', ''), 'not an object')).toEqual(['lacks {id}'])
    expect(fieldOf(target, ['owner', 'name'])).toBe('Zoë')
    expect(fieldOf(target, ['n', 'deeper'])).toBeUndefined()
  })
})
