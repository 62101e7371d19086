import { execFileSync, spawnSync } from 'node:child_process'
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
// @ts-expect-error: plain JavaScript, run by the release workflow before npm ci
import { changelogSection, promoteUnreleased, releaseProblems } from '../scripts/release.js'

const section = changelogSection as (changelog: string, version: string) => string | undefined
const problems = releaseProblems as (tag: string, files: { packageVersion: string; changelog: string }) => string[]
const promote = promoteUnreleased as (changelog: string, version: string, date: string) => string

const CHANGELOG = `# Changelog

## [Unreleased]

### Fixed
- A thing.

## [1.1.0] - 2026-12-01

### Added
- Shards.

## [1.0.0] - 2026-11-22

The first release.

[1.1.0]: https://example.test/compare/v1.0.0...v1.1.0
[1.0.0]: https://example.test/releases/tag/v1.0.0
`

describe('release notes and checks', () => {
  it('takes a version section, without the next one or the link references', () => {
    expect(section(CHANGELOG, '1.1.0')).toBe('### Added\n- Shards.')
    expect(section(CHANGELOG, '1.0.0')).toBe('The first release.')
    expect(section(CHANGELOG, '9.9.9')).toBeUndefined()
  })

  it('accepts a tag that package.json and the CHANGELOG agree on', () => {
    expect(problems('v1.1.0', { packageVersion: '1.1.0', changelog: CHANGELOG })).toEqual([])
  })

  it.each([
    ['1.1.0', '1.1.0', /not vMAJOR.MINOR.PATCH/],
    ['v1.1', '1.1.0', /not vMAJOR.MINOR.PATCH/],
    ['v1.1.0', '1.0.0', /package.json has version 1.0.0, not 1.1.0/],
    ['v1.2.0', '1.2.0', /no "## \[1.2.0\] - YYYY-MM-DD" section/]
  ])('refuses %s with package.json %s', (tag, packageVersion, problem) => {
    expect(problems(tag, { packageVersion, changelog: CHANGELOG })).toEqual([expect.stringMatching(problem)])
  })

  it('moves the Unreleased notes under a new dated version', () => {
    const next = promote(CHANGELOG, '1.1.1', '2026-12-24')
    expect(section(next, '1.1.1')).toBe('### Fixed\n- A thing.')
    expect(section(next, 'Unreleased')).toBe('')
    expect(section(next, '1.1.0')).toBe('### Added\n- Shards.')
    expect(() => promote(next, '1.1.2', '2026-12-25')).toThrow('The Unreleased section of CHANGELOG.md is empty')
  })

  it("finds this repository's package.json version in its CHANGELOG", () => {
    const { version } = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string }
    expect(
      problems(`v${version}`, { packageVersion: version, changelog: readFileSync('CHANGELOG.md', 'utf8') })
    ).toEqual([])
  })
})

describe('release:prepare', () => {
  const real = `# Changelog

## [Unreleased]

### Added
- Calls.

## [1.0.0] - 2026-11-22

The first release.

[Unreleased]: https://github.com/o/r/compare/v1.0.0...HEAD
[1.0.0]: https://github.com/o/r/releases/tag/v1.0.0
`

  it('updates the link references: Unreleased compares from the new version, which links to its release', () => {
    const out = promote(real, '1.1.0', '2026-12-01')
    expect(out).toContain('## [Unreleased]\n\n## [1.1.0] - 2026-12-01\n\n### Added\n- Calls.\n\n## [1.0.0]')
    expect(out).toContain(
      '[Unreleased]: https://github.com/o/r/compare/v1.1.0...HEAD\n[1.1.0]: https://github.com/o/r/releases/tag/v1.1.0\n[1.0.0]: https://github.com/o/r/releases/tag/v1.0.0'
    )
  })

  it('says, with no stack trace, that an empty Unreleased section has nothing to release', () => {
    const empty = real.replace('### Added\n- Calls.\n\n', '')
    expect(() => promote(empty, '1.1.0', '2026-12-01')).toThrow(
      'The Unreleased section of CHANGELOG.md is empty: say what changed first'
    )
    // run as npm run release:prepare would, in a copy with that CHANGELOG
    const dir = mkdtempSync(join(tmpdir(), 'm2m-release-'))
    try {
      mkdirSync(join(dir, 'scripts'))
      copyFileSync('scripts/release.js', join(dir, 'scripts', 'release.js'))
      writeFileSync(join(dir, 'CHANGELOG.md'), empty)
      writeFileSync(join(dir, 'package.json'), '{"type":"module","version":"1.0.0"}')
      execFileSync('git', ['init', '-q'], { cwd: dir })
      execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', 'add', '.'], { cwd: dir })
      execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'x'], { cwd: dir })
      const run = spawnSync(process.execPath, ['scripts/release.js', 'prepare', '1.1.0'], {
        cwd: dir,
        encoding: 'utf8'
      })
      expect(run.status).toBe(1)
      expect(run.stderr).toBe('The Unreleased section of CHANGELOG.md is empty: say what changed first\n')
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
