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
  try {
    const payload: unknown = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8'))
    if (!payload || typeof payload !== 'object') return {}
    const { sub, exp, scope } = payload as Record<string, unknown>
    return {
      sub: typeof sub === 'string' ? sub : undefined,
      exp: typeof exp === 'number' && Number.isFinite(exp) ? exp : undefined,
      scope: typeof scope === 'string' ? scope : undefined
    }
  } catch {
    return {}
  }
}
