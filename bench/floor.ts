// The floor the action is measured against: @actions/core (bundled with the same stand-ins as the
// action) masking a secret, bare http requests (a token unless one is given, then every page of
// targets, following Link rel="next"), each page parsed and its targets written to a file one per line, and two
// outputs. No validation, retries, caps, exact numbers, digest, sealing or summary: what any action
// built on @actions/core pays at the least to get, parse and write the same list.
import * as core from '@actions/core'
import { closeSync, openSync, writeSync } from 'node:fs'
import * as http from 'node:http'
import { join } from 'node:path'

interface Response {
  readonly text: string
  readonly link?: string
}

function request(url: string, headers: Record<string, string>, body?: string): Promise<Response> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: body ? 'POST' : 'GET', headers }, res => {
      let text = ''
      res
        .setEncoding('utf8')
        .on('data', chunk => (text += chunk))
        .on('end', () => resolve({ text, link: [res.headers.link ?? []].flat().join(', ') }))
    })
    req.on('error', reject)
    req.end(body)
  })
}

async function exchange(): Promise<string> {
  const secret = core.getInput('client-secret')
  core.setSecret(secret)
  const body = JSON.stringify({ client_id: core.getInput('client-id'), client_secret: secret })
  const url = `${core.getInput('auth-url')}/oauth/token`
  return JSON.parse((await request(url, { 'Content-Type': 'application/json' }, body)).text).access_token
}

// A pre-issued token, as the listing's runs give it, or one exchanged for, as the start-up's do.
const token = core.getInput('token') || (await exchange())
core.setSecret(token)

const base = core.getInput('base-url')
const file = openSync(join(process.env.RUNNER_TEMP ?? '.', `floor-${process.pid}.json`), 'w')
let url: string | undefined = `${base}/v1/targets`
let first = ''
for (let page = 0; url; page++) {
  const { text, link } = await request(url, { Accept: 'application/json', Authorization: `Bearer ${token}` })
  if (page === 0) first = text
  const json = JSON.parse(text)
  const targets: unknown[] = Array.isArray(json) ? json : json.targets
  writeSync(file, (page === 0 ? '[\n' : ',\n') + targets.map(t => JSON.stringify(t)).join(',\n'))
  const next = link && /<([^>]+)>;\s*rel="?next"?/.exec(link)
  url = next ? new URL(next[1], url).href : undefined
}
writeSync(file, '\n]\n')
closeSync(file)
core.setOutput('token', token)
core.setOutput('targets', first)
