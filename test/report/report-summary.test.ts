import { MergedReport, ReportOutcome, ShardRow } from '../../src/report/merge.js'
import { renderReportSummary } from '../../src/report/report-summary.js'
import { mask } from '../../src/secrets.js'

const map = <K extends string>(entries: Partial<Record<K, number>>) => new Map(Object.entries(entries) as [K, number][])
const row = (shard: string, counts: Partial<Record<ReportOutcome, number>>): ShardRow => ({
  shard,
  counts: map(counts)
})

const report = (overrides: Partial<MergedReport> = {}): MergedReport => ({
  targets: 600,
  counts: map<ReportOutcome>({ succeeded: 600 }),
  byStatus: map({ 'HTTP 201': 600 }),
  shardCount: 1,
  shards: [row('1/1', { succeeded: 600 })],
  failures: [],
  missingShards: [],
  shardsToRerun: [],
  reportFile: '/tmp/report-0123456789ab.jsonl',
  complete: true,
  fingerprint: '0123456789abcdef',
  from: 'results',
  found: true,
  files: 1,
  lines: 600,
  countedLines: 600,
  unreadable: [],
  otherCallLines: 0,
  notInSnapshot: 0,
  forged: false,
  ...overrides
})

const WHERE =
  'Every target has a line in the file of the `report-file` output: its key, outcome, status, attempt and shard.'

describe('renderReportSummary', () => {
  it('leads with all done and the counts without zeros; one status is not tabled', () => {
    expect(renderReportSummary(report())).toBe(
      [
        '## Report: all 600 targets done',
        '',
        '**600 succeeded**, from 1 results file (600 lines).',
        '',
        WHERE,
        ''
      ].join('\n')
    )
  })

  it('puts the shards with targets not done first, folds the others, and names the missing shards', () => {
    const text = renderReportSummary(
      report({
        counts: map<ReportOutcome>({ succeeded: 481, skipped: 8, failed: 7, unknown: 2, missing: 102 }),
        byStatus: map({ 'HTTP 201': 489, 'HTTP 500': 7, 'no response': 2 }),
        shardCount: 6,
        shards: [
          row('1/6', { succeeded: 100 }),
          row('2/6', { succeeded: 91, failed: 7, unknown: 2 }),
          row('3/6', { missing: 100 }),
          row('4/6', { succeeded: 92, skipped: 8 }),
          row('5/6', { succeeded: 98, missing: 2 }),
          row('6/6', { succeeded: 100 })
        ],
        missingShards: ['3/6', '5/6'],
        shardsToRerun: ['2/6', '3/6', '5/6'],
        files: 5,
        lines: 520
      })
    )
    expect(text).toBe(
      [
        '## Report over 6 shards: 111 of 600 targets not done',
        '',
        '**481 succeeded, 7 failed, 2 unknown, 102 missing, 8 skipped (done in an earlier attempt)**, from 5 results files (520 lines).',
        '',
        '**Shards to re-run**: 2/6, 3/6, 5/6.',
        '',
        '| status | targets |',
        '| --- | ---: |',
        '| HTTP 201 | 489 |',
        '| HTTP 500 | 7 |',
        '| no response | 2 |',
        '',
        '### Shards',
        '',
        '| shard | targets | succeeded | skipped (done in an earlier attempt) | failed | unknown | missing |',
        '| --- | ---: | ---: | ---: | ---: | ---: | ---: |',
        '| 2/6 | 100 | 91 | 0 | 7 | 2 | 0 |',
        '| 3/6 | 100 | 0 | 0 | 0 | 0 | 100 |',
        '| 5/6 | 100 | 98 | 0 | 0 | 0 | 2 |',
        '',
        '<details><summary>The other 3 shards have every target done</summary>',
        '',
        '| shard | targets | succeeded | skipped (done in an earlier attempt) |',
        '| --- | ---: | ---: | ---: |',
        '| 1/6 | 100 | 100 | 0 |',
        '| 4/6 | 100 | 92 | 8 |',
        '| 6/6 | 100 | 100 | 0 |',
        '',
        '</details>',
        '',
        'Missing targets (no line in any results file: a shard that died, was cancelled before writing, or whose artifact is absent) are in shards 3/6, 5/6.',
        '',
        WHERE,
        ''
      ].join('\n')
    )
  })

  it('folds every shard when all are done', () => {
    const text = renderReportSummary(
      report({ shardCount: 2, shards: [row('1/2', { succeeded: 300 }), row('2/2', { succeeded: 300 })] })
    )
    expect(text).toContain('<details><summary>All 2 shards have every target done</summary>')
    expect(text).not.toContain('| missing |')
  })

  it('says without a snapshot that missing targets cannot be seen', () => {
    const text = renderReportSummary(
      report({ complete: false, counts: map<ReportOutcome>({ succeeded: 599, 'not-made': 1 }), targets: 600 })
    )
    expect(text.split('\n').slice(0, 5)).toEqual([
      '## Report: 1 of 600 targets seen not done',
      '',
      '**599 succeeded, 1 not made**, from 1 results file (600 lines).',
      '',
      'Missing targets cannot be seen: this report counts only the targets that have a line in the results files. ' +
        'Pass `targets-from` and `targets-digest` (the snapshot the shards read) to account for every target.'
    ])
  })

  it.each<[Partial<MergedReport>, string]>([
    [{ targets: 0, counts: new Map(), byStatus: new Map(), shards: [] }, '## Report: the snapshot holds no target'],
    [
      { targets: 0, counts: new Map(), byStatus: new Map(), shards: [], complete: false },
      '## Report: no result line was read'
    ],
    [{ complete: false }, '## Report: all 600 targets seen done']
  ])('heads %j with %s', (overrides, head) => {
    expect(renderReportSummary(report(overrides)).split('\n')[0]).toBe(head)
  })

  it('says why no result line was read, its paths inert, and heads a report of unknown shards as one', () => {
    const text = renderReportSummary(
      report({
        targets: 6,
        counts: map<ReportOutcome>({ missing: 6 }),
        byStatus: new Map(),
        shardCount: undefined,
        shards: [],
        from: 'dl/*_results',
        found: false,
        files: 0,
        lines: 0,
        countedLines: 0
      })
    )
    expect(text.split('\n').slice(0, 5)).toEqual([
      '## Report: 6 of 6 targets not done',
      '',
      '**6 missing**, from 0 results files (0 lines).',
      '',
      '**No result line was read.** Input report-from\\: dl/\\*\\_results does not exist, so no result line was read. ' +
        "Check the download step before this one\\: its path should be that folder, and its pattern should match the shards' results artifacts \\(results-\\* in the README\\). " +
        'All 6 targets of targets-from are missing, in no shard\\: without a result line nothing says how many shards the run had, so shards-to-rerun is empty.'
    ])
    expect(renderReportSummary(report({ countedLines: 1 }))).not.toContain('No result line')
  })

  it('reads a re-run as done: the skipped targets were done in an earlier attempt', () => {
    const text = renderReportSummary(
      report({
        counts: map<ReportOutcome>({ succeeded: 161, skipped: 339 }),
        targets: 500,
        byStatus: map({ 'HTTP 200': 500 })
      })
    )
    expect(text.split('\n').slice(0, 3)).toEqual([
      '## Report: all 500 targets done',
      '',
      '**161 succeeded, 339 skipped (done in an earlier attempt)**, from 1 results file (600 lines).'
    ])
  })

  it('lists the failures with a name column when a line named its target', () => {
    const text = renderReportSummary(
      report({
        counts: map<ReportOutcome>({ succeeded: 598, failed: 2 }),
        failures: [
          { key: 't-1', name: 'build-01', status: 'HTTP 409', outcome: 'failed', said: 'profile "nightly" is locked' },
          { key: 't-2', status: 'HTTP 500', outcome: 'failed', said: '' }
        ]
      })
    )
    expect(text).toContain(
      [
        '| target | name | status | what the service said |',
        '| --- | --- | --- | --- |',
        '| t-1 | build-01 | HTTP 409 | profile "nightly" is locked |',
        '| t-2 |  | HTTP 500 |  |'
      ].join('\n')
    )
  })

  it('lists the failures, unknown ones marked, and says when there are more', () => {
    const text = renderReportSummary(
      report({
        counts: map<ReportOutcome>({ succeeded: 597, failed: 2, unknown: 1 }),
        failures: [
          { key: 't-1', status: 'HTTP 500', outcome: 'failed', said: '{"error":"boom"}' },
          { key: 't-2', status: 'no response', outcome: 'unknown', said: 'timed out' }
        ]
      })
    )
    expect(text).toContain(
      [
        '### Failed or unknown (the first 2)',
        '',
        '| target | status | what the service said |',
        '| --- | --- | --- |',
        '| t-1 | HTTP 500 | {"error"\\:"boom"} |',
        '| t-2 | unknown, no response | timed out |'
      ].join('\n')
    )
  })

  it('names what was not counted', () => {
    const unreadable = Array.from({ length: 12 }, (_, i) => `/r/f${i}.jsonl`)
    const text = renderReportSummary(report({ unreadable, otherCallLines: 1200, notInSnapshot: 3 }))
    expect(text).toContain(
      `**Not counted** (see the warnings): 12 results files with a line that is not a result line (${unreadable
        .slice(0, 10)
        .map(f => f.replace(/_/g, '\\_'))
        .join(', ')} and 2 more); 1,200 lines of another call; the lines of 3 targets not in the snapshot.`
    )
  })

  it('without a snapshot shows no missing column, and sorts the statuses by count', () => {
    const text = renderReportSummary(
      report({
        complete: false,
        targets: 10,
        counts: map<ReportOutcome>({ succeeded: 6, failed: 1, unknown: 1, 'not-made': 2 }),
        byStatus: map({ 'HTTP 500': 1, 'no response': 1, 'HTTP 201': 6 }),
        shardCount: 2,
        shards: [
          row('1/2', { succeeded: 3, failed: 1, 'not-made': 1 }),
          row('2/2', { succeeded: 3, unknown: 1, 'not-made': 1 })
        ],
        failures: [
          { key: 't-1', status: 'HTTP 500', outcome: 'failed', said: 'boom' },
          { key: 't-2', status: 'no response', outcome: 'unknown', said: 'timed out' }
        ],
        shardsToRerun: ['1/2', '2/2'],
        files: 2,
        lines: 12,
        unreadable: ['/r/bad.jsonl']
      })
    )
    expect(text).toBe(
      [
        '## Report over 2 shards: 4 of 10 targets seen not done',
        '',
        '**6 succeeded, 1 failed, 1 unknown, 2 not made**, from 2 results files (12 lines).',
        '',
        'Missing targets cannot be seen: this report counts only the targets that have a line in the results files. ' +
          'Pass `targets-from` and `targets-digest` (the snapshot the shards read) to account for every target.',
        '',
        '**Shards to re-run**: 1/2, 2/2.',
        '',
        '| status | targets |',
        '| --- | ---: |',
        '| HTTP 201 | 6 |',
        '| HTTP 500 | 1 |',
        '| no response | 1 |',
        '',
        '### Shards',
        '',
        '| shard | targets | succeeded | failed | unknown | not made |',
        '| --- | ---: | ---: | ---: | ---: | ---: |',
        '| 1/2 | 5 | 3 | 1 | 0 | 1 |',
        '| 2/2 | 5 | 3 | 0 | 1 | 1 |',
        '',
        '### Failed or unknown',
        '',
        '| target | status | what the service said |',
        '| --- | --- | --- |',
        '| t-1 | HTTP 500 | boom |',
        '| t-2 | unknown, no response | timed out |',
        '',
        '**Not counted** (see the warnings): 1 results file with a line that is not a result line (/r/bad.jsonl).',
        '',
        WHERE,
        ''
      ].join('\n')
    )
  })

  it('shows no status table when no call was made, and names one missing shard', () => {
    const text = renderReportSummary(
      report({
        targets: 4,
        counts: map<ReportOutcome>({ missing: 4 }),
        byStatus: new Map(),
        shards: [row('1/1', { missing: 4 })],
        missingShards: ['1/1'],
        shardsToRerun: ['1/1'],
        files: 0,
        lines: 0
      })
    )
    expect(text).toBe(
      [
        '## Report: 4 of 4 targets not done',
        '',
        '**4 missing**, from 0 results files (0 lines).',
        '',
        '**Shards to re-run**: 1/1.',
        '',
        'Missing targets (no line in any results file: a shard that died, was cancelled before writing, or whose artifact is absent) are in shard 1/1.',
        '',
        WHERE,
        ''
      ].join('\n')
    )
  })

  it('folds one shard with every target done in the singular', () => {
    const text = renderReportSummary(
      report({
        shardCount: 3,
        counts: map<ReportOutcome>({ succeeded: 590, failed: 1, missing: 9 }),
        shards: [
          row('1/3', { succeeded: 200 }),
          row('2/3', { succeeded: 199, failed: 1 }),
          row('3/3', { succeeded: 191, missing: 9 })
        ]
      })
    )
    expect(text).toContain(
      [
        '| shard | targets | succeeded | failed | unknown | missing |',
        '| --- | ---: | ---: | ---: | ---: | ---: |',
        '| 2/3 | 200 | 199 | 1 | 0 | 0 |',
        '| 3/3 | 200 | 191 | 0 | 0 | 9 |',
        '',
        '<details><summary>The other 1 shard has every target done</summary>',
        '',
        '| shard | targets | succeeded |',
        '| --- | ---: | ---: |',
        '| 1/3 | 200 | 200 |',
        '',
        '</details>'
      ].join('\n')
    )
  })

  it('names ten unreadable files without "and more"', () => {
    const unreadable = Array.from({ length: 10 }, (_, i) => `/r/f${i}.jsonl`)
    const text = renderReportSummary(report({ unreadable }))
    expect(text).toContain(
      `\n\n**Not counted** (see the warnings): 10 results files with a line that is not a result line (${unreadable.join(', ')}).\n`
    )
  })

  it('keeps hostile values inert: no command, HTML, link or image', () => {
    mask('summary-secret-54')
    const hostile = ['::error::x', '<img src=x>', '[a](http://e)', '![i](http://e/i.png)', 'x\n::warning::y']
    const text = renderReportSummary(
      report({
        counts: map<ReportOutcome>({ succeeded: 595, failed: 5 }),
        failures: hostile.map(key => ({
          key,
          status: 'HTTP 500',
          outcome: 'failed' as const,
          said: `${key} summary-secret-54`
        })),
        unreadable: ['/r/<b>x</b>.jsonl']
      })
    )
    expect(text).not.toMatch(/^::/m)
    expect(text).not.toMatch(/(?<!\\)(<img|<b>|\]\(|!\[)/)
    expect(text).toContain('| \\:\\:error\\:\\:x | HTTP 500 | \\:\\:error\\:\\:x \\*\\*\\* |')
    expect(text).toContain('\\<img src=x\\>')
    expect(text).toContain('\\[a\\]\\(http\\://e\\)')
    expect(text).not.toContain('summary-secret-54')
  })

  it('stays under 1 MiB at 256 shards, each with targets not done, and 50 long failures', () => {
    const shards = Array.from({ length: 256 }, (_, i) =>
      row(`${i + 1}/256`, {
        succeeded: 3_000_000,
        skipped: 1_000_000,
        failed: 10_000,
        unknown: 10_000,
        'not-made': 10_000,
        missing: 10_000
      })
    )
    const long = '<&|*_[`'.repeat(1_000)
    const text = renderReportSummary(
      report({
        targets: 1_000_000_000,
        counts: map<ReportOutcome>({ succeeded: 1, skipped: 1, failed: 1, unknown: 1, 'not-made': 1, missing: 1 }),
        byStatus: new Map(Array.from({ length: 900 }, (_, i) => [`HTTP ${100 + i}`, 1])),
        shardCount: 256,
        shards,
        failures: Array.from({ length: 50 }, () => ({
          key: long,
          status: 'HTTP 500',
          outcome: 'failed' as const,
          said: long
        })),
        missingShards: shards.map(s => s.shard),
        shardsToRerun: shards.map(s => s.shard),
        unreadable: Array.from({ length: 10_000 }, () => `/${long}`),
        otherCallLines: 1,
        notInSnapshot: 1
      })
    )
    expect(text.split('\n').filter(l => l.startsWith('| ') && l.includes('/256 |'))).toHaveLength(256)
    expect(Buffer.byteLength(text)).toBeLessThan(1024 * 1024)
    expect(Buffer.byteLength(text)).toBeLessThan(200 * 1024)
  })
})
