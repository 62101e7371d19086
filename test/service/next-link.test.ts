import { linkKey } from '../../src/service/next-link.js'

describe('linkKey', () => {
  it('gives a link the same 53-bit number every time, and these numbers', () => {
    expect(linkKey('https://api.service.test/v1/targets?page=2')).toBe(
      linkKey('https://api.service.test/v1/targets?page=2')
    )
    // Pinned: the number is the two hashes as written, not any hash of the link.
    expect(linkKey('')).toBe(0x811c9dc5 * 0x200000 + (0x9747b28c >>> 11))
    expect(linkKey('a')).toBe(8023708208996883)
    expect(linkKey('https://api.service.test/v1/targets?page=2')).toBe(4638386694129314)
    for (const href of ['a', 'ab', 'https://x.test/?page=1', '\u{1F600}'.repeat(40)]) {
      expect(Number.isSafeInteger(linkKey(href))).toBe(true)
    }
  })

  it('tells apart 200,000 links that differ in a page number or a cursor', () => {
    const keys = new Set<number>()
    for (let i = 0; i < 100_000; i++) {
      keys.add(linkKey(`https://api.service.test/v1/targets?page=${i}`))
      keys.add(
        linkKey(`https://api.service.test/v1/targets?cursor=${Buffer.from(String(i * 7919)).toString('base64url')}`)
      )
    }
    expect(keys.size).toBe(200_000)
  })
})
