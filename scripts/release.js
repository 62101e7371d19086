// Release helper (CONTRIBUTING.md, "Releasing"). Node built-ins only: the release workflow runs it
// before npm ci.
//   node scripts/release.js prepare 1.2.3  move CHANGELOG's Unreleased notes under 1.2.3, set the
//                                          package.json version, rebuild dist/; prints what to commit
//   node scripts/release.js check v1.2.3   the tag, package.json and CHANGELOG.md agree (exit 1 if not)
//   node scripts/release.js notes v1.2.3   print that version's CHANGELOG section (the release notes)
import { execFileSync } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const VERSION = /^(\d+)\.(\d+)\.(\d+)$/

/** The body of `## [version]` in a Keep a Changelog text, or undefined. */
export function changelogSection(changelog, version) {
  const lines = changelog.split('\n')
  const start = lines.findIndex(l => l.startsWith(`## [${version}]`))
  if (start < 0) return undefined
  const end = lines.findIndex((l, i) => i > start && l.startsWith('## '))
  const body = lines.slice(start + 1, end < 0 ? undefined : end)
  // The link references at the end of the file belong to no section.
  while (body.length && /^(\[[^\]]+\]: .*|\s*)$/.test(body.at(-1) ?? '')) body.pop()
  return body.join('\n').trim()
}

/** Why a tag cannot be released from these files, or [] when it can. */
export function releaseProblems(tag, { packageVersion, changelog }) {
  const version = tag.replace(/^v/, '')
  if (!tag.startsWith('v') || !VERSION.test(version)) return [`the tag ${tag} is not vMAJOR.MINOR.PATCH`]
  const problems = []
  if (packageVersion !== version) problems.push(`package.json has version ${packageVersion}, not ${version}`)
  const heading = changelog.split('\n').find(l => l.startsWith(`## [${version}]`))
  if (!heading) problems.push(`CHANGELOG.md has no "## [${version}] - YYYY-MM-DD" section`)
  else if (!/ - \d{4}-\d{2}-\d{2}$/.test(heading)) problems.push(`CHANGELOG.md's ${version} heading has no date`)
  else if (!changelogSection(changelog, version)) problems.push(`CHANGELOG.md's ${version} section is empty`)
  return problems
}

/** The changelog with its Unreleased notes moved under a new version heading. */
export function promoteUnreleased(changelog, version, date) {
  const marker = '## [Unreleased]'
  const at = changelog.indexOf(marker)
  if (at < 0) throw new Error('CHANGELOG.md has no "## [Unreleased]" section')
  if (changelog.includes(`## [${version}]`)) throw new Error(`CHANGELOG.md already has a ${version} section`)
  const notes = changelogSection(changelog, 'Unreleased')
  if (!notes) throw new Error('The Unreleased section of CHANGELOG.md is empty: say what changed first')
  const after = changelog.indexOf('\n## ', at + marker.length)
  const rest = after < 0 ? '' : changelog.slice(after + 1)
  return withLinks(`${changelog.slice(0, at)}${marker}\n\n## [${version}] - ${date}\n\n${notes}\n\n${rest}`, version)
}

/**
 * The link references at the end: [Unreleased] compares from the new version, and the new
 * version links to its release, in the form the existing references use.
 */
function withLinks(changelog, version) {
  const unreleased = /^\[Unreleased\]: (\S+\/compare\/)v[^.\s]+\.[^.\s]+\.[^.\s]+\.\.\.HEAD$/m.exec(changelog)
  if (!unreleased) return changelog
  const repo = unreleased[1].replace(/\/compare\/$/, '')
  return changelog.replace(
    unreleased[0],
    `[Unreleased]: ${repo}/compare/v${version}...HEAD\n[${version}]: ${repo}/releases/tag/v${version}`
  )
}

function read(file) {
  return readFileSync(join(root, file), 'utf8')
}

function main([command, arg]) {
  if (command === 'check' && arg) {
    const problems = releaseProblems(arg, {
      packageVersion: JSON.parse(read('package.json')).version,
      changelog: read('CHANGELOG.md')
    })
    for (const p of problems) process.stderr.write(`::error::Cannot release ${arg}: ${p}\n`)
    return problems.length ? 1 : 0
  }
  if (command === 'notes' && arg) {
    const notes = changelogSection(read('CHANGELOG.md'), arg.replace(/^v/, ''))
    if (!notes) {
      process.stderr.write(`CHANGELOG.md has no notes for ${arg}\n`)
      return 1
    }
    process.stdout.write(`${notes}\n`)
    return 0
  }
  if (command === 'prepare' && VERSION.test(arg ?? '')) {
    if (execFileSync('git', ['status', '--porcelain'], { cwd: root, encoding: 'utf8' }).trim()) {
      process.stderr.write('The work tree has changes: commit or stash them first.\n')
      return 1
    }
    const date = new Date().toISOString().slice(0, 10)
    let changelog
    try {
      changelog = promoteUnreleased(read('CHANGELOG.md'), arg, date)
    } catch (err) {
      process.stderr.write(`${err.message}\n`)
      return 1
    }
    writeFileSync(join(root, 'CHANGELOG.md'), changelog)
    execFileSync('npm', ['version', arg, '--no-git-tag-version'], { cwd: root, stdio: 'inherit' })
    execFileSync('npm', ['run', 'bundle'], { cwd: root, stdio: 'inherit' })
    process.stdout.write(
      `\nPrepared ${arg}. Review the diff, run npm test, then:\n` +
        `  git commit -am "Release ${arg}" && git tag -a v${arg} -m v${arg} && git push origin main v${arg}\n` +
        'The release workflow checks the tag, runs the tests, publishes the release and moves the major tag.\n'
    )
    return 0
  }
  process.stderr.write('usage: node scripts/release.js prepare X.Y.Z | check vX.Y.Z | notes vX.Y.Z\n')
  return 2
}

if (process.argv[1] === fileURLToPath(import.meta.url)) process.exitCode = main(process.argv.slice(2))
