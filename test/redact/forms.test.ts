import fc from 'fast-check'
import { base64Forms, hexForms, mayHoldSpacedHex, spacedHexForms, textForms } from '../../src/redact/forms.js'

describe('textForms', () => {
  it('is the secret, with + for each space, and its UTF-8 bytes one character each', () => {
    expect(textForms('plain-secret')).toEqual(['plain-secret'])
    expect(textForms('a b c')).toEqual(['a b c', 'a+b+c'])
    // What decodeURIComponent would not make of %C3%A9 read byte by byte: Ã©.
    expect(textForms('sécret')).toEqual(['sécret', 's\u00c3\u00a9cret'])
    expect(textForms('é é')).toEqual(['é é', 'é+é', '\u00c3\u00a9 \u00c3\u00a9'])
  })
})

describe('hexForms', () => {
  it("is the secret's UTF-8 bytes in hex, lower case and upper case", () => {
    expect(hexForms('Ab~')).toEqual(['41627e', '41627E'])
    expect(hexForms('é')).toEqual(['c3a9', 'C3A9'])
  })
})

describe('spacedHexForms', () => {
  it("is the secret's UTF-8 bytes in hex with a space, a colon or a dash between bytes, each in both cases", () => {
    expect(spacedHexForms('Ab~')).toEqual([
      '41 62 7e',
      '41 62 7E',
      '41:62:7e',
      '41:62:7E',
      '41-62-7e',
      '41-62-7E',
      '41+62+7e',
      '41+62+7E'
    ])
    expect(spacedHexForms('é')).toEqual(['c3 a9', 'C3 A9', 'c3:a9', 'C3:A9', 'c3-a9', 'C3-A9', 'c3+a9', 'C3+A9'])
  })
})

describe('mayHoldSpacedHex', () => {
  it('is four hex pairs with one separator, not a date, a time or mixed separators', () => {
    for (const text of ['ab cd ef 01', 'x AB:CD:EF:01 y', '00-11-22-33', 'q=0a+0b+0c+0d']) {
      expect(mayHoldSpacedHex(text)).toBe(true)
    }
    for (const text of ['2026-12-08 14:13:52', 'ab cd ef', 'ab:cd-ef:01', 'ab cd eg 01', '']) {
      expect(mayHoldSpacedHex(text)).toBe(false)
    }
  })
})

describe('base64Forms', () => {
  it('is six forms, or twelve when form encoding changes the secret', () => {
    expect(base64Forms('abcdefgh')).toHaveLength(6)
    expect(base64Forms('a b&c=d')).toHaveLength(12)
  })

  it('has its secret in the base64 and base64url of any blob that holds it, at any byte offset', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 4, maxLength: 40 }),
        fc.uint8Array({ maxLength: 5 }),
        fc.uint8Array({ maxLength: 5 }),
        (secret, before, after) => {
          const forms = base64Forms(secret)
          const blob = Buffer.concat([Buffer.from(before), Buffer.from(secret, 'utf8'), Buffer.from(after)])
          for (const encoded of [blob.toString('base64'), blob.toString('base64url')]) {
            expect(forms.some(form => form.length > 0 && encoded.includes(form))).toBe(true)
          }
        }
      )
    )
  })

  it("holds the form encoding's base64 too (HTTP Basic credentials)", () => {
    const encoded = Buffer.from('id:a+b%26c', 'utf8').toString('base64')
    expect(base64Forms('a b&c').some(form => encoded.includes(form))).toBe(true)
  })
})
