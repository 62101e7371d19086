import { stringEnd, topLevelKeys } from '../json.js'
import { parseShard } from '../targets/shards.js'
import { Outcome, OUTCOMES } from './lines.js'

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
/** The rest of the head as the action writes it, from the key's closing quote on. */
const HEAD_REST =
  /,"call":"([0-9a-f]{16})","outcome":"(succeeded|failed|unknown|not-made|skipped|planned)","status":([1-5]\d\d|null),"runAttempt":([1-9]\d{0,5}),"shard":(null|"[1-9]\d{0,2}\/[1-9]\d{0,2}"),/y
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
  const match = HEAD_REST.exec(line)
  if (!match) return NOT_THE_ACTIONS_SHAPE
  MAY_NAME_A_FIELD.lastIndex = HEAD_REST.lastIndex
  if (MAY_NAME_A_FIELD.test(line) && repeatsAField(line)) return undefined
  const quotedKey = line.slice(KEY_START.length - 1, keyEnd + 1)
  let key: string
  try {
    key = NOT_PLAIN.test(quotedKey) ? (JSON.parse(quotedKey) as string) : quotedKey.slice(1, -1)
  } catch {
    return undefined
  }
  const runAttempt = Number(match[4])
  const shard = match[5] === 'null' ? null : match[5].slice(1, -1)
  if (runAttempt > MAX_RUN_ATTEMPT || (shard !== null && !isShard(shard))) return undefined
  return {
    key,
    call: match[1],
    outcome: match[2] as Outcome,
    status: match[3] === 'null' ? null : Number(match[3]),
    runAttempt,
    shard
  }
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
