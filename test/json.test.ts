import { parseJsonObject } from '../src/json.js'

describe('parseJsonObject', () => {
  it.each([
    ['{"a":1}', { a: 1 }],
    ['{}', {}],
    ['[1]', null],
    ['null', null],
    ['"text"', null],
    ['42', null],
    ['{"a":', undefined],
    ['', undefined],
    ['<html>', undefined]
  ])('%j -> %j', (text, result) => {
    expect(parseJsonObject(text)).toEqual(result)
  })
})
