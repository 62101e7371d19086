import { HttpRequest, HttpResponse, statusText, Transport } from './client.js'
import { describeFailure, RequestError, ServerWaitError } from './errors.js'
import { parseJsonObject } from '../json.js'
import { excerpt } from '../secrets.js'

/**
 * One request to the identity provider or the service, whole: what is sent, what counts as
 * success, what to advise for each other status, and how the answer is read. The token request,
 * each page of the listing and each call per target are operations; perform() is their one path.
 */
export interface Operation<T> {
  /** What fails when it fails, after "Failed to": "exchange client credentials for a token". */
  readonly action: string
  readonly request: HttpRequest
  /** Why a redirect is not followed: "the bearer token is never sent to …". */
  readonly redirect: string
  /** The input the request's URL comes from, named when its host does not resolve. */
  readonly urlInput?: string
  /** Statuses that count as success besides 2xx. */
  readonly accept?: ReadonlySet<number>
  /** What to do about a status that is not a success. */
  readonly advice: (status: number) => string
  /** Reads a successful response; throws ResponseError when it cannot be used. */
  readonly parse: (response: HttpResponse) => T
}

/** A response the operation cannot use: the message says what is wrong with it, after "Failed to …: ". */
export class ResponseError extends Error {}

/** An operation failed: "Failed to <action>: <what happened>. <what to do>". */
export class OperationError extends Error {
  constructor(
    readonly action: string,
    detail: string,
    options?: ErrorOptions & { status?: number }
  ) {
    super(`Failed to ${action}: ${detail}`, options)
    this.status = options?.status
  }

  /** The HTTP status that failed the operation, when a response did. */
  readonly status?: number
}

export function succeeded(status: number, accept?: ReadonlySet<number>): boolean {
  return (status >= 200 && status <= 299) || accept?.has(status) === true
}

export async function perform<T>(http: Transport, operation: Operation<T>): Promise<T> {
  const { action, request } = operation
  let response: HttpResponse
  try {
    response = await http.send(request)
  } catch (err) {
    throw operationFailure(operation, err)
  }
  if (!succeeded(response.status, operation.accept)) {
    throw new OperationError(action, statusDetail(request, response, operation.advice(response.status)), {
      status: response.status
    })
  }
  try {
    return operation.parse(response)
  } catch (err) {
    if (err instanceof ResponseError) throw new OperationError(action, err.message, { cause: err })
    throw err
  }
}

/** A transport failure as the operation reports it: the facts, then what to do; anything else as it is. */
export function operationFailure(
  operation: Pick<Operation<unknown>, 'action' | 'request' | 'redirect' | 'urlInput'>,
  err: unknown
): unknown {
  const { action, request } = operation
  if (err instanceof ServerWaitError) {
    return new OperationError(
      action,
      `${request.url.host} answered HTTP ${statusText(err.status)} and asks to retry in ${Math.ceil(err.waitMs / 1000)} s, ` +
        `longer than this step waits (${err.maxWaitMs / 1000} s). Re-run after ${new Date(err.retryAtMs).toISOString()}.`,
      { cause: err }
    )
  }
  if (!(err instanceof RequestError)) return err
  const { failure } = err
  let what = describeFailure(failure, request.url, operation.urlInput ?? 'URL')
  if (failure.kind === 'redirect') {
    what += `; ${operation.redirect}. Set the input to the address the redirect points at, if you trust it.`
  } else if (failure.kind === 'tls-untrusted') {
    what +=
      '. If it is issued by an internal CA, set NODE_EXTRA_CA_CERTS to the path of that CA certificate (PEM) in the job env.'
  }
  if (err.windowMs !== undefined) what += `; retries stop ${err.windowMs / 1000} s after the first attempt`
  const tries = err.attempts > 1 ? ` (after ${err.attempts} attempts)` : ''
  return new OperationError(
    action,
    `${request.method} ${request.url.protocol}//${request.url.host} failed${tries}: ${what}`,
    { cause: err }
  )
}

/**
 * A status that is not a success: the status, what the server said (its error fields, else a
 * short redacted excerpt), and what to do about it.
 */
export function statusDetail(request: HttpRequest, response: HttpResponse, advice: string): string {
  const said = serverSaid(response.body)
  const tries = response.attempts > 1 ? ` after ${response.attempts} attempts` : ''
  return `${request.url.host} answered HTTP ${statusText(response.status)}${tries}${said ? ` (${said})` : ''}. ${advice}`
}

function serverSaid(body: Buffer): string {
  const text = body.toString('utf8')
  const fields = parseJsonObject(text)
  if (fields) {
    const code = [fields.error, fields.code].find(v => typeof v === 'string') as string | undefined
    const detail = [fields.error_description, fields.message, fields.detail, fields.title].find(
      v => typeof v === 'string'
    ) as string | undefined
    if (code || detail) return excerpt([code, detail].filter(Boolean).join(': '))
  }
  // Not a JSON object with error fields: quote the text itself.
  return excerpt(text)
}
