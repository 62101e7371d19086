import { stringEnd, topLevelKeys } from '../json-text.js'
import { parseShard } from '../targets/shards.js'
import { Outcome, OUTCOMES } from './lines.js'

/** A results file that cannot be read, or a line of it that is not a result line. */
export class ResultFileError extends Error {}

/** What a resume and a report need of one result line. */
export interface ResultFacts {
  readonly key: string
  /** The call's fingerprint: 16 lowercase hex digits (fingerprint.ts). */
  readonly call: string
  readonly outcome: Outcome
  /** An HTTP status, 100 to 599, or null for none. */
  readonly status: number | null
  /** 1 to MAX_RUN_ATTEMPT. */
  readonly runAttempt: number
  /** "K/N" as the shard input names a shard, or null. */
  readonly shard: string | null
}

/**
 * The highest run attempt a line may claim. GitHub re-runs a workflow at most 50 times (2026); the
 * bound is far above that and below what the resume's and the report's tables hold.
 */
export const MAX_RUN_ATTEMPT = 100_000

/** The fields a resume and a report read: a line names each exactly once. */
const FIELDS: ReadonlySet<string> = new Set(['key', 'call', 'outcome', 'status', 'runAttempt', 'shard'])
const CALL = /^[0-9a-f]{16}$/

const KEY_START = '{"key":"'
/**
 * The rest of the head as the action writes it, from the key's closing quote on. Tested, not
 * matched: its fields are then read where they stand, without a match array and its strings.
 */
const HEAD_REST =
  /,"call":"[0-9a-f]{16}","outcome":"(?:succeeded|failed|unknown|not-made|skipped|planned)","status":(?:[1-5]\d\d|null),"runAttempt":[1-9]\d{0,5},"shard":(?:null|"[1-9]\d{0,2}\/[1-9]\d{0,2}"),/y
/** From the key's closing quote: where the call starts, and where the outcome does. */
const CALL_AT = 1 + ',"call":"'.length
const OUTCOME_AT = CALL_AT + 16 + '","outcome":"'.length
const STATUS_AFTER_OUTCOME = '","status":'.length
const ATTEMPT_AFTER_STATUS = ',"runAttempt":'.length
const SHARD_AFTER_ATTEMPT = ',"shard":'.length
/** Where the rest of a line could name a field of the head again: its name, or a \u escape that could spell it. */
const MAY_NAME_A_FIELD = /"(?:key|call|outcome|status|runAttempt|shard)"|\\u/g
/** What a JSON string must be read by JSON.parse for: an escape, or a control character JSON forbids. */
// eslint-disable-next-line no-control-regex
const NOT_PLAIN = /[\\\u0000-\u001f]/

/**
 * One line's facts, or undefined when it is not a result line: a JSON object that names key, call,
 * outcome, status, runAttempt and shard once each, every one of its shape. A line as the action
 * writes it is read from its head, without parsing the body (a million lines: docs/performance.md);
 * any other is read by JSON.parse. Both give the facts JSON.parse and jq give: those keep the last
 * of a repeated key, so a line that repeats one of these fields is refused, whatever its shape. The
 * head does not check that the body is JSON.
 */
export function parseResultLine(line: string): ResultFacts | undefined {
  const head = readHead(line)
  return head === NOT_THE_ACTIONS_SHAPE ? readAsJson(line) : head
}

const NOT_THE_ACTIONS_SHAPE = Symbol('not the shape the action writes')

/** The facts of a line in the action's own shape, undefined when refused, or NOT_THE_ACTIONS_SHAPE. */
function readHead(line: string): ResultFacts | undefined | typeof NOT_THE_ACTIONS_SHAPE {
  if (!line.startsWith(KEY_START) || !line.endsWith('}')) return NOT_THE_ACTIONS_SHAPE
  const keyEnd = stringEnd(line, KEY_START.length - 1)
  if (keyEnd < 0) return NOT_THE_ACTIONS_SHAPE
  HEAD_REST.lastIndex = keyEnd + 1
  if (!HEAD_REST.test(line)) return NOT_THE_ACTIONS_SHAPE
  const end = HEAD_REST.lastIndex
  MAY_NAME_A_FIELD.lastIndex = end
  if (MAY_NAME_A_FIELD.test(line) && repeatsAField(line)) return undefined
  let key = line.slice(KEY_START.length, keyEnd)
  try {
    if (NOT_PLAIN.test(key)) key = JSON.parse(line.slice(KEY_START.length - 1, keyEnd + 1)) as string
  } catch {
    return undefined
  }
  // The pattern held: each field is where its predecessor's length puts it.
  const outcome = outcomeAt(line, keyEnd + OUTCOME_AT)
  const statusAt = keyEnd + OUTCOME_AT + outcome.length + STATUS_AFTER_OUTCOME
  const status = line.charCodeAt(statusAt) === N ? null : digitsAt(line, statusAt, 3)
  const attemptAt = statusAt + (status === null ? 4 : 3) + ATTEMPT_AFTER_STATUS
  let attemptEnd = attemptAt + 1
  while (line.charCodeAt(attemptEnd) !== COMMA) attemptEnd++
  const runAttempt = digitsAt(line, attemptAt, attemptEnd - attemptAt)
  const shardAt = attemptEnd + SHARD_AFTER_ATTEMPT
  const shard = line.charCodeAt(shardAt) === N ? null : shardText(line, shardAt + 1, end - 2)
  if (runAttempt > MAX_RUN_ATTEMPT || (shard !== null && !isShard(shard))) return undefined
  return { key, call: callAt(line, keyEnd + CALL_AT), outcome, status, runAttempt, shard }
}

const N = 0x6e
const ZERO = 0x30
const COMMA = 0x2c

/** The outcome whose first letters stand at `at`, the pattern having read it. */
function outcomeAt(line: string, at: number): Outcome {
  switch (line.charCodeAt(at)) {
    case 0x66:
      return 'failed'
    case 0x75:
      return 'unknown'
    case N:
      return 'not-made'
    case 0x70:
      return 'planned'
    default:
      return line.charCodeAt(at + 1) === 0x75 ? 'succeeded' : 'skipped'
  }
}

/** The number of `count` digits at `at`. */
function digitsAt(line: string, at: number, count: number): number {
  let value = 0
  for (let i = at; i < at + count; i++) value = value * 10 + line.charCodeAt(i) - ZERO
  return value
}

// The lines of a file share their call and their shard: the string read last is kept, not made again.
let lastCall = ''

function callAt(line: string, at: number): string {
  return lastCall !== '' && line.startsWith(lastCall, at) ? lastCall : (lastCall = line.slice(at, at + 16))
}

function shardText(line: string, from: number, to: number): string {
  return to - from === lastShard.length && line.startsWith(lastShard, from) ? lastShard : line.slice(from, to)
}

/** A line written by another tool, or rewritten (other field order, spaces): read as JSON. */
function readAsJson(line: string): ResultFacts | undefined {
  let value: unknown
  try {
    value = JSON.parse(line)
  } catch {
    return undefined
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined
  const { key, call, outcome, status, runAttempt, shard } = value as Record<string, unknown>
  if (typeof key !== 'string' || typeof call !== 'string' || !CALL.test(call)) return undefined
  if (!OUTCOMES.includes(outcome as Outcome)) return undefined
  if (status !== null && !(Number.isInteger(status) && (status as number) >= 100 && (status as number) <= 599)) {
    return undefined
  }
  if (!(Number.isInteger(runAttempt) && (runAttempt as number) >= 1 && (runAttempt as number) <= MAX_RUN_ATTEMPT)) {
    return undefined
  }
  if (shard !== null && !(typeof shard === 'string' && isShard(shard))) return undefined
  if (repeatsAField(line)) return undefined
  return {
    key,
    call,
    outcome: outcome as Outcome,
    status: status as number | null,
    runAttempt: runAttempt as number,
    shard
  }
}

/** Whether the line names one of the fields twice at its top level; true too for keys that cannot be read. */
function repeatsAField(line: string): boolean {
  let keys: string[]
  try {
    keys = topLevelKeys(line)
  } catch {
    return true
  }
  const named = new Set<string>()
  for (const key of keys) {
    if (!FIELDS.has(key)) continue
    if (named.has(key)) return true
    named.add(key)
  }
  return false
}

// The lines of a file share their shard: the last one found valid is not checked again.
let lastShard = ''

/** "K/N" exactly as the shard input's value is written on a line: 1 <= K <= N <= 256, no spaces or zeros before. */
function isShard(text: string): boolean {
  if (text === lastShard) return true
  const shard = parseShard(text)
  if (shard === undefined || `${shard.index}/${shard.count}` !== text) return false
  lastShard = text
  return true
}
