import { isRawNumber, numberText } from '../json.js'

/**
 * A target's key: the one text that names it in shards, result lines, resumes and reports, so that
 * a target is the same target in every job and every attempt of a run (docs/fan-out.md).
 *
 *   key(target) = its `id` when a string, its text as sent when a number, else JSON.stringify(target)
 */
export function targetKey(target: unknown): string {
  if (target !== null && typeof target === 'object' && !Array.isArray(target)) {
    const id = (target as Record<string, unknown>).id
    if (typeof id === 'string') return id
    if (typeof id === 'number' || isRawNumber(id)) return numberText(id)
  }
  return JSON.stringify(target) ?? 'null'
}

/** Whether a target has a string or number id, which names it whatever else of it changes. */
export function hasId(target: unknown): boolean {
  if (target === null || typeof target !== 'object' || Array.isArray(target)) return false
  const id = (target as Record<string, unknown>).id
  return typeof id === 'string' || typeof id === 'number' || isRawNumber(id)
}

/** A target with fields: not an array, and not a number kept exactly as sent (9007199254740993). */
export function isTargetObject(target: unknown): target is Record<string, unknown> {
  return !!target && typeof target === 'object' && !Array.isArray(target) && !isRawNumber(target)
}
