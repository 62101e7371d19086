import { parseJsonObject } from '../json.js'

export interface Claims {
  readonly sub?: string
  readonly exp?: number
  readonly scope?: string
}

/**
 * The claims of a JWT, read without verifying it: only for display and expiry. Never throws;
 * anything that is not a readable JWT gives no claims.
 */
export function readClaims(token: string): Claims {
  const parts = token.split('.')
  if (parts.length !== 3) return {}
  const payload = parseJsonObject(Buffer.from(parts[1], 'base64url').toString('utf8'))
  if (!payload) return {}
  const { sub, exp, scope } = payload
  return {
    sub: typeof sub === 'string' ? sub : undefined,
    exp: typeof exp === 'number' && Number.isFinite(exp) ? exp : undefined,
    scope: typeof scope === 'string' ? scope : undefined
  }
}
