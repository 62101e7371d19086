import { excerpt } from '../secrets.js'
import { hasId, targetKey } from './key.js'

/** A target as messages name it: its id, JSON-quoted, else its place in the list. */
export function targetLabel(target: unknown, index: number): string {
  if (!hasId(target)) return `target #${index + 1}`
  const { id } = target as { id: unknown }
  return `target ${typeof id === 'string' ? excerpt(JSON.stringify(id), 80) : targetKey(target)}`
}

/** Fields that name a target to a person, looked for in this order when no field is chosen. */
export const NAME_FIELDS = ['name', 'display_name', 'displayName', 'title', 'hostname', 'host']

/**
 * What a person calls a target: its `field` (target-label), else the first of NAME_FIELDS it has as
 * text or a number; undefined when it has none. Not its key: the key is shown beside it.
 */
export function targetName(target: unknown, field?: string): string | undefined {
  if (target === null || typeof target !== 'object' || Array.isArray(target)) return undefined
  const fields = field === undefined ? NAME_FIELDS : [field]
  for (const name of fields) {
    if (!Object.hasOwn(target, name)) continue
    const value = (target as Record<string, unknown>)[name]
    if (typeof value === 'string' && value !== '') return value
    if (typeof value === 'number') return String(value)
  }
  return undefined
}
