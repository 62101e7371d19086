import { formatCount } from '../format.js'
import { echo } from '../service/call-advice.js'
import { CallSpec, fieldOf, hasDotSegment, missingFields, renderPath } from '../service/call.js'
import { targetLabel } from '../targets/label.js'

/**
 * The targets a call cannot be made for, found before the first call: each target is checked as it
 * passes into the targets file, so no extra read of the list is needed. At most five are named.
 */
export class Preflight {
  private seen = 0
  private bad = 0
  private readonly problems: string[] = []
  /** What the first target that lacks a field has instead. */
  private has?: string

  constructor(
    private readonly spec: CallSpec,
    /** The call input as written, echoed in the error. */
    private readonly callText: string
  ) {}

  /** Whether the call can be made for the target; a target it cannot is kept for verify(). */
  check(target: unknown): boolean {
    const index = this.seen++
    if (this.spec.fields.length === 0) return true
    const missing = missingFields(this.spec, target)
    if (missing.length === 0 && !hasDotSegment(renderPath(this.spec, target))) return true
    this.bad++
    if (this.problems.length < 5) {
      const why = missing.length > 0 ? missing.join(', ') : 'gives a path segment of . or ..'
      this.problems.push(`${targetLabel(target, index)} ${why}`)
    }
    this.has ??= fieldsInstead(this.spec, target, index)
    return false
  }

  /** Throws the input error when any target checked so far cannot fill the placeholders. */
  verify(): void {
    if (this.bad === 0) return
    throw new Error(
      `Input call: ${formatCount(this.bad)} of ${formatCount(this.seen)} targets cannot fill its placeholders, so no call was made: ` +
        `${this.problems.join('; ')}. Check the placeholders of ${this.inputs()} against the targets' fields (they are case-sensitive)` +
        `${this.has ? `: ${this.has}` : ''}.`
    )
  }

  private inputs(): string {
    const inPath = this.spec.checks.some(c => c.inPath)
    const inBody = this.spec.checks.some(c => !c.inPath)
    const call = `call ${echo(this.callText.trim())}`
    return inPath && inBody ? `${call} and call-body` : inBody ? 'call-body' : call
  }
}

const MAX_FIELDS_SHOWN = 20

/**
 * The fields a target has where the first placeholder it lacks looks for one: its own, or those of
 * the object a dotted placeholder reaches; undefined when it lacks none (a value of the wrong kind).
 */
function fieldsInstead(spec: CallSpec, target: unknown, index: number): string | undefined {
  const lacking = spec.checks.find(c => fieldOf(target, c.path) === undefined)
  if (!lacking) return undefined
  let depth = 0
  while (depth < lacking.path.length - 1 && isObject(fieldOf(target, lacking.path.slice(0, depth + 1)))) depth++
  const at = lacking.path.slice(0, depth)
  const holder = depth === 0 ? target : fieldOf(target, at)
  const label = targetLabel(target, index)
  if (!isObject(holder)) return `${label} is not a JSON object`
  const names = Object.keys(holder)
  if (names.length === 0) return `${label} has no fields${depth ? ` in ${at.join('.')}` : ''}`
  const prefix = at.map(n => `${n}.`).join('')
  const shown = names.slice(0, MAX_FIELDS_SHOWN).map(n => fieldName(prefix + n))
  const more = names.length > MAX_FIELDS_SHOWN ? ` and ${formatCount(names.length - MAX_FIELDS_SHOWN)} more` : ''
  return `${label} has ${shown.join(', ')}${more}`
}

function isObject(value: unknown): value is object {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}

/** A field name as a placeholder would write it, or JSON-quoted (and cut) when no placeholder can. */
function fieldName(name: string): string {
  return /^[A-Za-z_][\w-]*(\.[A-Za-z_][\w-]*)*$/.test(name) && name.length <= 60
    ? name
    : JSON.stringify(name.length > 60 ? `${name.slice(0, 60)}…` : name)
}
