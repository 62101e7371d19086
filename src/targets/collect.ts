import * as core from '@actions/core'
import { Bearer } from '../auth/bearer.js'
import { formatCount } from '../format.js'
import { holdLog } from '../held-log.js'
import { Transport } from '../http/client.js'
import { listTargets } from '../service/targets.js'
import { Listing, TargetsFile } from './file.js'
import { MAX_SHARDS, Shard, shardCount } from './shards.js'

/** The targets of this step, however they came, and what the outputs say of them. */
export interface Collected {
  readonly listing: Listing
  /** The number of shards the whole list makes. */
  readonly shardCount: number
  /** Listed from the service (the targets-digest output is set), or read from targets-from. */
  readonly from: 'listing' | 'snapshot'
  /** The digest of the list as a whole: the snapshot file's, or the listing's targets file's. */
  readonly digest: string
}

export interface ListOptions {
  readonly baseUrl: URL
  readonly maxPages: number
  /** Keep only this shard's targets. */
  readonly shard?: Shard
  /** How many targets one shard should get, for the shards output. */
  readonly shardSize: number
}

export interface SnapshotOptions {
  /** The targets-from input: a file, or a directory holding one .json file. */
  readonly targetsFrom: string
  /** The digest the snapshot must have, sha256:<hex>. */
  readonly targetsDigest?: string
  readonly shardSize: number
}

/** How long the page lines are held, to be written together: a fifth of a second, too short to be seen. */
const PAGE_LINES_HOLD_MS = 200

/**
 * Lists targets into `file`; a list of more than one page logs a line per page inside a collapsed
 * group, written a few times a second rather than a write a page.
 */
export async function listInto(
  http: Transport,
  inputs: ListOptions,
  bearer: Bearer,
  file: TargetsFile
): Promise<Collected> {
  let grouped = false
  const log = holdLog(PAGE_LINES_HOLD_MS)
  const onPage = (page: number, count: number, total: number, more: boolean): void => {
    if (page === 1 && !more) return
    log.hold()
    if (!grouped) core.startGroup('Listing targets page by page')
    grouped = true
    core.info(`Page ${page}: ${count} targets (${total} so far)`)
  }
  const { baseUrl, maxPages, shard } = inputs
  try {
    await listTargets(http, {
      baseUrl,
      bearer,
      maxPages,
      onPage,
      onTargets: (targets, json) => file.add(targets, json)
    })
  } finally {
    if (grouped) core.endGroup()
    log.release()
  }
  const listing = file.finish()
  report('Listed', listing)
  if (shard && listing.withoutId > 0) {
    core.warning(
      `${plural(listing.withoutId, 'listed target')} of ${formatCount(listing.listed)} ${listing.withoutId === 1 ? 'has' : 'have'} ` +
        'no string or number id, so each shard job places them by their JSON: every target is worked on exactly once ' +
        'only if the service sends every shard job the same JSON. Read one snapshot in every shard job instead ' +
        '(targets-from; README, "Fan-out").'
    )
  }
  return { listing, shardCount: shards(listing.selected, inputs.shardSize), from: 'listing', digest: listing.digest }
}

/**
 * Reads the targets-from snapshot into `file`, checking its digest when targets-digest is given.
 * Makes no request: it runs before the token is obtained, so a bad snapshot fails first. The
 * snapshot's reader is loaded here: a step that lists loads none of it.
 */
export async function readInto(inputs: SnapshotOptions, file: TargetsFile): Promise<Collected> {
  const { readSnapshot, SnapshotError, snapshotPath } = await import('./snapshot.js')
  const path = snapshotPath(inputs.targetsFrom)
  const { digest } = await readSnapshot(path, targets => file.add(targets))
  if (inputs.targetsDigest && digest !== inputs.targetsDigest) {
    throw new SnapshotError(
      `${path} has the digest ${digest}, not ${inputs.targetsDigest} (targets-digest). It is not the file the ` +
        "listing step wrote: most likely an artifact of another run or run attempt. Pass the artifact's name from " +
        'the listing job as a job output, as the README shows.'
    )
  }
  const listing = file.finish()
  report(`Read ${path}:`, listing)
  return { listing, shardCount: shards(listing.selected, inputs.shardSize), from: 'snapshot', digest }
}

function report(verb: string, listing: Listing): void {
  const { shard } = listing
  core.info(
    `${verb} ${plural(listing.listed, 'target')}` +
      (listing.where === undefined ? '' : `; ${selectionText(listing)}`) +
      (shard ? `; shard ${shard.index} of ${shard.count} holds ${plural(listing.count, 'target')}` : '')
  )
}

/** "40 of 500 targets selected by `status == "retired"`": the log's, the summary's and the outputs' words. */
export function selectionText(listing: Pick<Listing, 'listed' | 'selected' | 'where'>): string {
  return `${formatCount(listing.selected)} of ${plural(listing.listed, 'target')} selected by \`${(listing.where ?? 'true').replace(/\s+/g, ' ')}\``
}

function shards(listed: number, shardSize: number): number {
  const count = shardCount(listed, shardSize)
  const wanted = Math.ceil(listed / shardSize)
  if (wanted > count) {
    core.info(
      `The shards output has ${MAX_SHARDS} shards, not ${wanted}: a matrix runs at most ` +
        `${MAX_SHARDS} jobs, so each shard holds about ${Math.ceil(listed / MAX_SHARDS)} targets, more than shard-size (${shardSize}).`
    )
  }
  return count
}

function plural(n: number, noun: string): string {
  return `${formatCount(n)} ${noun}${n === 1 ? '' : 's'}`
}
