import { createHash } from 'node:crypto'
import { createReadStream, readdirSync, Stats, statSync } from 'node:fs'
import { join } from 'node:path'
import { StringDecoder } from 'node:string_decoder'
import { formatCount } from '../format.js'
import { MAX_TARGET_DEPTH, parseExact } from '../json.js'

/**
 * Targets handed to the caller at a time: memory holds a batch, never the list. Small, with small
 * chunks: a routine works through a batch while V8 collects its young space many times, and what
 * survives those collections makes V8 grow that space (at 1,000 per batch and 64 KiB chunks, peak
 * memory at 100,000 calls was 4 % higher).
 */
export const BATCH = 200
const CHUNK_BYTES = 16 * 1024
/** One target's JSON at the most: a longer one is not a target this action wrote. */
const MAX_TARGET_CHARS = 16 * 1024 * 1024

export class SnapshotError extends Error {
  constructor(detail: string) {
    super(`Input targets-from: ${detail}`)
  }
}

/**
 * The targets file that `targets-from` names: the file itself, or the only .json file in a
 * directory (what actions/download-artifact makes of an artifact).
 */
export function snapshotPath(given: string): string {
  let stats
  try {
    stats = statSync(given)
  } catch {
    throw new SnapshotError(
      `${given} does not exist. Give the targets-file of an earlier step, downloaded as an artifact.`
    )
  }
  if (stats.isFile()) return given
  // A FIFO, a device or a socket (or a link to one) would block the read or never end.
  if (!stats.isDirectory()) {
    throw new SnapshotError(
      `${given} is neither a file nor a directory (a ${kindOf(stats)}). Give the targets-file of an earlier step, downloaded as an artifact.`
    )
  }
  const files = readdirSync(given, { withFileTypes: true }).filter(e => e.isFile() && e.name.endsWith('.json'))
  if (files.length !== 1) {
    const found =
      files.length === 0
        ? 'none'
        : files
            .map(f => f.name)
            .slice(0, 5)
            .join(', ')
    throw new SnapshotError(
      `the directory ${given} must hold exactly one .json targets file (found ${found}). Download one artifact into it.`
    )
  }
  return join(given, files[0].name)
}

function kindOf(stats: Stats): string {
  if (stats.isFIFO()) return 'FIFO'
  if (stats.isCharacterDevice() || stats.isBlockDevice()) return 'device'
  return stats.isSocket() ? 'socket' : 'special file'
}

export interface SnapshotRead {
  readonly count: number
  /** "sha256:" and the hex SHA-256 of the file's bytes. */
  readonly digest: string
}

/**
 * Streams a JSON array of targets from a file, in batches, with its digest. Any layout of a JSON
 * array is read (the action writes one target per line); numbers keep their text as written.
 * Throws a SnapshotError for anything that is not a whole JSON array.
 */
export async function readSnapshot(
  path: string,
  onTargets: (targets: unknown[], places?: number[]) => void | Promise<void>,
  /** Keeps only the targets at these places of the array (0-based), unparsed otherwise. */
  keep?: (place: number) => boolean
): Promise<SnapshotRead> {
  const hash = createHash('sha256')
  const splitter = new ArraySplitter(keep)
  const pending: Batch[] = []
  const queue = (batch: Batch): void => {
    if (batch.elements.length > 0) pending.push(batch)
  }
  let count = 0
  // Each batch is handed over, and awaited, before the next chunk is read: a slow consumer (calls
  // per target) holds the reading back, so memory never holds more than a chunk and a batch.
  const drain = async (): Promise<void> => {
    for (let batch = pending.shift(); batch; batch = pending.shift()) {
      const { elements, places } = batch
      let targets: unknown
      try {
        targets = parseExact(`[${elements.join(',')}]`)
      } catch {
        const near = places ? places[0] : count
        throw new SnapshotError(`${path} is not valid JSON near target ${formatCount(near + 1)}.`)
      }
      count += elements.length
      await onTargets(targets as unknown[], places)
    }
  }
  const decoder = new StringDecoder('utf8')
  for await (const chunk of createReadStream(path, { highWaterMark: CHUNK_BYTES })) {
    hash.update(chunk as Buffer)
    splitter.push(decoder.write(chunk as Buffer), queue)
    await drain()
  }
  splitter.push(decoder.end(), queue)
  splitter.end(path, queue)
  await drain()
  return { count, digest: `sha256:${hash.digest('hex')}` }
}

/** Elements' text, and with a `keep`, their places in the array. */
interface Batch {
  readonly elements: string[]
  readonly places?: number[]
}

/**
 * Splits the text of a JSON array into the text of its elements, chunk by chunk: it tracks strings
 * and nesting only, and leaves checking each element's JSON to JSON.parse.
 */
class ArraySplitter {
  private state: 'before' | 'elements' | 'after' = 'before'
  private depth = 0
  private inString = false
  private escaped = false
  private current = ''
  private batch: string[] = []
  private places: number[] | undefined
  private seen = 0

  constructor(private readonly keep?: (place: number) => boolean) {
    if (keep) this.places = []
  }

  push(text: string, flush: (batch: Batch) => void): void {
    let start = 0
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i)
      if (this.state === 'before') {
        if (isSpace(c)) continue
        // Never quoted: an error shows no byte of the file.
        if (c !== 0x5b) throw new SnapshotError('the file is not a JSON array of targets (it does not start with [).')
        this.state = 'elements'
        start = i + 1
        continue
      }
      if (this.state === 'after') {
        if (!isSpace(c)) throw new SnapshotError('the file has more after its JSON array: it is not one JSON array.')
        continue
      }
      if (this.inString) {
        if (this.escaped) this.escaped = false
        else if (c === 0x5c) this.escaped = true
        else if (c === 0x22) this.inString = false
        continue
      }
      if (c === 0x22) this.inString = true
      else if (c === 0x5b || c === 0x7b) {
        if (++this.depth > MAX_TARGET_DEPTH) {
          throw new SnapshotError(
            `the file nests JSON more than ${MAX_TARGET_DEPTH} levels deep in target ${formatCount(this.seen + 1)}: it is not a targets file of this action.`
          )
        }
      } else if ((c === 0x5d || c === 0x7d) && this.depth > 0) this.depth--
      else if (this.depth === 0 && (c === 0x2c || c === 0x5d)) {
        const element = (this.current + text.slice(start, i)).trim()
        this.current = ''
        start = i + 1
        // Checked here too: one that ends in the read after the one it passed the limit in.
        if (element.length > MAX_TARGET_CHARS) throw tooLarge()
        if (element === '' && (c === 0x2c || this.seen > 0)) {
          throw new SnapshotError('the file is not a JSON array of targets (an empty element).')
        }
        if (element !== '') {
          const place = this.seen++
          if (!this.keep || this.keep(place)) {
            this.batch.push(element)
            this.places?.push(place)
            if (this.batch.length >= BATCH) flush(this.take())
          }
        }
        if (c === 0x5d) this.state = 'after'
      }
    }
    if (this.state === 'elements') {
      this.current += text.slice(start)
      if (this.current.length > MAX_TARGET_CHARS) throw tooLarge()
    }
  }

  end(path: string, flush: (batch: Batch) => void): void {
    if (this.state === 'before') throw new SnapshotError(`${path} is empty: it is not a JSON array of targets.`)
    if (this.state === 'elements') {
      throw new SnapshotError(`${path} ends before its JSON array does: the file is truncated.`)
    }
    flush(this.take())
  }

  private take(): Batch {
    const taken = { elements: this.batch, places: this.places }
    this.batch = []
    if (this.places) this.places = []
    return taken
  }
}

function tooLarge(): SnapshotError {
  return new SnapshotError('the file holds a target over 16 MiB of JSON: it is not a targets file of this action.')
}

function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09
}
