import { SAID_CHARS, serviceSaid } from '../../src/routine/said.js'
import { mask } from '../../src/secrets.js'

describe('serviceSaid', () => {
  it.each<[string, unknown, string]>([
    [
      'a JSON body’s message, unescaped',
      '{"message":"profile \\"nightly\\" is locked","code":7}',
      'profile "nightly" is locked'
    ],
    ['detail', '{"detail":"no such host"}', 'no such host'],
    [
      'error_description before a bare error code',
      '{"error":"invalid_client","error_description":"bad secret"}',
      'bad secret'
    ],
    ['a bare error', '{"error":"conflict"}', 'conflict'],
    ['a title', '{"title":"Not Found","status":404}', 'Not Found'],
    ['message before the others', '{"error":"e","detail":"d","message":"m"}', 'm'],
    ['an error object’s message', '{"error":{"code":42,"message":"quota exceeded"}}', 'quota exceeded'],
    ['a parsed body', { error: { message: 'parsed' } }, 'parsed'],
    ['the JSON as text without a message field', '{"code":42}', '{"code":42}'],
    ['a parsed body without one', { code: 42 }, '{"code":42}'],
    ['an empty message skipped', '{"message":" ","detail":"d"}', 'd'],
    ['an array as text', '[1,2]', '[1,2]'],
    ['plain text', 'Service Unavailable', 'Service Unavailable'],
    ['broken JSON as text', '{"message":', '{"message":'],
    [
      'an error nested twice as JSON',
      '{"error":{"error":{"message":"deep"}}}',
      '{"error":{"error":{"message":"deep"}}}'
    ],
    ['nothing', null, ''],
    ['no body', undefined, ''],
    ['line breaks as spaces', 'one\ntwo', 'one two']
  ])('shows %s', (_, said, text) => {
    expect(serviceSaid(said)).toBe(text)
  })

  it('cuts a long message at a word boundary with an ellipsis', () => {
    const words = 'the nightly profile cannot be changed while a run holds it '.repeat(5)
    const text = serviceSaid(JSON.stringify({ message: words }))
    expect(text.length).toBeLessThanOrEqual(SAID_CHARS + 1)
    expect(text.endsWith('…')).toBe(true)
    expect(words.startsWith(text.slice(0, -1))).toBe(true)
    expect(words[text.length - 1]).toBe(' ')
    expect(serviceSaid('a, b, c d', 6)).toBe('a, b…')
  })

  it('cuts a word with no boundary near where it is', () => {
    expect(serviceSaid(`ab ${'x'.repeat(300)}`, 20)).toBe(`ab ${'x'.repeat(17)}…`)
  })

  it('leaves a message that fits, ending in an ellipsis of its own, whole', () => {
    expect(serviceSaid('wait for it…')).toBe('wait for it…')
  })

  it('redacts a secret in the message, also one the JSON escaped', () => {
    mask('said-secret-81')
    expect(serviceSaid('{"message":"token said-\\u0073ecret-81 refused"}')).toBe('token *** refused')
  })

  it('reads a long body as text, not as JSON', () => {
    const body = JSON.stringify({ message: 'm', pad: 'x'.repeat(70_000) })
    expect(serviceSaid(body).startsWith('{"message":"m","pad":"xxx')).toBe(true)
  })
})
