import { formatCount } from '../format.js'
import { CallSpec, hasDotSegment, missingFields, renderPath } from '../service/call.js'
import { targetLabel } from '../targets/label.js'

/**
 * The targets a call cannot be made for, found before the first call: each target is checked as it
 * passes into the targets file, so no extra read of the list is needed. At most five are named.
 */
export class Preflight {
  private seen = 0
  private bad = 0
  private readonly problems: string[] = []

  constructor(private readonly spec: CallSpec) {}

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
    return false
  }

  /** Throws the input error when any target checked so far cannot fill the placeholders. */
  verify(): void {
    if (this.bad === 0) return
    throw new Error(
      `Input call: ${formatCount(this.bad)} of ${formatCount(this.seen)} targets cannot fill its placeholders, so no call was made: ` +
        `${this.problems.join('; ')}. Check the field names (they are case-sensitive) against the targets.`
    )
  }
}
