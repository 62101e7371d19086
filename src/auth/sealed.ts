import { createCipheriv, createDecipheriv, createHash, randomBytes, scrypt } from 'node:crypto'
import { Credentials } from './credentials.js'
import { encodeHandoff, HANDOFF_PREFIX, LEGACY_PREFIX, parseHandoff, settingsBytes, settingsOf } from './handoff.js'

/**
 * A sealed token is the access token and its expiry, encrypted and authenticated with a key only
 * the client's secret gives — the client secret, or with private-key-jwt the private key — and
 * bound to every non-secret setting it was issued for (AES-256-GCM). It travels in job outputs
 * and `with:` values, which the runner prints: whoever reads it can try to guess the secret
 * offline, so the key comes from scrypt, a memory-hard function that makes each guess cost about
 * 80 ms of a core and 32 MiB (bench/guesses.js measures it), not HKDF's microseconds.
 */
export const PREFIX = LEGACY_PREFIX
/** scrypt N = 2^15, r = 8, p = 1: 32 MiB of memory and about 80 ms of a core per guess. */
export const SCRYPT = { N: 2 ** 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 } as const
const SALT_BYTES = 16
const IV_BYTES = 12
const TAG_BYTES = 16

export interface SealedContents {
  readonly accessToken: string
  readonly scope?: string
  readonly expiresAtMs: number
}

/**
 * scrypt on libuv's thread pool, so the derivation overlaps the network requests. Kept per material
 * and salt: the record key and the seal of one step come from one derivation.
 */
function deriveKey(material: Buffer, salt: Buffer): Promise<Buffer> {
  const id = `${createHash('sha256').update(material).digest('hex')}:${salt.toString('hex')}`
  let key = derived.get(id)
  if (!key) {
    key = new Promise((resolve, reject) =>
      scrypt(material, salt, 32, SCRYPT, (err, out) => (err ? reject(err) : resolve(out)))
    )
    derived.set(id, key)
  }
  return key
}
const derived = new Map<string, Promise<Buffer>>()

/**
 * The settings a sealed token is bound to, named one by one: they are part of the m2m2. format
 * (test/auth/sealed.test.ts opens values sealed by earlier releases), so a field is added here on
 * purpose, never by renaming a property. Keys in sorted order; an absent value is left out.
 */
export function binding(credentials: Credentials, baseUrl: URL): Buffer {
  const bound = {
    audience: credentials.audience,
    auth: sortedKeys(credentials.auth.bound),
    baseUrl: baseUrl.href,
    bodyFormat: credentials.bodyFormat,
    clientId: credentials.clientId,
    scope: credentials.scope,
    tokenUrl: credentials.tokenUrl.href
  }
  return Buffer.from(JSON.stringify([PREFIX, bound]))
}

function sortedKeys(value: Readonly<Record<string, string | undefined>>): Record<string, string | undefined> {
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map(k => [k, value[k]])
  )
}

/** Whether these credentials hold a secret to seal with: a client secret or a private key. */
export function canSeal(credentials: Credentials): boolean {
  return credentials.auth.keyMaterial() !== undefined
}

/**
 * The salt of a run's seals: the same in every job of a workflow run with the same settings, so
 * that each job holding the secret derives the same key, and the same record key (record-key.ts),
 * whether it opens the listing job's sealed token or has none. Another run, or other settings,
 * another salt: no two runs share a key.
 */
export function runSalt(runId: string, credentials: Credentials, baseUrl: URL): Buffer {
  const hash = createHash('sha256').update('m2m run salt 1\n').update(runId).update('\n')
  return hash.update(binding(credentials, baseUrl)).digest().subarray(0, SALT_BYTES)
}

/** Starts deriving the key at once; seal() waits for it. */
export class Sealer {
  private readonly salt: Buffer
  /** The key the seal is made with: the record key is derived from it too. */
  readonly key: Promise<Buffer>

  /** With a run id, the run's salt (runSalt); without, a random one. */
  constructor(
    private readonly credentials: Credentials,
    private readonly baseUrl: URL,
    runId?: string
  ) {
    this.salt = runId === undefined ? randomBytes(SALT_BYTES) : runSalt(runId, credentials, baseUrl)
    const material = credentials.auth.keyMaterial()
    this.key = material
      ? deriveKey(material, this.salt)
      : Promise.reject(new Error(`client-auth ${credentials.auth.method} holds no secret to seal with`))
    this.key.catch(() => undefined) // awaited in seal(); never an unhandled rejection meanwhile
  }

  /** The handoff (handoff.ts): the settings in the clear, and the token sealed with them. */
  async seal(contents: SealedContents): Promise<string> {
    const iv = randomBytes(IV_BYTES)
    const cipher = createCipheriv('aes-256-gcm', await this.key, iv)
    const settings = settingsOf(this.credentials, this.baseUrl)
    cipher.setAAD(settingsBytes(settings))
    const plain = JSON.stringify({ t: contents.accessToken, s: contents.scope, e: contents.expiresAtMs })
    const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()])
    return encodeHandoff(settings, Buffer.concat([this.salt, iv, cipher.getAuthTag(), data]))
  }
}

/**
 * The sealed token's contents, or why it cannot be used; never throws. `onKey` is given the key it
 * opened with, whether or not the token is still fresh enough to use: the record key comes from it.
 */
export async function unseal(
  sealed: string,
  credentials: Credentials,
  baseUrl: URL,
  onKey?: (key: Buffer) => void
): Promise<SealedContents | { reason: string; newer?: number }> {
  const aad = binding(credentials, baseUrl)
  const material = credentials.auth.keyMaterial()
  const secret = material ? createHash('sha256').update(material).digest('hex') : ''
  const id = `${sealed}\n${aad.toString('base64')}\n${secret}`
  let opening = openings.get(id)
  if (!opening) openings.set(id, (opening = open(sealed, credentials, aad, baseUrl)))
  const { result, key } = await opening
  if (key) onKey?.(key)
  return result
}
const openings = new Map<string, Promise<Opened>>()
const OTHER =
  'it cannot be opened with these inputs (another client secret or private key, other client-id, client-auth, ' +
  'audience, scope, token URL, token-request-format or base-url, or it was altered)'

interface Opened {
  readonly result: SealedContents | { reason: string; newer?: number }
  readonly key?: Buffer
}

/** Opens a sealed token once per step: the record key and the token come from one scrypt. */
async function open(sealed: string, credentials: Credentials, legacyAad: Buffer, baseUrl: URL): Promise<Opened> {
  const material = credentials.auth.keyMaterial()
  const known = sealed.startsWith(PREFIX) || sealed.startsWith(HANDOFF_PREFIX)
  if (known && !material) return { result: { reason: noSecret(credentials) } }
  let raw: Buffer
  let aad = legacyAad
  if (sealed.startsWith(PREFIX)) {
    raw = Buffer.from(sealed.slice(PREFIX.length), 'base64url')
  } else {
    const handoff = parseHandoff(sealed)
    if ('reason' in handoff) return { result: handoff }
    if (!handoff.sealed)
      return { result: { reason: 'it holds no token: the listing job had no secret to seal one with' } }
    if (!settingsBytes(settingsOf(credentials, baseUrl)).equals(handoff.settingsBytes))
      return { result: { reason: OTHER } }
    raw = handoff.sealed
    aad = handoff.settingsBytes
  }
  if (!material) return { result: { reason: noSecret(credentials) } }
  const headerBytes = SALT_BYTES + IV_BYTES + TAG_BYTES
  if (raw.length < headerBytes + 1) return { result: { reason: 'it is truncated' } }
  try {
    const key = await deriveKey(material, raw.subarray(0, SALT_BYTES))
    const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(SALT_BYTES, SALT_BYTES + IV_BYTES))
    decipher.setAAD(aad)
    decipher.setAuthTag(raw.subarray(SALT_BYTES + IV_BYTES, headerBytes))
    const plain = Buffer.concat([decipher.update(raw.subarray(headerBytes)), decipher.final()]).toString('utf8')
    const { t, s, e } = JSON.parse(plain) as { t: unknown; s: unknown; e: unknown }
    if (typeof t !== 'string' || !t || typeof e !== 'number')
      return { result: { reason: 'its contents are malformed' } }
    return { result: { accessToken: t, scope: typeof s === 'string' ? s : undefined, expiresAtMs: e }, key }
  } catch {
    return { result: { reason: OTHER } }
  }
}

/**
 * The key the run's record key comes from (record-key.ts), worked out before any request: the
 * sealed-token input's, when it opens with these inputs (the listing job's key, whatever salt made
 * it); else the run's own, from runSalt. Undefined without a secret to derive it from.
 */
export async function runSealKey(
  credentials: Credentials,
  baseUrl: URL,
  runId: string | undefined,
  sealedToken?: string
): Promise<Buffer | undefined> {
  if (!canSeal(credentials)) return undefined
  if (sealedToken) {
    let opened: Buffer | undefined
    await unseal(sealedToken, credentials, baseUrl, key => (opened = key))
    if (opened) return opened
  }
  return new Sealer(credentials, baseUrl, runId).key
}

function noSecret(credentials: Credentials): string {
  return `client-auth ${credentials.auth.method} holds no secret to open it with`
}
