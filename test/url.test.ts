import { joinPath } from '../src/url.js'

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
