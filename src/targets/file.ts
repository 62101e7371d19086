import { closeSync, openSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { tempFileError, writeAll } from '../files.js'
import { randomHex } from '../random.js'
import { formatBytes, formatCount } from '../format.js'
import { Sha256 } from './digest.js'
import { hasId, isTargetObject } from './key.js'
import { Selection } from './select.js'
import { Shard, shardOf } from './shards.js'

/** The most targets JSON one listing may write: past it the step fails rather than fill the disk. */
const MAX_LIST_BYTES = 2 * 1024 * 1024 * 1024
/** Past this the targets output is not set: no expression could read it, and jobs cap outputs at 1 MB. */
export const MAX_OUTPUT_BYTES = 1024 * 1024
export const PREVIEW_ROWS = 50
/** A page's UTF-8 is written through one buffer of this size; a page that may not fit gets its own. */
const SCRATCH_BYTES = 1024 * 1024

export interface TargetsFileOptions {
  readonly dir: string
  /** Keep only this shard's targets. */
  readonly shard?: Shard
  /** Keep only the targets this selection (targets-where) keeps, before the shard is taken. */
  readonly select?: Selection
  readonly maxBytes?: number
  /** Sees every target kept, in order, as it is added (the call's check before the first call). */
  readonly onTarget?: (target: unknown) => void
}

/** What a finished listing holds: the file, the counts, and what the outputs and summary show. */
export interface Listing {
  readonly file: string
  /** Every target the service listed (or the snapshot held). */
  readonly listed: number
  /** The targets the selection kept: all listed without targets-where. */
  readonly selected: number
  /** The targets-where expression, when one selected them. */
  readonly where?: string
  /** The targets kept: the shard's of the selected, or all of them. */
  readonly count: number
  readonly shard?: Shard
  /** The size of the kept targets as JSON, in bytes. */
  readonly bytes: number
  /** The kept targets as a JSON array, when no more than MAX_OUTPUT_BYTES. */
  readonly json?: string
  /** The first PREVIEW_ROWS kept targets, for the job summary. */
  readonly preview: readonly unknown[]
  /** "sha256:" and the hex SHA-256 of the file's bytes. */
  readonly digest: string
  /** Listed targets with no string or number id, which a shard places by their JSON; counted for a shard only. */
  readonly withoutId: number
}

/**
 * The targets JSON file, written page by page as the listing arrives (readable by its owner only),
 * so that memory is bounded by a page and not by the list. One target per line inside the array:
 * still a plain JSON array for jq, and easy to stream back (src/targets/snapshot.ts).
 */
export class TargetsFile {
  readonly path: string
  private fd: number | undefined
  private readonly maxBytes: number
  private listed = 0
  private selected = 0
  private withoutId = 0
  private count = 0
  private bytes = 2
  private readonly preview: unknown[] = []
  private readonly hash = new Sha256()
  private scratch: Buffer | undefined

  constructor(private readonly options: TargetsFileOptions) {
    this.maxBytes = options.maxBytes ?? MAX_LIST_BYTES
    this.path = join(options.dir, `targets-${randomHex(6)}.json`)
    try {
      this.fd = openSync(this.path, 'wx', 0o600)
      this.write('[')
    } catch (err) {
      // A full or read-only RUNNER_TEMP: leave no empty file behind, and say what to do.
      if (this.fd !== undefined) this.discard()
      throw this.failure(err)
    }
  }

  private failure(err: unknown): Error {
    if (err instanceof Error && err.message.startsWith('Failed to write the targets file')) return err
    return tempFileError('targets file', this.options.dir, err)
  }

  /**
   * Appends a page's targets, keeping only the selected ones of the shard. `json` is
   * JSON.stringify(targets) when the caller has it: written as it is when every target is kept
   * (the kept are in order, so as many as were given are all of them).
   */
  add(targets: readonly unknown[], json?: string): void {
    const { shard, select } = this.options
    const before = this.listed
    this.listed += targets.length
    // Only a shard job places targets by their id: the count is for its warning (collect.ts).
    if (shard) for (let i = 0; i < targets.length; i++) if (!hasId(targets[i])) this.withoutId++
    const selected = select ? selectedOf(targets, select, before) : targets
    this.selected += selected.length
    const kept = shard ? selected.filter(t => shardOf(t, shard.count) === shard.index) : selected
    if (kept.length === 0) return
    if (this.options.onTarget) for (const target of kept) this.options.onTarget(target)
    for (let i = 0; this.preview.length < PREVIEW_ROWS && i < kept.length; i++) this.preview.push(kept[i])
    const text = this.encoded(
      this.count === 0 ? '\n' : ',\n',
      jsonLines(kept, kept.length === targets.length ? json : undefined)
    )
    this.count += kept.length
    // The compact size, as the targets output would hold it: the file has a newline per target more.
    this.bytes += text.length - kept.length
    if (this.bytes > this.maxBytes) {
      throw new Error(
        `Failed to list targets: the list is larger than ${formatBytes(this.maxBytes)} (${formatCount(this.count)} targets so far), ` +
          'more than this action writes to disk. Check base-url, or split the list at the service.'
      )
    }
    this.write(text)
  }

  /** Closes the file and describes what it holds. */
  finish(): Listing {
    this.write(this.count > 0 ? '\n]\n' : ']\n')
    this.close()
    return {
      file: this.path,
      listed: this.listed,
      selected: this.selected,
      where: this.options.select?.expression,
      count: this.count,
      shard: this.options.shard,
      bytes: this.bytes,
      json: this.bytes <= MAX_OUTPUT_BYTES ? this.compact() : undefined,
      preview: this.preview,
      digest: `sha256:${this.hash.hex()}`,
      withoutId: this.withoutId
    }
  }

  /**
   * The file's targets as one line, read back: the file is that JSON with a newline after `[` and
   * after each target, and JSON.stringify writes none inside one. Read back rather than kept as the
   * list arrives: the first MiB of a long list would be held through the listing for nothing.
   */
  private compact(): string {
    return readFileSync(this.path, 'utf8').replaceAll('\n', '')
  }

  /**
   * The UTF-8 of `head` and then `body`, in the scratch buffer when it surely fits (at most 3 bytes a
   * UTF-16 unit): a page then costs no buffer of its own, no pass to measure its text, and no copy
   * of its text joined to its head.
   */
  private encoded(head: string, body: string): Buffer {
    if (3 * (head.length + body.length) > SCRATCH_BYTES) return Buffer.from(head + body)
    this.scratch ??= Buffer.allocUnsafe(SCRATCH_BYTES)
    const at = this.scratch.write(head)
    return this.scratch.subarray(0, at + this.scratch.write(body, at))
  }

  /** Writes every byte or throws, naming the folder. */
  private write(data: string | Buffer): void {
    const bytes = typeof data === 'string' ? Buffer.from(data) : data
    this.hash.update(bytes)
    try {
      writeAll(this.fd as number, bytes)
    } catch (err) {
      throw this.failure(err)
    }
  }

  /** Removes the file: a failed step leaves nothing behind. Never throws. */
  discard(): void {
    this.close()
    rmSync(this.path, { force: true })
  }

  private close(): void {
    if (this.fd === undefined) return
    const fd = this.fd
    this.fd = undefined
    closeSync(fd)
  }
}

/** "},{" (replace with a global pattern builds the text in one go, replaceAll piece by piece). */
const SEAMS = /\},\{/g

/**
 * The targets as the file holds them: each one's JSON.stringify, joined by ",\n". A page of plain
 * objects is written from one JSON.stringify of the page (or `json`, the same text as the
 * response held it: listText in service/targets.ts), with a line break put at each seam: n
 * objects in an array have "},{" at each of their n - 1 seams, so when the text holds n - 1 of
 * them in all, those are the seams. One call a page rather than a call a target (and the id count
 * taken only for a shard): about 40 ms less CPU in a listing of 1,000,000 targets
 * (docs/performance.md). Anything else in the page (a string, a number, null, an array), or a
 * "},{" within a target, and each target is written on its own.
 * Targets are parsed JSON (parseExact): an object here always writes as {…}, never through a
 * toJSON method or as a boxed primitive or Date would.
 */
export function jsonLines(targets: readonly unknown[], json?: string): string {
  for (let i = 0; i < targets.length; i++) {
    if (!isTargetObject(targets[i])) return oneByOne(targets)
  }
  const whole = json ?? JSON.stringify(targets)
  const lines = whole.replace(SEAMS, '},\n{')
  return lines.length - whole.length === targets.length - 1 ? lines.slice(1, -1) : oneByOne(targets)
}

function oneByOne(targets: readonly unknown[]): string {
  return targets.map(target => JSON.stringify(target)).join(',\n')
}

/** The targets `select` keeps, each named by its place in the whole list (`before` came first). */
function selectedOf(targets: readonly unknown[], select: Selection, before: number): unknown[] {
  const kept: unknown[] = []
  for (let i = 0; i < targets.length; i++) if (select.selects(targets[i], before + i)) kept.push(targets[i])
  return kept
}
