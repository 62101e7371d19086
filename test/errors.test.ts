import { messageOf } from '../src/errors.js'

describe('messageOf', () => {
  it('takes the message of anything thrown, from any realm', () => {
    expect(messageOf(new Error('boom'))).toBe('boom')
    expect(messageOf({ message: 'from another realm' })).toBe('from another realm')
    expect(messageOf('plain')).toBe('plain')
    expect(messageOf(undefined)).toBe('undefined')
  })
})
