import { mask } from '../../src/secrets.js'
import { bodyNotJson, echo, pathAdvice } from '../../src/service/call-advice.js'
import { parseCall } from '../../src/service/call.js'

const bodyError = (body: string): string => {
  try {
    JSON.parse(body)
  } catch (err) {
    return bodyNotJson(body, err)
  }
  throw new Error(`${body} is JSON`)
}

describe('echo', () => {
  it('quotes the value on one line, with a URL user:password and any secret hidden', () => {
    mask('call-advice-secret-33')
    expect(echo('POST https://bot:hunter2@api.example/v1?k=call-advice-secret-33\n')).toBe(
      '"POST https://***@api.example/v1?k=***\\n"'
    )
  })
})

describe('pathAdvice', () => {
  it.each([
    [
      'https://api.example/v1/x',
      'Input call has a full URL, "https://api.example/v1/x": base-url gives the scheme and host, and call the path below it. ' +
        'Write call: "POST /v1/x" with base-url: "https://api.example"'
    ],
    [
      'HTTP://127.0.0.1:8080/v1/t/{id}?dry=1',
      'Input call has a full URL, "HTTP://127.0.0.1:8080/v1/t/{id}?dry=1": base-url gives the scheme and host, and call the path below it. ' +
        'Write call: "POST /v1/t/{id}?dry=1" with base-url: "http://127.0.0.1:8080"'
    ],
    [
      'https://bot:hunter2@api.example',
      'Input call has a full URL, "https://***@api.example": base-url gives the scheme and host, and call the path below it. ' +
        'Write call: "POST /" with base-url: "https://api.example" (credentials go in their own inputs, never in a URL)'
    ],
    [
      '//api.example/v1',
      'Input call has a full URL, "//api.example/v1": base-url gives the scheme and host, and call the path below it. ' +
        'Write call: "POST /v1" with base-url: "https://api.example"'
    ],
    [
      'v1/targets/{id}',
      'Input call has the path "v1/targets/{id}", which does not start with /: the path is below base-url, so write "POST /v1/targets/{id}"'
    ]
  ])('explains %s and gives the call it means', (path, message) => {
    expect(pathAdvice('POST', path)).toBe(message)
  })

  it('says what a path that starts with / may not hold, echoing it', () => {
    expect(pathAdvice('GET', '/v1//x')).toBe(
      'Input call must have a path that starts with one / below base-url, with no //, backslash, # or control character, got "/v1//x"'
    )
  })

  it('never echoes a password, through parseCall too', () => {
    expect(() => parseCall('DELETE https://u:pa55word@h.example/v1/t/{id}', '')).toThrow(
      /^Input call has a full URL, "https:\/\/\*\*\*@h\.example\/v1\/t\/\{id\}": .* "DELETE \/v1\/t\/\{id\}" with base-url: "https:\/\/h\.example"/
    )
    expect(() => parseCall('DELETE https://u:pa55word@h.example/v1', '')).not.toThrow(/pa55word/)
  })
})

describe('bodyNotJson', () => {
  it('gives the parser reason, line, column and the text around the place', () => {
    expect(bodyError('{\n  "name": "x",\n  "size": 12\n  "tags": []\n}')).toBe(
      'Input call-body is not valid JSON: Expected \',\' or \'}\' after property value at line 4, column 3 ("  ‸\\"tags\\": []"): ' +
        'give a JSON template, with each {field} inside a string'
    )
  })

  it('says where a placeholder outside a string goes', () => {
    expect(bodyError('{"id": {id}, "n": 1}')).toBe(
      'Input call-body is not valid JSON: Expected property name or \'}\' at line 1, column 9 ("{\\"id\\": {‸id}, \\"n\\": 1}"): ' +
        'a placeholder goes inside a JSON string: write "{id}" (a string that is only a placeholder takes the field\'s JSON value, so a number stays a number)'
    )
  })

  it('finds the place itself when the parser names only the token, and never repeats its quote of the text', () => {
    const message = bodyError('{"a": "call-advice-secret-33", "b": tru}')
    expect(message).toBe(
      'Input call-body is not valid JSON: Unexpected token \'}\' at line 1, column 40 ("{\\"a\\": \\"***\\", \\"b\\": tru‸}"): ' +
        'give a JSON template, with each {field} inside a string'
    )
  })

  it('cuts a long line to about 30 characters each side of the place', () => {
    const body = `{"a": "${'x'.repeat(100)}" "b": "${'y'.repeat(100)}"}`
    const message = bodyError(body)
    expect(message).toContain(`at line 1, column 110 ("…${'x'.repeat(28)}\\" ‸\\"b\\": \\"${'y'.repeat(24)}…")`)
  })

  it('reports an error past the end of the text, and a second value after the first', () => {
    expect(bodyError('{"a": 1')).toMatch(
      /^Input call-body is not valid JSON: .* at line 1, column 8 \("\{\\"a\\": 1‸"\)/
    )
    expect(bodyError('{"a": 1}\n{"b": 2}')).toMatch(
      /^Input call-body is not valid JSON: Unexpected non-whitespace character after JSON at line 2, column 1 \("‸\{\\"b\\": 2\}"\)/
    )
    expect(bodyNotJson('{', 'not an Error')).toMatch(
      /^Input call-body is not valid JSON: not an Error at line 1, column 2 /
    )
  })
})
