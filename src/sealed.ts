import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto'
import { Credentials } from './inputs.js'

/**
 * A sealed token is the access token and its expiry, encrypted and authenticated with a key only
 * the client secret gives (AES-256-GCM, HKDF-SHA256), and bound to the settings it was issued for.
 * It can travel as a job output: without the client secret it reveals nothing.
 */
const PREFIX = 'm2m1.'
const INFO = 'm2m-targets-action sealed-token v1'

export interface Sealable {
  readonly accessToken: string
  readonly scope?: string
  /** Milliseconds since the epoch. */
  readonly expiresAt: number
}

export function seal(token: Sealable, credentials: Credentials, baseUrl: URL): string {
  const salt = randomBytes(16)
  const iv = randomBytes(12)
  const cipher = createCipheriv('aes-256-gcm', key(credentials.clientSecret, salt), iv)
  cipher.setAAD(binding(credentials, baseUrl))
  const plain = JSON.stringify({ t: token.accessToken, s: token.scope, e: token.expiresAt })
  const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()])
  return PREFIX + Buffer.concat([salt, iv, cipher.getAuthTag(), data]).toString('base64url')
}

/** The sealed token's contents, or why it cannot be used; never throws. */
export function unseal(sealed: string, credentials: Credentials, baseUrl: URL): Sealable | { reason: string } {
  if (!sealed.startsWith(PREFIX)) return { reason: 'it is not a sealed token of this version' }
  const raw = Buffer.from(sealed.slice(PREFIX.length), 'base64url')
  if (raw.length < 16 + 12 + 16 + 1) return { reason: 'it is truncated' }
  try {
    const decipher = createDecipheriv(
      'aes-256-gcm',
      key(credentials.clientSecret, raw.subarray(0, 16)),
      raw.subarray(16, 28)
    )
    decipher.setAAD(binding(credentials, baseUrl))
    decipher.setAuthTag(raw.subarray(28, 44))
    const plain = Buffer.concat([decipher.update(raw.subarray(44)), decipher.final()]).toString('utf8')
    const { t, s, e } = JSON.parse(plain) as { t: unknown; s: unknown; e: unknown }
    if (typeof t !== 'string' || !t || typeof e !== 'number') return { reason: 'its contents are malformed' }
    return { accessToken: t, scope: typeof s === 'string' ? s : undefined, expiresAt: e }
  } catch {
    return {
      reason:
        'it cannot be opened with these inputs (another client secret, other client-id, audience, token URL or base-url, or it was altered)'
    }
  }
}

function key(secret: string, salt: Buffer): Buffer {
  return Buffer.from(hkdfSync('sha256', secret, salt, INFO, 32))
}

function binding(credentials: Credentials, baseUrl: URL): Buffer {
  return Buffer.from(
    JSON.stringify([PREFIX, credentials.clientId, credentials.audience, credentials.tokenUrl.href, baseUrl.href])
  )
}
