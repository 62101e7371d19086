// nock for the unit tests that need HTTP answers without a server. nock patches the worker's
// shared http and https modules when it is imported, so every file that imports it calls
// useNock(), which restores them after the file's last test: a copy left active would answer the
// next file's requests.
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
