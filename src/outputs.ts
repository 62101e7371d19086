import * as core from '@actions/core'
import { formatBytes, isoSeconds } from './format.js'
import { shardList } from './shards.js'
import { Listing, MAX_OUTPUT_BYTES } from './targets-file.js'
import { AccessToken } from './token.js'

/** Linux refuses an environment value over 128 KiB (MAX_ARG_STRLEN): `env: X: ${{ … }}` breaks past it. */
export const ENV_VALUE_BYTES = 128 * 1024

export interface TargetOutputs {
  readonly listing: Listing
  /** The number of shards the whole listing makes. */
  readonly shardCount: number
}

/** Sets every output together; only called once everything succeeded. */
export function publish(
  token: AccessToken,
  targets: TargetOutputs | undefined,
  exportVariable: string | undefined
): void {
  const outputs: Record<string, string> = {
    token: token.accessToken,
    'token-type': token.tokenType,
    'token-source': token.source,
    'expires-in': token.expiresIn === undefined ? '' : String(token.expiresIn),
    'expires-at': token.expiresAt === undefined ? '' : isoSeconds(token.expiresAt),
    scope: token.scope ?? '',
    'sealed-token': token.sealed ?? ''
  }
  if (targets) Object.assign(outputs, targetOutputs(targets))
  if (!process.env.GITHUB_OUTPUT) {
    // Without the file command, core would print the values to the log: never do that.
    core.warning('GITHUB_OUTPUT is not set (not running on a runner?): outputs were not written.')
  } else {
    for (const [name, value] of Object.entries(outputs)) core.setOutput(name, value)
  }
  if (exportVariable) {
    if (!process.env.GITHUB_ENV) core.warning(`GITHUB_ENV is not set: ${exportVariable} was not exported.`)
    else core.exportVariable(exportVariable, token.accessToken)
  }
}

function targetOutputs({ listing, shardCount }: TargetOutputs): Record<string, string> {
  const outputs: Record<string, string> = {
    'target-count': String(listing.count),
    'targets-file': listing.file,
    shards: JSON.stringify(shardList(shardCount))
  }
  const size = formatBytes(listing.bytes)
  if (listing.json === undefined) {
    core.warning(
      `The targets output was not set: the list is ${size} as JSON, more than ${formatBytes(MAX_OUTPUT_BYTES)}, ` +
        'past what a job output holds (1 MB) and what an expression can read. Read the targets-file output ' +
        'in this job, or fan out over the shards output (see shard-size and shard).'
    )
  } else {
    if (listing.bytes > ENV_VALUE_BYTES) {
      core.warning(
        `The targets output is ${size}: an env value over ${formatBytes(ENV_VALUE_BYTES)} makes the next step fail ` +
          '("Argument list too long"), and expressions fail past about 1 MB. Read the targets-file output instead, ' +
          'or fan out over the shards output (see shard-size and shard).'
      )
    }
    outputs.targets = listing.json
  }
  return outputs
}
