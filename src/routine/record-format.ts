/**
 * The results file's own lines, around the result lines (docs/routine.md, "The record"):
 *
 *   {"m2m":"results","format":2,"run":"…","attempt":1,"call":"…",…}    the header, first
 *   {"key":…,"call":…,"outcome":…,…}                                    result lines
 *   {"m2m":"seal","lines":200,"sha256":"…","sig":"…"}                   after each block
 *
 * The header says whose the file is: the run, its attempt, the call, the snapshot. A seal closes
 * each block written: the SHA-256 of every byte before it, signed with the run's record key when
 * the job holds one (record-key.ts), so that a report can tell the run's files from forged ones,
 * and a torn or cut file from a whole one. Format 1 (before this header) had result lines only.
 */
export const RESULTS_FORMAT = 2
/** Formats a reader takes: its own and the one before, so that a job upgraded alone reads the other's. */
export const READABLE_FORMATS: readonly number[] = [1, 2]

export interface RecordHeader {
  /** GITHUB_RUN_ID, or this process's nonce outside Actions. */
  readonly run: string
  readonly attempt: number
  /** The call's record fingerprint: the operation and what decides success (call-accept). */
  readonly call: string
  /** "K/N", or null without a shard. */
  readonly shard: string | null
  /** The targets-from file's digest, or null when the targets were listed. */
  readonly snapshot: string | null
  /** The listing's digest when the step listed, for the reader's eyes only. */
  readonly listing: string | null
  /** targets-where as given, or null. */
  readonly where: string | null
  /** The plan this step applies (plan-digest), or made (a dry run), or null. */
  readonly plan: string | null
  /** A canary's file: shards of the same attempt resume from it. */
  readonly canary: boolean
  /**
   * The record-key whose private half signs the seals, or null for unsigned seals. Written as
   * `signer`: a result line's `key` is its target's, and the header's must not pass for one.
   */
  readonly signer: string | null
}

export interface Seal {
  /** Result lines in the file up to this seal. */
  readonly lines: number
  /** Hex SHA-256 of every byte of the file before this seal line. */
  readonly sha256: string
  /** base64url Ed25519 signature of sealMessage(), or null. */
  readonly sig: string | null
}

export function headerLine(header: RecordHeader): string {
  const { run, attempt, call, shard, snapshot, listing, where, plan, canary, signer } = header
  const fields = { m2m: 'results', format: RESULTS_FORMAT, run, attempt, call, shard, snapshot, listing, where, plan }
  return `${JSON.stringify({ ...fields, canary, signer })}\n`
}

/** What a seal's signature covers: the lines and the bytes before it, under a fixed label. */
export function sealMessage(lines: number, sha256: string): string {
  return `m2m results seal 1\n${lines}\n${sha256}`
}

export function sealLine(seal: Seal): string {
  const sig = seal.sig === null ? 'null' : `"${seal.sig}"`
  return `{"m2m":"seal","lines":${seal.lines},"sha256":"${seal.sha256}","sig":${sig}}\n`
}

/** Whether a line is one of the file's own (a header or a seal) rather than a result line. */
export function isOwnLine(line: string): boolean {
  return line.startsWith('{"m2m":')
}
