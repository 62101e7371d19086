import { createHash } from 'node:crypto'
import { formatCount, logSafe, quoted } from '../format.js'
import { parseExact } from '../json.js'
import { callEntry, planTags, sealDigest } from './plan-calls.js'
import { isOwnLine } from './record-format.js'
import { eachLine, resultFiles, ResultFileError } from './result-files.js'
import { fmix32, fnv1a32 } from '../targets/shards.js'

/**
 * A plan file: the dry run's results file, which the plan job uploads for reviewers to read and the
 * apply step may be given (plan-from). Whatever it holds, it is another job's file: it is read only
 * to be checked against the approved plan-digest (which came through job outputs, out of any
 * upload's reach), and to name the first call in which an apply differs. No call is made from it.
 */
export interface PlannedCall {
  readonly key: string
  readonly method: string
  readonly path: string
  readonly body: string | undefined
}

/** A plan file checked against the approved digest: its calls' hashes, to find where an apply differs. */
export interface PlanFile {
  readonly file: string
  readonly count: number
  /** Two words of SHA-256 a call, in order: 8 bytes a call, not the calls. */
  readonly hashes: Uint32Array
  /** Each call's target placed as shards place it (shards.ts): which shard's it is, for any N. */
  readonly places: Uint32Array
}

/** The plan file `from` (a file, or a folder holding one .jsonl), checked: it must be the approved plan. */
export function readPlanFile(from: string, approved: string): PlanFile {
  const files = resultFiles(from, 'plan-from') ?? []
  if (files.length !== 1) {
    throw new ResultFileError(
      `Input plan-from: ${quoted(from)} must be the plan job's results file, or a folder holding it alone; it holds ${formatCount(files.length)} .jsonl files`
    )
  }
  const [file] = files
  const all = createHash('sha256')
  const skips = createHash('sha256')
  let hashes: Uint32Array = new Uint32Array(1024)
  let places: Uint32Array = new Uint32Array(512)
  let count = 0
  let plan: unknown
  eachPlanLine(file, (call, skipped, lineNumber, header) => {
    if (header) plan = header.plan
    else if (skipped !== undefined) skips.update(`${JSON.stringify(skipped)}\n`)
    else if (call) {
      const entry = callEntry(call.key, call.method, call.path, call.body)
      all.update(entry)
      if (2 * count + 2 > hashes.length) hashes = grown(hashes)
      if (count + 1 > places.length) places = grown(places)
      places[count] = fmix32(fnv1a32(call.key))
      hashes.set(entryHash(entry), 2 * count++)
    } else throw notThePlan(file, `line ${lineNumber} is neither a planned nor a skipped line`)
  })
  if (plan !== approved) throw notThePlan(file, 'its header names another plan, or none')
  const digest = sealDigest(count, planTags(approved), all.digest('hex'), skips.digest('hex'))
  if (digest !== approved) {
    throw notThePlan(file, 'its calls are not the approved plan’s: it was altered after the plan was made')
  }
  return { file, count, hashes: hashes.subarray(0, 2 * count), places: places.subarray(0, count) }
}

/** Two words of a call entry's SHA-256. */
export function entryHash(entry: string): Uint32Array {
  const digest = createHash('sha256').update(entry).digest()
  return Uint32Array.of(digest.readUInt32BE(0), digest.readUInt32BE(4))
}

/** The plan file's call #`index` (0-based), read again for a message. */
export function plannedCallAt(plan: PlanFile, index: number): PlannedCall | undefined {
  let seen = 0
  let found: PlannedCall | undefined
  eachPlanLine(plan.file, call => {
    if (call && seen++ === index) found = call
  })
  return found
}

/** "#4: the approved plan has DELETE "/v1/t/t-004", this step DELETE "/v1/t/t-005"": a difference. */
export function describeDifference(
  index: number,
  theirs: PlannedCall | undefined,
  ours: PlannedCall | undefined
): string {
  const show = (call: PlannedCall): string =>
    `${call.method} ${quoted(logSafe(call.path).slice(0, 200))}${call.body === undefined ? '' : ' with its body'}`
  const plan = theirs ? `the approved plan has ${show(theirs)}` : 'the approved plan has no more calls'
  const step = ours ? `this step ${show(ours)}` : 'this step no more calls'
  const same = theirs && ours && theirs.key === ours.key && theirs.method === ours.method && theirs.path === ours.path
  return `#${formatCount(index + 1)}: ${plan}, ${step}${same ? ' (the body differs)' : ''}`
}

/** Each line of a plan file: its header, a planned call, a skipped target's key, or none of these. */
function eachPlanLine(
  file: string,
  each: (
    call: PlannedCall | undefined,
    skipped: string | undefined,
    lineNumber: number,
    header?: Record<string, unknown>
  ) => void
): void {
  eachLine(file, (text, lineNumber) => {
    if (text.trim() === '') return
    const value = parseLine(text)
    if (lineNumber === 1) return each(undefined, undefined, lineNumber, value?.m2m === 'results' ? value : {})
    if (isOwnLine(text)) return
    const skipped = value?.outcome === 'skipped' && typeof value.key === 'string' ? value.key : undefined
    each(value && plannedCall(value), skipped, lineNumber)
  })
}

function grown(words: Uint32Array): Uint32Array {
  const bigger = new Uint32Array(words.length * 2)
  bigger.set(words)
  return bigger
}

function parseLine(text: string): Record<string, unknown> | undefined {
  try {
    const value = parseExact(text)
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined
  } catch {
    return undefined
  }
}

function plannedCall(value: Record<string, unknown>): PlannedCall | undefined {
  const { outcome, key, method, path, body } = value
  if (outcome !== 'planned' || typeof key !== 'string' || typeof method !== 'string' || typeof path !== 'string') {
    return undefined
  }
  return { key, method, path, body: body === null || body === undefined ? undefined : JSON.stringify(body) }
}

function notThePlan(file: string, why: string): ResultFileError {
  return new ResultFileError(
    `Input plan-from: ${quoted(file)} is not the approved plan: ${why}. No call was made. Download the plan job's results artifact of this run.`
  )
}
