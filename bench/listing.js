// The listing's part of npm run bench: the pages a loopback service serves, and the listing of
// 1,000,000 targets measured against its floor at each page size. The floor is bench/floor.ts: the
// same GETs, each page JSON.parse'd and its targets written one per line, and nothing else (no
// exact numbers, no digest, no caps). Both are whole processes given a pre-issued token (the
// exchange and the sealed token's key derivation are start-up costs, with their own goal), run
// interleaved; the figure is the median wall time of the action over the floor's.

/** What a service sends: small targets, as most services list them. */
export const target = i => ({ id: `tgt-${i}`, name: `target-${i}`, type: 'host', status: 'active' })
export const PAGE_SIZES = [200, 1000]
export const LIST_COUNT = 1_000_000

const bodies = new Map()
/** Page `page` (1-based) of `perPage` targets, built once. */
function pageBody(perPage, page) {
  if (!bodies.has(perPage)) bodies.set(perPage, [])
  const built = bodies.get(perPage)
  built[page - 1] ??= Buffer.from(
    JSON.stringify({ targets: Array.from({ length: perPage }, (_, i) => target((page - 1) * perPage + i)) })
  )
  return built[page - 1]
}

/** Builds every page the benchmark will ask for, so that the server only sends them. */
export function buildPages(count = LIST_COUNT) {
  for (const perPage of PAGE_SIZES) for (let p = 1; p <= count / perPage; p++) pageBody(perPage, p)
}

/** The path of a listing of `count` targets in pages of `perPage`. */
export const listingPath = (count, perPage) => `/large/${perPage}/${count / perPage}`

/** Serves /large/<perPage>/<pages>/v1/targets?page=n, linking each page to the next; false for another path. */
export function servePage(url, res) {
  const match = /^\/large\/(\d+)\/(\d+)\/v1\/targets$/.exec(url.pathname)
  if (!match) return false
  const [perPage, pages] = [Number(match[1]), Number(match[2])]
  const page = Number(url.searchParams.get('page') || 1)
  const headers = { 'Content-Type': 'application/json' }
  if (page < pages) headers.Link = `<${listingPath(perPage * pages, perPage)}/v1/targets?page=${page + 1}>; rel="next"`
  res.writeHead(200, headers).end(pageBody(perPage, page))
  return true
}

/**
 * The listing of LIST_COUNT targets at each page size: `run(which, count, perPage)` runs the action
 * or the floor once and resolves to { ms, mib }. A batch is `runs` of each, interleaved. A batch
 * that misses `goal` is measured again, up to three batches, each judged on its own: another
 * process taking a core for a while can spoil one batch, while a regression misses all three. The
 * result is the last batch's, with the ratios of the batches before it.
 */
export async function measureListing({ runs, goal, run, log }) {
  const results = []
  for (const perPage of PAGE_SIZES) {
    const earlier = []
    for (let batch = 1; ; batch++) {
      const samples = { action: [], floor: [] }
      for (let i = 0; i < runs; i++) {
        samples.floor.push(await run('floor', LIST_COUNT, perPage))
        samples.action.push(await run('action', LIST_COUNT, perPage))
      }
      const ratio = median(samples.action.map(s => s.ms)) / median(samples.floor.map(s => s.ms))
      if (ratio <= goal || batch === 3) {
        results.push({ perPage, ratio, samples, earlier })
        break
      }
      log(`The listing at pages of ${perPage} is ${ratio.toFixed(2)} x its floor in batch ${batch}: measuring again`)
      earlier.push(ratio)
    }
  }
  return results
}

export const median = xs => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2
}
