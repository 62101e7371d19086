import { Fragments } from '../../src/redact/fragments.js'

const SECRET = 'Zq8!mW2#pL5@vN9$'

function spansIn(text: string, ...secrets: string[]): string[] {
  const fragments = new Fragments()
  for (const secret of secrets) fragments.add(secret)
  const spans: number[] = []
  fragments.find(text, spans)
  const found = new Set<string>()
  for (let k = 0; k < spans.length; k += 2) found.add(text.slice(spans[k], spans[k + 1]))
  return [...found]
}

describe('Fragments', () => {
  it('finds a run of 12 characters at any place of the text, and not one of 11', () => {
    // The text is looked up every 10 characters: every offset from one place looked up to the next.
    for (let pad = 0; pad < 20; pad++) {
      const text = `${'.'.repeat(pad)}<${SECRET.slice(3, 15)}>`
      expect(spansIn(text, SECRET)).toEqual([SECRET.slice(3, 15)])
      expect(spansIn(`${'.'.repeat(pad)}<${SECRET.slice(3, 14)}>`, SECRET)).toEqual([])
    }
  })

  it('finds a secret of punctuation, whose characters a text looked up passes over in other blocks', () => {
    const secret = '!@#$%^&*()_+-=[]{};:'
    for (let pad = 0; pad < 10; pad++) {
      const text = `${'a'.repeat(pad)}"${secret.slice(2, 16)}",`
      expect(spansIn(text, secret)).toEqual([secret.slice(2, 16)])
    }
    // Its characters in another order are no run of it.
    expect(spansIn(`x${[...secret].reverse().join('')}x`, secret)).toEqual([])
  })

  it('finds a secret of characters beyond ASCII, in a text of them', () => {
    const secret = 'пароль-секрет-длинный'
    for (let pad = 0; pad < 10; pad++) {
      expect(spansIn(`${'ж'.repeat(pad)} ${secret.slice(1, 14)} ж`, secret)).toEqual([secret.slice(1, 14)])
    }
  })

  it('finds a short secret whole only', () => {
    expect(spansIn('a k3y! b', 'k3y!')).toEqual(['k3y!'])
    expect(spansIn('a k3y b', 'k3y!')).toEqual([])
    expect(spansIn('ab', 'abc')).toEqual([]) // under 4 characters: never redacted
  })

  it('finds the secret with + for each space, as form encoding writes it', () => {
    expect(spansIn('x=pass+phrase+here+ok', 'pass phrase here ok')).toEqual(['pass+phrase+here+ok'])
  })

  it.each([0, 1, 2])('finds the base64 of the secret at byte offset %i, with the characters it shares', shift => {
    const blob = Buffer.from(`${'ab'.slice(0, shift)}${SECRET}xyz`).toString('base64')
    const [found] = spansIn(`"${blob}"`, SECRET)
    const start = blob.indexOf(found)
    expect(found.length).toBeGreaterThanOrEqual(20)
    // What is left either side decodes to the bytes around the secret, and part of one of its bytes.
    expect(start).toBeLessThanOrEqual(2)
    expect(blob.length - start - found.length).toBeLessThanOrEqual(6)
  })

  it('finds base64url and the base64 of the form-encoded secret (HTTP Basic)', () => {
    const secret = 'a b/c+d?e~f>g<h'
    const url = Buffer.from(secret).toString('base64url')
    expect(url).toContain('-')
    expect(spansIn(url, secret)).toContain(url)
    const basic = Buffer.from(`id:${new URLSearchParams({ s: secret }).toString().slice(2)}`).toString('base64')
    expect(spansIn(basic, secret)).toEqual([basic.slice(3)]) // from the character 'id:' shares
  })

  it('stops at the first match when asked', () => {
    const fragments = new Fragments()
    fragments.add(SECRET)
    const spans: number[] = []
    fragments.find(`${SECRET} and ${SECRET}`, spans, true)
    expect(spans).toEqual([0, SECRET.length])
  })

  it("takes no run inside a JWT's header for the token, and one of 12 past it", () => {
    const jwt = 'eyJhbGciOiJFUzI1NiIsImtpZCI6IjEifQ.eyJzdWIiOiJib3QiLCJleHAiOjF9.c2lnbmF0dXJl'
    const header = jwt.slice(0, jwt.indexOf('.') + 1)
    expect(spansIn(`${header}eyJzdWIiOiJ0aGVtIn0.eA`, jwt)).toEqual([]) // 11 past the header
    expect(spansIn(`x${header}eyJzdWIiOiJi.`, jwt)).toEqual([`${header}eyJzdWIiOiJi`])
    expect(spansIn(`"${jwt.slice(-12)}"`, jwt)).toEqual([jwt.slice(-12)])
  })
})
