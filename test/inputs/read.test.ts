import { boolean, choice, DEFAULTS, integer, isLoopback, number, read, url } from '../../src/inputs/read.js'
import { setInputs } from '../helpers.js'

describe('read', () => {
  it("gives the value, else action.yml's default, else nothing", () => {
    setInputs({ 'max-pages': '7', scope: '' })
    expect(read('max-pages')).toBe('7')
    expect(read('scope')).toBe('')
    setInputs({ 'max-pages': '' })
    expect(read('max-pages')).toBe(DEFAULTS['max-pages'])
  })
})

describe('integer', () => {
  it.each([
    ['1', 1],
    ['10', 10],
    ['007', 7]
  ])('reads %j within its bounds', (value, expected) => {
    setInputs({ 'max-attempts': value })
    expect(integer('max-attempts', 1, 10)).toBe(expected)
  })

  it.each(['0', '11', '2.5', '-1', '1e1', 'x1', '1x', 'ten'])('refuses %j, saying what it must be', value => {
    setInputs({ 'max-attempts': value })
    expect(() => integer('max-attempts', 1, 10)).toThrow(
      new Error(`Input max-attempts must be a whole number from 1 to 10, got "${value}"`)
    )
  })
})

describe('number', () => {
  it.each([
    ['1', 1],
    ['2.5', 2.5],
    ['600', 600],
    ['599.99', 599.99]
  ])('reads %j within its bounds', (value, expected) => {
    setInputs({ 'timeout-seconds': value })
    expect(number('timeout-seconds', 1, 600)).toBe(expected)
  })

  it.each(['0.5', '600.5', '.5', '5.', '1e2', '-2', 'x5', '5x', '5.x', '1.2.3'])(
    'refuses %j, saying what it must be',
    value => {
      setInputs({ 'timeout-seconds': value })
      expect(() => number('timeout-seconds', 1, 600)).toThrow(
        new Error(`Input timeout-seconds must be a number from 1 to 600, got "${value}"`)
      )
    }
  )
})

describe('boolean', () => {
  it.each([
    ['true', true],
    ['TRUE', true],
    ['false', false],
    ['False', false]
  ])('reads %j in any case', (value, expected) => {
    setInputs({ summary: value })
    expect(boolean('summary')).toBe(expected)
  })

  it.each(['Yes', '1', 'truee'])('refuses %j as it was given', value => {
    setInputs({ summary: value })
    expect(() => boolean('summary')).toThrow(new Error(`Input summary must be true or false, got "${value}"`))
  })
})

describe('choice', () => {
  it('reads one of the allowed values, in any case', () => {
    setInputs({ 'client-auth': 'BASIC' })
    expect(choice('client-auth', ['post', 'basic'])).toBe('basic')
  })

  it('refuses another value, listing the allowed ones', () => {
    setInputs({ 'client-auth': 'Mtls' })
    expect(() => choice('client-auth', ['post', 'basic'])).toThrow(
      new Error('Input client-auth must be one of post, basic, got "Mtls"')
    )
  })
})

describe('url', () => {
  const given = (value: string, options?: Parameters<typeof url>[1]) => {
    setInputs({ 'base-url': value })
    return url('base-url', options)
  }

  it.each([
    ['https://api.test', 'https://api.test/'],
    ['https://api.test///', 'https://api.test/'],
    ['https://api.test/a/b//', 'https://api.test/a/b'],
    ['https://api.test/a/', 'https://api.test/a'],
    ['http://127.0.0.1:8080/x/', 'http://127.0.0.1:8080/x'],
    ['http://localhost', 'http://localhost/'],
    ['http://[::1]:3000', 'http://[::1]:3000/']
  ])('reads %s as %s', (value, href) => {
    expect(given(value).href).toBe(href)
  })

  it('keeps a query only where allowed', () => {
    expect(given('https://idp.test/token/?p=1', { allowQuery: true }).href).toBe('https://idp.test/token?p=1')
    expect(() => given('https://idp.test/token?p=1')).toThrow(
      new Error('Input base-url must not have a ?query: give the base address only')
    )
  })

  it('refuses a fragment, query allowed or not', () => {
    const message = 'Input base-url must not have a #fragment: give the base address only'
    expect(() => given('https://api.test/#x')).toThrow(new Error(message))
    expect(() => given('https://api.test/?q=1#x', { allowQuery: true })).toThrow(new Error(message))
  })

  it('needs a value, saying what it is for when the caller says', () => {
    expect(() => given('')).toThrow(new Error('Input required and not supplied: base-url'))
    expect(() => given('', { what: 'the service' })).toThrow(
      new Error('Input required and not supplied: base-url (the service)')
    )
  })

  it.each([
    ['api.test', 'Input base-url is not a valid URL: give an absolute https:// URL'],
    [
      'https://user@api.test',
      'Input base-url must not contain credentials (user:password@); pass them in their own inputs'
    ],
    [
      'https://:pw@api.test',
      'Input base-url must not contain credentials (user:password@); pass them in their own inputs'
    ],
    [
      'http://api.test',
      'Input base-url must use https:// (plain http:// is accepted only for loopback hosts, for local testing)'
    ],
    ['ftp://api.test', 'Input base-url must be an https:// URL, not ftp:'],
    ['file:///etc/passwd', 'Input base-url must be an https:// URL, not file:']
  ])('refuses %s', (value, message) => {
    expect(() => given(value)).toThrow(new Error(message))
  })
})

describe('isLoopback', () => {
  it.each(['localhost', 'LOCALHOST', '127.0.0.1', '127.255.0.9', '127.0.10.100', '[::1]'])('counts %s', host => {
    expect(isLoopback(host)).toBe(true)
  })

  it.each(['localhost.evil.test', 'x.localhost', '127.0.0.1.evil.test', '1127.0.0.1', '128.0.0.1', '127.0.0', '[::2]'])(
    'does not count %s',
    host => {
      expect(isLoopback(host)).toBe(false)
    }
  )
})
