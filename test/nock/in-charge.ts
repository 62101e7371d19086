import { request } from 'node:https'
import nock from 'nock'

// Another nock copy still patching this worker's https module (one an earlier test file left
// behind) would answer this file's requests too: with 501 ERR_NOCK_NO_MATCH mixed into the mocked
// reply, and, once its test environment is torn down, by crashing the worker. Imported first by
// test/nock.test.ts, so these are the first tests to run there.
function get(url: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request(url, res => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => (body += chunk))
      res.on('end', () => resolve(`${res.statusCode} ${body}`))
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end()
  })
}

describe('nock in this worker', () => {
  it('answers a mocked request with exactly the mocked reply', async () => {
    nock('https://mocked.example.test').get('/v1/targets').reply(200, '[{"id":1}]')
    await expect(get('https://mocked.example.test/v1/targets')).resolves.toBe('200 [{"id":1}]')
  })

  it('refuses a request nothing mocks instead of sending it', async () => {
    await expect(get('https://unmocked.example.test/v1/targets')).rejects.toThrow(
      /^Nock: Disallowed net connect for "unmocked\.example\.test:443\/v1\/targets"/
    )
  })
})
