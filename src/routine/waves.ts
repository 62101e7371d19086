import { fmix32, fnv1a32 } from '../targets/shards.js'
import { formatCount } from '../format.js'

/**
 * Waves pace a routine as Ansible's `serial` and SSM's ramp do: the step's targets are called in
 * waves, each answered in full and checked against the stop rule before the next starts.
 *
 *   call-waves: 1, 5%, 25%, 100%   (sizes; the last repeats until every target is in a wave)
 *
 * Which wave a target is in is part of the action's contract (docs/routine.md): the targets are
 * ranked by a hash of their key, never by their place in the list, so a canary of one is any
 * target of the list, not the first of its first page, and every attempt of a run ranks alike.
 *
 *   rank(key) = fmix32(fnv1a32(utf8(key)) ^ 0x9e3779b9); ties keep list order
 */
export type WaveSize = { readonly count: number } | { readonly percent: number }

export const MAX_WAVES = 100
const RANK_SEED = 0x9e3779b9

/** A target's rank: the lowest ranks are called first. Not its shard's hash, so a shard spreads too. */
export function waveRank(key: string): number {
  return fmix32((fnv1a32(key) ^ RANK_SEED) >>> 0)
}

/** "1, 5%, 25%, 100%" as sizes; undefined for anything else (the caller names the input). */
export function parseWaveSizes(text: string): WaveSize[] | undefined {
  const parts = text.split(',').map(part => part.trim())
  const sizes: WaveSize[] = []
  for (const part of parts) {
    const size = parseSize(part)
    if (!size) return undefined
    sizes.push(size)
  }
  return sizes.length > 0 ? sizes : undefined
}

/** "12" or "5%" (a percentage above 0 and at most 100, with up to two decimals). */
export function parseSize(text: string): WaveSize | undefined {
  const percent = /^(\d{1,3}(?:\.\d{1,2})?)\s*%$/.exec(text)
  if (percent) {
    const value = Number(percent[1])
    return value > 0 && value <= 100 ? { percent: value } : undefined
  }
  return /^[1-9]\d{0,8}$/.test(text) ? { count: Number(text) } : undefined
}

export function sizeText(size: WaveSize): string {
  return 'count' in size ? formatCount(size.count) : `${size.percent}%`
}

/** The number of targets each wave gets, for `total` targets: the last size repeats. */
export function waveCounts(sizes: readonly WaveSize[], total: number): number[] {
  const counts: number[] = []
  let placed = 0
  for (let i = 0; placed < total; i++) {
    const size = sizes[Math.min(i, sizes.length - 1)]
    const wanted = 'count' in size ? size.count : Math.ceil((size.percent / 100) * total)
    const count = Math.min(Math.max(1, wanted), total - placed)
    counts.push(count)
    placed += count
    if (counts.length > MAX_WAVES) break
  }
  return counts
}

/** The ranks of the step's targets in list order, as they pass into the targets file. */
export class RankList {
  private ranks = new Uint32Array(1024)
  private length = 0

  add(rank: number): void {
    if (this.length === this.ranks.length) {
      const grown = new Uint32Array(this.ranks.length * 2)
      grown.set(this.ranks)
      this.ranks = grown
    }
    this.ranks[this.length++] = rank
  }

  get size(): number {
    return this.length
  }

  values(): Uint32Array {
    return this.ranks.subarray(0, this.length)
  }
}

/** Which wave each target is in, by its place in the list: 1-based, 0 for none (a canary's rest). */
export interface WavePlan {
  /** The waves' sizes, in order. */
  readonly counts: readonly number[]
  /** The wave of the target at each place of the list. */
  readonly waveOf: Uint8Array
}

/**
 * Places the targets in waves of `counts` by rank, ties in list order; targets past the last
 * wave's count are in none (0). The cost is a sort of the ranks: 4 bytes a target.
 */
export function planWaves(ranks: Uint32Array, counts: readonly number[]): WavePlan {
  if (counts.length > 255) throw new Error('At most 255 waves')
  const sorted = ranks.slice().sort()
  const waveOf = new Uint8Array(ranks.length)
  // Each wave ends at a rank: the wave holds every lower rank not already placed, and as many of
  // the targets at that very rank (in list order) as it has room for.
  let end = 0
  const bounds: { readonly rank: number; readonly below: number; readonly at: number }[] = []
  for (const count of counts) {
    end += count
    const rank = sorted[end - 1]
    const below = lowerBound(sorted, rank)
    bounds.push({ rank, below, at: end - below })
  }
  const seenAt = new Map<number, number>()
  for (let i = 0; i < ranks.length; i++) {
    const rank = ranks[i]
    let tie = -1
    for (let w = 0; w < bounds.length; w++) {
      const bound = bounds[w]
      if (rank < bound.rank) {
        waveOf[i] = w + 1
        break
      }
      if (rank === bound.rank) {
        if (tie < 0) {
          tie = seenAt.get(rank) ?? 0
          seenAt.set(rank, tie + 1)
        }
        if (tie < bound.at) {
          waveOf[i] = w + 1
          break
        }
      }
    }
  }
  return { counts, waveOf }
}

/** The first place in `sorted` holding `value` or more. */
function lowerBound(sorted: Uint32Array, value: number): number {
  let low = 0
  let high = sorted.length
  while (low < high) {
    const mid = (low + high) >>> 1
    if (sorted[mid] < value) low = mid + 1
    else high = mid
  }
  return low
}
