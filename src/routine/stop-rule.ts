import { formatCount } from '../format.js'
import { parseSize, WaveSize } from './waves.js'

/**
 * call-max-failures: a count of failed or unknown calls (100), or a percentage of the calls
 * answered so far (5%), as SSM's MaxErrors and Ansible's max_fail_percentage. A percentage is
 * checked at the end of each wave, and continuously once so many calls are answered that one
 * failure alone is not over it (rateFloor): 20 calls for 5%, 100 for 1%.
 */
export type FailureLimit = WaveSize

export const MIN_RATE_CALLS = 20

export function parseFailureLimit(text: string): FailureLimit | undefined {
  const size = parseSize(text.trim())
  if (size && 'count' in size && size.count > 10_000_000) return undefined
  return size
}

/** The answered calls from which a percentage is checked call by call. */
export function rateFloor(percent: number): number {
  return Math.max(MIN_RATE_CALLS, Math.ceil(100 / percent))
}

export function limitText(limit: FailureLimit): string {
  return 'count' in limit ? String(limit.count) : `${limit.percent}%`
}

/** The calls made so far: answered (succeeded, failed or unknown) and how many of them went bad. */
export interface CallCounts {
  readonly answered: number
  readonly bad: number
}

/** Why no new call may start, checked as a call ends; undefined while the routine goes on. */
export function overLimit(limit: FailureLimit, { answered, bad }: CallCounts): string | undefined {
  if ('count' in limit) {
    if (bad < limit.count) return undefined
    return `${formatCount(bad)} calls failed, call-max-failures (${limit.count})`
  }
  if (answered < rateFloor(limit.percent)) return undefined
  return overRate(limit.percent, answered, bad)
}

/**
 * Why the routine stops at the end of a wave: every call of the wave failed (Ansible stops a play
 * so), or the limit is passed, a percentage counted over every call answered however few.
 */
export function afterWave(
  limit: FailureLimit,
  total: CallCounts,
  wave: CallCounts & { readonly number: number; readonly of: number }
): string | undefined {
  const which = `after wave ${wave.number} of ${wave.of}`
  if (wave.answered > 0 && wave.bad === wave.answered && wave.number < wave.of) {
    return `${which}: every call of the wave failed (${formatCount(wave.bad)} of ${formatCount(wave.answered)})`
  }
  const over = 'count' in limit ? overLimit(limit, total) : overRate(limit.percent, total.answered, total.bad)
  return over && `${which}: ${over}`
}

function overRate(percent: number, answered: number, bad: number): string | undefined {
  if (answered === 0 || (bad / answered) * 100 <= percent) return undefined
  const rate = Math.round((bad / answered) * 1000) / 10
  return `${formatCount(bad)} of ${formatCount(answered)} calls failed (${rate} %), more than call-max-failures (${percent}%)`
}

/**
 * Why no new call may start after a call ended: the service refused the token (a renewal was
 * already tried), or the limit is passed; undefined while the routine goes on.
 */
export function stopAfterCall(
  status: number | null,
  index: number,
  limit: FailureLimit,
  counts: CallCounts,
  expiresAtMs: number | undefined
): string | undefined {
  if (status === 401) {
    const expiry = expiresAtMs === undefined ? '' : ` (it expires ${new Date(expiresAtMs).toISOString()})`
    return `the service refused the token (HTTP 401) at call #${index + 1}${expiry}: no new call was started`
  }
  const over = overLimit(limit, counts)
  return over && `${over}: no new call was started`
}
