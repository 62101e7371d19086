import { joinPath, withoutCredentials } from '../src/url.js'

describe('joinPath', () => {
  it.each([
    ['https://a.test/', 'https://a.test/v1/targets'],
    ['https://a.test/api', 'https://a.test/api/v1/targets'],
    ['https://a.test/api///', 'https://a.test/api/v1/targets'],
    ['https://a.test/api?x=1', 'https://a.test/api/v1/targets?x=1']
  ])('%s + v1/targets', (base, joined) => {
    expect(joinPath(new URL(base), 'v1/targets').href).toBe(joined)
  })
})

describe('withoutCredentials', () => {
  it.each([
    ['POST https://bot:s3cret@api.example/v1/x', 'POST https://***@api.example/v1/x'],
    ['//user@h.example and http://a:b@c.example/p', '//***@h.example and http://***@c.example/p'],
    ['https://api.example/v1/x?mail=a@b.example', 'https://api.example/v1/x?mail=a@b.example'],
    ['/v1/users/a@b.example', '/v1/users/a@b.example']
  ])('%s', (text, shown) => {
    expect(withoutCredentials(text)).toBe(shown)
  })
})
