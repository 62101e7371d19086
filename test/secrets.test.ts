import { excerpt, mask, redact } from '../src/secrets.js'
import { captureStdout } from './helpers.js'

describe('secrets', () => {
  const written = captureStdout()

  it('registers the secret with the runner and each line of a multi-line one', () => {
    mask('line-one\nline-two')
    expect(written).toEqual(['::add-mask::line-one%0Aline-two\n', '::add-mask::line-one\n', '::add-mask::line-two\n'])
  })

  it('ignores empty values', () => {
    mask('   ')
    expect(written).toEqual([])
  })

  it('redacts the secret as given, JSON-escaped and URL-encoded', () => {
    mask('p@ss "word"/ü')
    const text = `raw p@ss "word"/ü json ${JSON.stringify('p@ss "word"/ü')} url ${encodeURIComponent('p@ss "word"/ü')}`
    expect(redact(text)).toBe('raw *** json "***" url ***')
  })

  it('quotes at most ~300 characters, single-line, redacted before cutting', () => {
    mask('secret-in-the-middle')
    const body = `${'a'.repeat(290)}secret-in-the-middle\r\n\u0000${'b'.repeat(500)}`
    const quoted = excerpt(body)
    expect(quoted).not.toMatch(/secret|[\r\n]/)
    expect(quoted.includes('\u0000')).toBe(false)
    expect(quoted.length).toBeLessThanOrEqual(301)
    expect(quoted.startsWith(`${'a'.repeat(290)}*** b`)).toBe(true)
  })
})
