import { createPrivateKey, createPublicKey, hkdfSync, KeyObject, sign, verify } from 'node:crypto'

/**
 * The run's record key: an Ed25519 key pair that signs every results file a job of the run
 * writes, so that a report (which holds no credential) and a resume can tell the run's own files
 * from lines forged by a job that can upload artifacts but holds no secret (docs/security.md).
 *
 * Its private half is derived with HKDF from the sealed token's key, which only the client secret
 * (or private key) gives, through scrypt: whoever has the sealed token and the secret — the
 * listing job and every shard job of a fan-out — derives the same key, and no one else can. The
 * public half is the listing job's `record-key` output; being public it is, like the sealed token,
 * a check on guesses of the secret that costs a scrypt each.
 *
 *   seed = HKDF-SHA256(ikm = sealed token's key, salt = "", info = "m2m record key 1", 32 bytes)
 *   record-key = "m2mrk1." + base64url(Ed25519 public key)
 */
export const RECORD_KEY_PREFIX = 'm2mrk1.'
const INFO = 'm2m record key 1'
// DER headers of an Ed25519 PKCS#8 private key and an SPKI public key, before their 32 bytes.
const PKCS8_HEADER = Buffer.from('302e020100300506032b657004220420', 'hex')
const SPKI_HEADER = Buffer.from('302a300506032b6570032100', 'hex')
const FORMAT = /^m2mrk1\.[A-Za-z0-9_-]{43}$/

/** Signs the seals of results files. */
export interface RecordSigner {
  /** The record-key output: the public half. */
  readonly publicKey: string
  /** A seal's signature, base64url. */
  sign(message: string): string
}

/** Checks seals' signatures against a record-key. */
export interface RecordVerifier {
  readonly publicKey: string
  verify(message: string, signature: string): boolean
}

export function recordSigner(sealKey: Buffer): RecordSigner {
  const seed = Buffer.from(hkdfSync('sha256', sealKey, Buffer.alloc(0), INFO, 32))
  const privateKey = createPrivateKey({ key: Buffer.concat([PKCS8_HEADER, seed]), format: 'der', type: 'pkcs8' })
  const raw = createPublicKey(privateKey).export({ format: 'der', type: 'spki' }).subarray(SPKI_HEADER.length)
  return {
    publicKey: RECORD_KEY_PREFIX + raw.toString('base64url'),
    sign: message => sign(null, Buffer.from(message), privateKey).toString('base64url')
  }
}

/** Whether a text has the form of a record-key output. */
export function isRecordKey(text: string): boolean {
  return FORMAT.test(text)
}

/** The verifier of a record-key; undefined when the text is not one. */
export function recordVerifier(publicKey: string): RecordVerifier | undefined {
  if (!isRecordKey(publicKey)) return undefined
  const raw = Buffer.from(publicKey.slice(RECORD_KEY_PREFIX.length), 'base64url')
  let key: KeyObject
  try {
    key = createPublicKey({ key: Buffer.concat([SPKI_HEADER, raw]), format: 'der', type: 'spki' })
  } catch {
    return undefined
  }
  return {
    publicKey,
    verify: (message, signature) => {
      if (!/^[A-Za-z0-9_-]{86}$/.test(signature)) return false
      return verify(null, Buffer.from(message), key, Buffer.from(signature, 'base64url'))
    }
  }
}
