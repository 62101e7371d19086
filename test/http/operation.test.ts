import { STATUS_CODES } from 'node:http'
import { HttpRequest, HttpResponse, Transport } from '../../src/http/client.js'
import { RequestError, ServerWaitError, TransportFailure } from '../../src/http/errors.js'
import { Operation, OperationError, perform, ResponseError, statusDetail } from '../../src/http/operation.js'

const request: HttpRequest = {
  method: 'GET',
  url: new URL('https://api.example.test/v1/targets?key=k3y'),
  headers: {},
  maxBytes: 1024,
  label: 'targets request'
}
const res = (status: number, body = '', attempts = 1): HttpResponse => ({
  status,
  headers: {},
  body: Buffer.from(body),
  attempts
})
/** A transport with no socket: answers every request with `answer`, and records what was sent. */
function fake(answer: () => Promise<HttpResponse>): Transport & { sent: HttpRequest[] } {
  const sent: HttpRequest[] = []
  return {
    sent,
    send: async r => {
      sent.push(r)
      return answer()
    }
  }
}
const operation = (overrides: Partial<Operation<string>> = {}): Operation<string> => ({
  action: 'list targets',
  request,
  redirect: 'the bearer token stays home',
  advice: status => `Advice for ${status}.`,
  parse: r => r.body.toString(),
  ...overrides
})

describe('perform', () => {
  it('sends the request once and parses a 2xx', async () => {
    const transport = fake(async () => res(201, 'made'))
    await expect(perform(transport, operation())).resolves.toBe('made')
    expect(transport.sent).toEqual([request])
  })

  it('fails a status that is not a success with what the server said and the advice for it', async () => {
    const transport = fake(async () => res(403, '{"error":"forbidden","message":"no group"}', 2))
    await expect(perform(transport, operation())).rejects.toThrow(
      new OperationError(
        'list targets',
        'api.example.test answered HTTP 403 Forbidden after 2 attempts (forbidden: no group). Advice for 403.'
      )
    )
  })

  it('counts statuses in accept as success', async () => {
    const transport = fake(async () => res(404, 'gone'))
    await expect(perform(transport, operation({ accept: new Set([404, 409]) }))).resolves.toBe('gone')
    await expect(perform(transport, operation({ accept: new Set([409]) }))).rejects.toThrow('HTTP 404 Not Found')
  })

  it('prefixes a ResponseError from parse with the action, and lets other errors through', async () => {
    const transport = fake(async () => res(200, 'x'))
    await expect(
      perform(
        transport,
        operation({
          parse: () => {
            throw new ResponseError("the service's response is odd")
          }
        })
      )
    ).rejects.toThrow("Failed to list targets: the service's response is odd")
    const other = new Error('disk full')
    await expect(
      perform(
        transport,
        operation({
          parse: () => {
            throw other
          }
        })
      )
    ).rejects.toBe(other)
  })

  it.each<[TransportFailure, number, string]>([
    [
      { kind: 'redirect', status: 302, location: 'https://elsewhere.test/x' },
      1,
      'GET https://api.example.test failed: the server redirected it (HTTP 302) to https://elsewhere.test/x; the bearer token stays home. Set the input to the address the redirect points at, if you trust it.'
    ],
    [
      { kind: 'tls-untrusted', code: 'SELF_SIGNED_CERT_IN_CHAIN' },
      1,
      'GET https://api.example.test failed: the TLS certificate of api.example.test is not trusted by this machine (SELF_SIGNED_CERT_IN_CHAIN). If it is issued by an internal CA, set NODE_EXTRA_CA_CERTS to the path of that CA certificate (PEM) in the job env.'
    ],
    [
      { kind: 'dns', hostname: 'api.example.test' },
      1,
      'GET https://api.example.test failed: the host api.example.test could not be resolved (ENOTFOUND); check the URL input'
    ],
    [
      { kind: 'network', code: 'ECONNREFUSED', detail: 'connect ECONNREFUSED', proxy: 'http://proxy.test:3128' },
      3,
      'GET https://api.example.test failed (after 3 attempts): connect ECONNREFUSED through the proxy http://proxy.test:3128'
    ],
    [{ kind: 'timeout', ms: 1500 }, 2, 'failed (after 2 attempts): no complete response within 1.5 s (timeout-seconds)']
  ])('reports %o with its advice, never the query', async (failure, attempts, text) => {
    const transport = fake(() => Promise.reject(new RequestError(failure, attempts)))
    const error = await perform(transport, operation()).catch((e: Error) => e)
    expect(error).toBeInstanceOf(OperationError)
    expect((error as Error).message).toMatch(/^Failed to list targets: /)
    expect((error as Error).message).toContain(text)
    expect((error as Error).message).not.toContain('k3y')
  })

  it('names the input whose host does not resolve', async () => {
    const transport = fake(() => Promise.reject(new RequestError({ kind: 'dns', hostname: 'api.example.test' }, 1)))
    await expect(perform(transport, operation({ urlInput: 'base-url' }))).rejects.toThrow(
      'the host api.example.test could not be resolved (ENOTFOUND); check the base-url input'
    )
  })

  it('names the retry window when retries stopped there', async () => {
    const transport = fake(() => Promise.reject(new RequestError({ kind: 'aborted' }, 4, 45_000)))
    await expect(perform(transport, operation())).rejects.toThrow(
      'failed (after 4 attempts): the connection closed before the response ended; retries stop 45 s after the first attempt'
    )
  })

  it('says when to re-run when the server asks for a longer wait than the step sits out', async () => {
    const at = Date.parse('2026-11-22T07:00:00Z')
    const transport = fake(() => Promise.reject(new ServerWaitError(429, 3_600_000, 60_000, at)))
    await expect(perform(transport, operation())).rejects.toThrow(
      'Failed to list targets: api.example.test answered HTTP 429 Too Many Requests and asks to retry in 3600 s, longer than this step waits (60 s). Re-run after 2026-11-22T07:00:00.000Z.'
    )
  })

  it('lets an error that is not the transport’s through as it is', async () => {
    const bug = new TypeError('bug')
    await expect(
      perform(
        fake(() => Promise.reject(bug)),
        operation()
      )
    ).rejects.toBe(bug)
  })
})

describe('statusDetail', () => {
  it.each([
    [401, '{"error":"access_denied","error_description":"Unauthorized"}', '(access_denied: Unauthorized)'],
    [404, '{"message":"Not found"}', '(Not found)'],
    [500, '<html>\n<b>oops</b>\u0007</html>', '(<html> <b>oops</b> </html>)']
  ])('quotes what the server said for %i', (status, body, said) => {
    expect(statusDetail(request, res(status, body), 'Do this.')).toBe(
      `api.example.test answered HTTP ${status} ${STATUS_CODES[status]} ${said}. Do this.`
    )
  })

  it('names a status with no standard phrase by its number', () => {
    expect(statusDetail(request, res(599, ''), 'Later.')).toBe('api.example.test answered HTTP 599. Later.')
  })

  it('quotes a code and a detail together, and the text of a JSON array', () => {
    expect(statusDetail(request, res(400, '{"code":"E1","detail":"bad"}'), 'X.')).toContain('(E1: bad)')
    expect(statusDetail(request, res(400, '{"title":"Bad request"}'), 'X.')).toContain('(Bad request)')
    expect(statusDetail(request, res(400, '[1,2]'), 'X.')).toContain('([1,2])')
    expect(statusDetail(request, res(400, '{"other":1}'), 'X.')).toContain('({"other":1})')
  })

  it('cuts a long body to about 300 characters and counts attempts', () => {
    const message = statusDetail(request, res(503, 'y'.repeat(5000), 3), 'Later.')
    expect(message).toContain('after 3 attempts')
    expect(message.length).toBeLessThan(400)
  })
})
