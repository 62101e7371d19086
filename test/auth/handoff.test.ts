import { clientSecretPost } from '../../src/auth/client-secret.js'
import { Credentials } from '../../src/auth/credentials.js'
import { encodeHandoff, parseHandoff, settingsBytes, settingsOf } from '../../src/auth/handoff.js'

const credentials: Credentials = {
  clientId: 'client-1',
  auth: clientSecretPost('s3cret'),
  audience: 'https://idp.test/api/v2/',
  tokenUrl: new URL('https://idp.test/oauth/token'),
  bodyFormat: 'json'
}
const baseUrl = new URL('https://api.test/svc')

describe('a handoff', () => {
  it('carries the settings in the clear, in a fixed order, and nothing secret', () => {
    const settings = settingsOf(credentials, baseUrl)
    expect(settingsBytes(settings).toString()).toBe(
      '{"v":3,"audience":"https://idp.test/api/v2/","auth":{"method":"post"},"baseUrl":"https://api.test/svc","bodyFormat":"json","clientId":"client-1","tokenUrl":"https://idp.test/oauth/token"}'
    )
    const text = encodeHandoff(settings, Buffer.from('sealed'))
    expect(text).toMatch(/^m2m3\.[\w-]+\.[\w-]+$/)
    expect(text).not.toContain('s3cret')
    const parsed = parseHandoff(text)
    expect(parsed).toEqual({ settings, settingsBytes: settingsBytes(settings), sealed: Buffer.from('sealed') })
  })

  it('may carry settings alone, when the listing job had no secret', () => {
    const parsed = parseHandoff(encodeHandoff(settingsOf(credentials, baseUrl)))
    expect(parsed).toMatchObject({ sealed: undefined })
  })

  it.each([
    ['m2m4.abc.def', { reason: 'it is format m2m4', newer: 4 }],
    ['m2m2.abc', { reason: 'it is not a sealed token of this action' }],
    ['nonsense', { reason: 'it is not a sealed token of this action' }],
    ['m2m3.a.b.c', { reason: 'it is malformed' }],
    ['m2m3.a*b.', { reason: 'it is malformed' }],
    [`m2m3.${Buffer.from('{"v":3}').toString('base64url')}.`, { reason: 'its settings are malformed' }],
    [`m2m3.${Buffer.from('not json').toString('base64url')}.`, { reason: 'its settings are malformed' }],
    [
      `m2m3.${Buffer.from(JSON.stringify({ v: 2, auth: { method: 'post' }, baseUrl: 'x', bodyFormat: 'json', clientId: 'c', tokenUrl: 't' })).toString('base64url')}.`,
      { reason: 'its settings are malformed' }
    ],
    [
      `m2m3.${Buffer.from(JSON.stringify({ v: 3, auth: { method: 'post' }, baseUrl: 'x', bodyFormat: 'xml', clientId: 'c', tokenUrl: 't' })).toString('base64url')}.`,
      { reason: 'its settings are malformed' }
    ]
  ])('refuses %s', (text, expected) => {
    expect(parseHandoff(text)).toEqual(expected)
  })
})
