import { Credentials } from './credentials.js'

/**
 * What a fan-out's listing job hands its shard jobs through the sealed-token output: the settings of
 * the client and the service, in the clear (none is secret: client id, token URL, audience, scope,
 * how the client authenticates, base-url), and the token sealed with them as its associated data.
 * A shard job then needs only the secret to open it, and to exchange again when it has expired.
 *
 *   m2m3.<base64url of the settings' JSON>.<base64url of salt, IV, tag and ciphertext, or nothing>
 *
 * `m2m2.` (the previous format: the sealed part only, bound to settings the reader gives) is read
 * too; a newer format is refused, naming both versions.
 */
export const HANDOFF_PREFIX = 'm2m3.'
export const LEGACY_PREFIX = 'm2m2.'
export const HANDOFF_VERSION = 3

export interface HandoffSettings {
  readonly audience?: string
  readonly auth: Readonly<Record<string, string | undefined>>
  readonly baseUrl: string
  readonly bodyFormat: 'json' | 'form'
  readonly clientId: string
  readonly scope?: string
  readonly tokenUrl: string
}

export interface Handoff {
  readonly settings: HandoffSettings
  /** The settings as written: the sealed part's associated data. */
  readonly settingsBytes: Buffer
  /** Salt, IV, tag and ciphertext; absent when the listing job had no secret to seal with. */
  readonly sealed?: Buffer
}

/** The settings of a client and a service, keys in a fixed order, as a handoff carries them. */
export function settingsOf(credentials: Credentials, baseUrl: URL): HandoffSettings {
  return {
    audience: credentials.audience,
    auth: sortedKeys(credentials.auth.bound),
    baseUrl: baseUrl.href,
    bodyFormat: credentials.bodyFormat,
    clientId: credentials.clientId,
    scope: credentials.scope,
    tokenUrl: credentials.tokenUrl.href
  }
}

export function settingsBytes(settings: HandoffSettings): Buffer {
  return Buffer.from(JSON.stringify({ v: HANDOFF_VERSION, ...settings }))
}

export function encodeHandoff(settings: HandoffSettings, sealed?: Buffer): string {
  return `${HANDOFF_PREFIX}${settingsBytes(settings).toString('base64url')}.${sealed?.toString('base64url') ?? ''}`
}

/** A handoff's parts, or why the text is not one this version reads (with the version it names). */
export function parseHandoff(text: string): Handoff | { readonly reason: string; readonly newer?: number } {
  const version = /^m2m(\d+)\./.exec(text)?.[1]
  if (version !== undefined && Number(version) > HANDOFF_VERSION) {
    return { reason: `it is format m2m${version}`, newer: Number(version) }
  }
  if (!text.startsWith(HANDOFF_PREFIX)) return { reason: 'it is not a sealed token of this action' }
  const [settingsText, sealedText = '', ...rest] = text.slice(HANDOFF_PREFIX.length).split('.')
  if (rest.length > 0 || !/^[A-Za-z0-9_-]*$/.test(settingsText + sealedText)) return { reason: 'it is malformed' }
  const bytes = Buffer.from(settingsText, 'base64url')
  const settings = checkedSettings(bytes)
  if (!settings) return { reason: 'its settings are malformed' }
  return { settings, settingsBytes: bytes, sealed: sealedText ? Buffer.from(sealedText, 'base64url') : undefined }
}

function checkedSettings(bytes: Buffer): HandoffSettings | undefined {
  let value: unknown
  try {
    value = JSON.parse(bytes.toString('utf8'))
  } catch {
    return undefined
  }
  if (!value || typeof value !== 'object') return undefined
  const { v, audience, auth, baseUrl, bodyFormat, clientId, scope, tokenUrl } = value as Record<string, unknown>
  const optional = (x: unknown): boolean => x === undefined || typeof x === 'string'
  const fits =
    v === HANDOFF_VERSION &&
    optional(audience) &&
    optional(scope) &&
    typeof clientId === 'string' &&
    typeof baseUrl === 'string' &&
    typeof tokenUrl === 'string' &&
    (bodyFormat === 'json' || bodyFormat === 'form') &&
    !!auth &&
    typeof auth === 'object' &&
    Object.values(auth).every(optional) &&
    typeof (auth as Record<string, unknown>).method === 'string'
  if (!fits) return undefined
  const { v: _version, ...settings } = value as HandoffSettings & { v: number }
  void _version
  return settings
}

function sortedKeys(value: Readonly<Record<string, string | undefined>>): Record<string, string | undefined> {
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map(k => [k, value[k]])
  )
}
