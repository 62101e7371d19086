import * as core from '@actions/core'
import { randomBytes } from 'node:crypto'
import { writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { formatBytes } from './http.js'
import { isoSeconds } from './format.js'
import { AccessToken } from './token.js'

/** GitHub drops job outputs over 1 MB: past this, point at targets-file. */
const LARGE_OUTPUT_BYTES = 1024 * 1024

/** Writes the targets file, then sets every output together; only called once everything succeeded. */
export function publish(token: AccessToken, targets: unknown[] | undefined, exportVariable: string | undefined): void {
  const outputs: Record<string, string> = {
    token: token.accessToken,
    'token-type': token.tokenType,
    'token-source': token.source,
    'expires-in': token.expiresIn === undefined ? '' : String(token.expiresIn),
    'expires-at': token.expiresAt === undefined ? '' : isoSeconds(token.expiresAt),
    scope: token.scope ?? '',
    'sealed-token': token.sealed ?? ''
  }
  if (targets) {
    const json = JSON.stringify(targets)
    const file = join(process.env.RUNNER_TEMP || tmpdir(), `targets-${randomBytes(6).toString('hex')}.json`)
    writeFileSync(file, json, { mode: 0o600, flag: 'wx' })
    const size = Buffer.byteLength(json)
    if (size > LARGE_OUTPUT_BYTES) {
      core.warning(
        `The targets output is ${formatBytes(size)}; GitHub caps job outputs at 1 MB and large values strain env and ` +
          `expression limits. Read the list from the targets-file output instead (${file}).`
      )
    }
    Object.assign(outputs, { targets: json, 'target-count': String(targets.length), 'targets-file': file })
  }
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
