import { createPrivateKey, createPublicKey, hkdfSync } from 'node:crypto'
import { isRecordKey, RECORD_KEY_PREFIX, recordSigner, recordVerifier } from '../../src/auth/record-key.js'

const KEY = Buffer.alloc(32, 1)

describe('recordSigner', () => {
  it('derives the same key pair from the same sealed-token key, another from another', () => {
    const one = recordSigner(KEY)
    expect(recordSigner(Buffer.alloc(32, 1)).publicKey).toBe(one.publicKey)
    expect(recordSigner(Buffer.alloc(32, 2)).publicKey).not.toBe(one.publicKey)
    expect(one.publicKey.startsWith(RECORD_KEY_PREFIX)).toBe(true)
    expect(isRecordKey(one.publicKey)).toBe(true)
  })

  it('keeps a golden public key: the derivation is part of the record format', () => {
    // HKDF-SHA256(ikm, salt "", info "m2m record key 1") as an Ed25519 seed.
    const seed = Buffer.from(hkdfSync('sha256', KEY, Buffer.alloc(0), 'm2m record key 1', 32))
    const pkcs8 = Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), seed])
    const jwk = createPublicKey(createPrivateKey({ key: pkcs8, format: 'der', type: 'pkcs8' })).export({
      format: 'jwk'
    })
    expect(`m2mrk1.${jwk.x}`).toBe(recordSigner(KEY).publicKey)
    expect(recordSigner(KEY).publicKey).toBe('m2mrk1.Zf7OTjAC1GLxFYHk9VrdCTsKSt23QQkX9jkI2piWZbs')
  })

  it('signs what a verifier of its public key accepts, and nothing else', () => {
    const signer = recordSigner(KEY)
    const verifier = recordVerifier(signer.publicKey)!
    const sig = signer.sign('m2m results seal 1\n2\nabc')
    expect(sig).toMatch(/^[A-Za-z0-9_-]{86}$/)
    expect(verifier.verify('m2m results seal 1\n2\nabc', sig)).toBe(true)
    expect(verifier.verify('m2m results seal 1\n3\nabc', sig)).toBe(false)
    expect(verifier.verify('m2m results seal 1\n2\nabc', `${sig.slice(0, -1)}${sig.endsWith('A') ? 'B' : 'A'}`)).toBe(
      false
    )
    expect(verifier.verify('m2m results seal 1\n2\nabc', 'short')).toBe(false)
    const other = recordVerifier(recordSigner(Buffer.alloc(32, 9)).publicKey)!
    expect(other.verify('m2m results seal 1\n2\nabc', sig)).toBe(false)
  })
})

describe('recordVerifier', () => {
  it.each(['', 'm2mrk1.', 'm2mrk2.pDjcqLx4yTEzm8W17Qh7xOFrDhmxpdcmF8QJ8TBRRbU', `m2mrk1.${'A'.repeat(44)}`, 'x'])(
    'refuses %j',
    text => {
      expect(isRecordKey(text)).toBe(false)
      expect(recordVerifier(text)).toBeUndefined()
    }
  )
})
