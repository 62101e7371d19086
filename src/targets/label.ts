import { excerpt } from '../secrets.js'
import { hasId, targetKey } from './key.js'

/** A target as messages name it: its id, JSON-quoted, else its place in the list. */
export function targetLabel(target: unknown, index: number): string {
  if (!hasId(target)) return `target #${index + 1}`
  const { id } = target as { id: unknown }
  return `target ${typeof id === 'string' ? excerpt(JSON.stringify(id), 80) : targetKey(target)}`
}
