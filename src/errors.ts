/** The message of anything thrown. */
export function messageOf(err: unknown): string {
  const message = (err as { message?: unknown } | null)?.message
  return typeof message === 'string' ? message : String(err)
}
