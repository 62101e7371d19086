import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { parse } from 'yaml'

const DIR = join('.github', 'workflows')
const files = readdirSync(DIR).filter(f => /\.ya?ml$/.test(f))

interface Step {
  readonly uses?: string
  readonly with?: Record<string, unknown>
}
interface Job {
  readonly permissions?: unknown
  readonly steps?: Step[]
}

/** Each `uses:` line with what follows it: the pin and its version comment. */
function usesLines(text: string): string[] {
  return text
    .split('\n')
    .map(l => l.trim().replace(/^- /, ''))
    .filter(l => l.startsWith('uses:'))
}

/** Problems of one `uses:` line: anything but a local action must be a full SHA with a version comment. */
function pinProblems(line: string): string[] {
  const ref = /^uses:\s*(\S+)(.*)$/.exec(line)
  if (!ref) return [`unreadable: ${line}`]
  const [, target, rest] = ref
  if (target.startsWith('./')) return []
  const [, at] = target.split('@')
  if (!/^[0-9a-f]{40}$/.test(at ?? '')) return [`${target} is not pinned to a full commit SHA`]
  if (!/^\s+# v\d+(\.\d+){0,2}$/.test(rest)) return [`${target} has no "# vX.Y.Z" comment naming its version`]
  return []
}

describe('pinProblems', () => {
  it.each([
    ['uses: actions/checkout@v4', /not pinned to a full commit SHA/],
    ['uses: actions/checkout@main', /not pinned/],
    ['uses: actions/checkout@3d3c42e', /not pinned/],
    ['uses: actions/checkout@3d3c42e5aac5ba805825da76410c181273ba90b1', /no "# vX.Y.Z" comment/]
  ])('flags %s', (line, problem) => {
    expect(pinProblems(line)).toEqual([expect.stringMatching(problem)])
  })

  it.each(['uses: ./', 'uses: actions/checkout@3d3c42e5aac5ba805825da76410c181273ba90b1 # v7.0.1'])(
    'accepts %s',
    line => {
      expect(pinProblems(line)).toEqual([])
    }
  )
})

describe.each(files)('.github/workflows/%s', file => {
  const text = readFileSync(join(DIR, file), 'utf8')
  const workflow = parse(text) as { permissions?: unknown; jobs: Record<string, Job> }

  it('pins every action to a full commit SHA, its version in a comment', () => {
    for (const line of usesLines(text)) expect({ line, problems: pinProblems(line) }).toEqual({ line, problems: [] })
  })

  it('grants nothing at the top and the least each job needs', () => {
    expect(workflow.permissions).toEqual({})
    for (const [name, job] of Object.entries(workflow.jobs)) {
      expect({ name, permissions: typeof job.permissions }).toEqual({ name, permissions: 'object' })
    }
  })

  it('checks out with persist-credentials: false', () => {
    const checkouts = Object.values(workflow.jobs)
      .flatMap(job => job.steps ?? [])
      .filter(step => step.uses?.startsWith('actions/checkout@'))
    for (const step of checkouts) expect(step.with?.['persist-credentials']).toBe(false)
  })
})

it('runs CI with concurrency, so a newer push cancels the older run', () => {
  const ci = parse(readFileSync(join(DIR, 'ci.yml'), 'utf8')) as { concurrency?: { 'cancel-in-progress'?: boolean } }
  expect(ci.concurrency?.['cancel-in-progress']).toBe(true)
})

it('lets Dependabot update the npm packages and the pinned actions, grouped', () => {
  const config = parse(readFileSync(join('.github', 'dependabot.yml'), 'utf8')) as {
    updates: { 'package-ecosystem': string; groups?: object }[]
  }
  expect(config.updates.map(u => u['package-ecosystem']).sort()).toEqual(['github-actions', 'npm'])
  for (const update of config.updates) expect(Object.keys(update.groups ?? {}).length).toBeGreaterThan(0)
})

describe('pins in the README', () => {
  // The actions the README's examples and our workflows use, each at one reviewed release.
  const PINS: Record<string, string> = {
    'actions/checkout': '3d3c42e5aac5ba805825da76410c181273ba90b1 # v7.0.1',
    'actions/setup-node': '820762786026740c76f36085b0efc47a31fe5020 # v7.0.0',
    'actions/upload-artifact': 'bbbca2ddaa5d8feaa63e36b76fdaad77386f024f # v7.0.0',
    'actions/download-artifact': '3e5f45b2cfb9172054b4087a40e8e0b5a5461e7c # v8.0.1'
  }
  const pinsIn = (text: string) =>
    usesLines(text)
      .map(l => /^uses:\s*([\w.-]+\/[\w.-]+)@(\S+)(.*)$/.exec(l))
      .filter((m): m is RegExpExecArray => !!m && m[1] in PINS)
      .map(m => ({ action: m[1], pin: `${m[2]}${m[3]}`.trim() }))

  it('pins every action the README uses, other than this one, to the release the workflows use', () => {
    const readme = readFileSync('README.md', 'utf8')
    const used = pinsIn(readme)
    expect(used.map(u => u.action)).toEqual(
      expect.arrayContaining(['actions/upload-artifact', 'actions/download-artifact'])
    )
    for (const { action, pin } of used) expect({ action, pin }).toEqual({ action, pin: PINS[action] })
    for (const line of usesLines(readme).filter(l => !l.includes('m2m-org/m2m-targets-action'))) {
      expect({ line, problems: pinProblems(line) }).toEqual({ line, problems: [] })
    }
  })

  it('holds the workflows to the same list', () => {
    for (const file of files) {
      for (const { action, pin } of pinsIn(readFileSync(join(DIR, file), 'utf8'))) {
        expect({ file, action, pin }).toEqual({ file, action, pin: PINS[action] })
      }
    }
  })
})

describe('jobs that may write', () => {
  it('run no third-party code: no npm, npx, node or setup step, and no action but checkout', () => {
    const writers: string[] = []
    for (const file of files) {
      const workflow = parse(readFileSync(join(DIR, file), 'utf8')) as { jobs: Record<string, WriteJob> }
      for (const [name, job] of Object.entries(workflow.jobs)) {
        // security-events: write only uploads CodeQL's findings; every other write can change what users run.
        const permissions =
          job.permissions && typeof job.permissions === 'object' ? Object.entries(job.permissions) : []
        if (!permissions.some(([scope, level]) => level === 'write' && scope !== 'security-events')) continue
        writers.push(`${file}:${name}`)
        for (const step of job.steps ?? []) {
          const uses = step.uses?.split('@')[0]
          expect({ job: name, uses: uses ?? 'actions/checkout' }).toEqual({ job: name, uses: 'actions/checkout' })
          expect({ job: name, run: step.run ?? '' }).not.toEqual({
            job: name,
            run: expect.stringMatching(/\b(npm|npx|node|yarn|pnpm)\b/)
          })
        }
      }
    }
    expect(writers).toContain('release.yml:publish')
  })
})

interface WriteJob {
  readonly permissions?: unknown
  readonly steps?: { uses?: string; run?: string }[]
}
