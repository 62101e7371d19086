// nock for the unit tests of test/nock/, loaded by test/nock.test.ts only. nock patches the
// worker's shared http and https modules when it is imported, so a file that merely imported it
// would leave an interceptor behind in the worker, outliving its test environment: later files'
// requests went through that stale copy and out to the network (test/nock.test.ts checks that
// this copy is in charge). ESLint refuses imports of nock anywhere else.
import nock from 'nock'

/** Unit tests talk to nock, never through a proxy from the developer's environment. */
export function clearProxyEnv(): void {
  for (const name of ['HTTPS_PROXY', 'https_proxy', 'HTTP_PROXY', 'http_proxy', 'NO_PROXY', 'no_proxy'])
    delete process.env[name]
}

/** nock for a test file: no real connections, a clean slate after each test, restored at the end. */
export function useNock(): void {
  beforeAll(() => {
    clearProxyEnv()
    if (!nock.isActive()) nock.activate()
    nock.disableNetConnect()
  })
  afterEach(() => {
    nock.abortPendingRequests()
    nock.cleanAll()
  })
  afterAll(() => {
    nock.enableNetConnect()
    nock.restore()
  })
}
