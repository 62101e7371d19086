// The forms of a secret that redaction looks for, as Fragments stores them (fragments.ts).

/**
 * The secret; with each space as + (form encoding); and its UTF-8 bytes one character each, as
 * percent-decoding a non-ASCII secret reads them.
 */
export function textForms(secret: string): string[] {
  const forms = [secret]
  if (secret.includes(' ')) forms.push(secret.replace(/ /g, '+'))
  // eslint-disable-next-line no-control-regex
  if (/[^\u0000-\u007f]/.test(secret)) forms.push(Buffer.from(secret, 'utf8').toString('latin1'))
  return forms
}

/** The secret's UTF-8 bytes in hex, as a hex dump or a debug log writes them: lower and upper case. */
export function hexForms(secret: string): string[] {
  const hex = Buffer.from(secret, 'utf8').toString('hex')
  return [hex, hex.toUpperCase()]
}

/**
 * The secret's UTF-8 bytes in hex with one separator between bytes, as a byte dump, a certificate
 * fingerprint or Python's bytes.hex(' ') writes them: a space, a colon or a dash, and + (a space in
 * form encoding, which is matched as written); lower and upper case.
 */
export function spacedHexForms(secret: string): string[] {
  const pairs = Buffer.from(secret, 'utf8').toString('hex').match(/../g) ?? []
  return [' ', ':', '-', '+'].flatMap(separator => {
    const hex = pairs.join(separator)
    return [hex, hex.toUpperCase()]
  })
}

/** Four hex pairs with one separator: a text without them holds no secret's spaced hex (4 bytes or more). */
const SPACED_HEX = /[0-9A-Fa-f]{2}([ :+-])[0-9A-Fa-f]{2}\1[0-9A-Fa-f]{2}\1[0-9A-Fa-f]{2}/

/** Whether a text may hold a secret's spaced hex (a date or a time holds three pairs, not four). */
export function mayHoldSpacedHex(text: string): boolean {
  return SPACED_HEX.test(text)
}

/**
 * The characters of the secret's base64 (and of its form encoding's: HTTP Basic credentials) that
 * its bytes alone decide, at byte offsets 0, 1 and 2: in base64 and in base64url.
 */
export function base64Forms(secret: string): string[] {
  const forms: string[] = []
  const form = new URLSearchParams({ v: secret }).toString().slice(2)
  for (const text of form === secret ? [secret] : [secret, form]) {
    const bytes = Buffer.from(text, 'utf8')
    for (let shift = 0; shift < 3; shift++) {
      const encoded = Buffer.concat([Buffer.alloc(shift), bytes]).toString('base64')
      const inner = encoded.slice(Math.ceil((8 * shift) / 6), Math.floor((8 * (shift + bytes.length)) / 6))
      forms.push(inner, inner.replace(/\+/g, '-').replace(/\//g, '_'))
    }
  }
  return forms
}
