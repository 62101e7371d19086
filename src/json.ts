/** JSON text as an object: undefined when it is not JSON, null when it is JSON but not an object. */
export function parseJsonObject(text: string): Record<string, unknown> | null | undefined {
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    return undefined
  }
  return json && typeof json === 'object' && !Array.isArray(json) ? (json as Record<string, unknown>) : null
}
