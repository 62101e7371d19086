// Reading earlier attempts' results (call-resume-from): the action over a snapshot of `count`
// targets, all finished in a resume source of `count` result lines (format 1), so every target is
// skipped and no call is made; the baseline is the same run without a resume source, where the
// first call fails, call-max-failures (1) stops the routine and the other targets get not-made
// lines: the same line writing, without the read. The difference in CPU is the read's cost.
import { createHash } from 'node:crypto'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { TOKEN, interleaved, node, runnerEnv, serve, snapshotLines, stats, writeLines } from '../lib.js'

const CALL = 'POST /v1/targets/{id}/scans'

export async function resume({ dist, dir, rounds, sizes }) {
  const count = sizes.resume
  const api = await serve((_req, res) => res.writeHead(500, { 'Content-Type': 'application/json' }).end('{}'))
  // The action's fingerprint (src/routine/fingerprint.ts): method, path, body and base-url.
  const fingerprint = createHash('sha256')
    .update(JSON.stringify(['POST', '/v1/targets/{id}/scans', '', `${api.url}/`]))
    .digest('hex')
    .slice(0, 16)
  const snapshot = join(dir, 'targets.json')
  await writeLines(snapshot, snapshotLines(count))
  const earlier = join(dir, 'earlier', 'results-1-1')
  mkdirSync(earlier, { recursive: true })
  await writeLines(join(earlier, 'results.jsonl'), function* () {
    for (let i = 0; i < count; i++) {
      yield (
        `{"key":"t-${i}","call":"${fingerprint}","outcome":"succeeded","status":201,"runAttempt":1,"shard":null,` +
        `"index":${i},"id":"t-${i}","attempts":1,"ms":3,"body":{"scan":"s-${i}","state":"queued"}}\n`
      )
    }
  })
  const none = join(dir, 'none')
  mkdirSync(none)
  const run = (from, ok) => () =>
    node(
      join(dist, 'root.js'),
      runnerEnv(
        dir,
        {
          token: TOKEN,
          'base-url': api.url,
          'targets-from': snapshot,
          'targets-output': 'false',
          summary: 'false',
          call: CALL,
          'call-max-failures': '1',
          'call-resume-from': from
        },
        { GITHUB_RUN_ATTEMPT: '2' }
      ),
      ok
    )
  // The resumed run skips every target and succeeds; the baseline stops at its first failure.
  const runs = await interleaved(rounds, run(none, [1]), run(join(dir, 'earlier'), [0]))
  await api.close()
  const m = (list, pick) => stats(list.map(pick)).median
  return [
    {
      id: 'resume-cpu',
      label: `resume: ${count.toLocaleString('en-US')} earlier lines read, CPU: resumed run − the same without a resume source`,
      values: runs.action.map((r, i) => (r.cpuMs - runs.baseline[i].cpuMs) / 1000),
      unit: 's',
      beside:
        `CPU ${(m(runs.action, r => r.cpuMs) / 1000).toFixed(2)} s / ${(m(runs.baseline, r => r.cpuMs) / 1000).toFixed(2)} s; ` +
        `wall ${(m(runs.action, r => r.ms) / 1000).toFixed(2)} s / ${(m(runs.baseline, r => r.ms) / 1000).toFixed(2)} s; ` +
        `peak RSS ${m(runs.action, r => r.mib).toFixed(0)} / ${m(runs.baseline, r => r.mib).toFixed(0)} MiB`
    }
  ]
}
