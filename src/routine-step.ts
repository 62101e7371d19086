import * as core from '@actions/core'
import { Bearer } from './auth/bearer.js'
import { formatCount } from './format.js'
import { Http } from './http/client.js'
import { Inputs } from './inputs.js'
import { RoutineOptions, RoutineResult, runRoutine, routineError } from './service/routine.js'
import { Collected } from './targets/collect.js'
import { readSnapshot } from './targets/snapshot.js'

/**
 * The call input's stage, once every target has passed the preflight: calls the operation for each
 * (or once, without targets). Throws the step's error when any call failed; `onFile` is told of
 * the results file as soon as it exists, so that a failed step can remove it.
 */
export async function callEveryTarget(
  http: Http,
  inputs: Inputs,
  bearer: Bearer,
  targets: Collected | undefined,
  resultsDir: string,
  onFile: (path: string) => void
): Promise<RoutineResult> {
  const call = inputs.call!
  const file = targets?.listing.file
  const options: RoutineOptions = {
    spec: call.spec,
    call: call.text,
    baseUrl: inputs.baseUrl,
    bearer,
    concurrency: call.concurrency,
    rate: call.rate,
    accept: call.accept,
    maxFailures: call.maxFailures,
    idempotent: call.idempotent,
    runId: process.env.GITHUB_RUN_ID ?? '',
    resultsDir,
    count: targets ? targets.listing.count : 1,
    info: core.info,
    // The kept targets are read back from their file: memory holds a batch, never the list.
    targets: file
      ? async each => {
          await readSnapshot(file, async batch => {
            for (const target of batch) await each(target)
          })
        }
      : undefined
  }
  const count = targets?.listing.count ?? 1
  const target = targets ? `${formatCount(count)} target${count === 1 ? '' : 's'}` : 'one call'
  core.info(`Calling ${call.text} for ${target}, ${call.concurrency} at a time`)
  const result = await runRoutine(http, options)
  onFile(result.resultsFile)
  const error = routineError(call.text, result)
  if (error) throw error
  return result
}
