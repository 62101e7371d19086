import { Refusals } from '../../src/routine/refusals.js'

describe('Refusals', () => {
  it('says nothing when nothing was refused', () => {
    const refusals = new Refusals()
    expect(refusals.message('report-from', 'x')).toBeUndefined()
    expect(refusals).toMatchObject({ count: 0, forged: false })
  })

  it('names each file and why, the kinds once, and what follows', () => {
    const refusals = new Refusals()
    refusals.file('a.jsonl', { reason: 'run', detail: 'of run "9", not this run (1)', fromLine: 1 })
    refusals.file('b\nc.jsonl', { reason: 'altered', detail: 'altered after it was written', fromLine: 12 })
    refusals.file('d.jsonl', { reason: 'run', detail: 'of run "9", not this run (1)', fromLine: 1 })
    expect(refusals.message('report-from', 'their targets count as missing')).toBe(
      '3 results files were not counted (report-from), being of another workflow run; altered after they were written: ' +
        '"a.jsonl" (of run "9", not this run (1)), "bc.jsonl" (from line 12: altered after it was written), ' +
        '"d.jsonl" (of run "9", not this run (1)); their targets count as missing.'
    )
    expect(refusals.forged).toBe(true)
  })

  it('names five files at most, and counts the rest', () => {
    const refusals = new Refusals()
    for (let i = 0; i < 7; i++) refusals.file(`f${i}`, { reason: 'snapshot', detail: 'x', fromLine: 1 })
    expect(refusals.message('call-resume-from', 'called again')).toMatch(/"f4" \(x\) and 2 more; called again\.$/)
    expect(refusals.forged).toBe(false)
  })

  it('counts refused lines, and takes them as a sign of forgery', () => {
    const refusals = new Refusals()
    refusals.lines('a', 2)
    refusals.lines('b', 1)
    expect(refusals.message('report-from', 'so')).toBe(
      "3 result lines were not counted: another call, attempt or shard than their file's header, or a later attempt; so."
    )
    expect(refusals.forged).toBe(true)
    const one = new Refusals()
    one.lines('a', 1)
    one.file('b', { reason: 'unsigned', detail: 'unsigned', fromLine: 1 })
    expect(one.message('x', 'y')).toBe(
      '1 results file was not counted (x), being unsigned by the run’s record key: "b" (unsigned); 1 result line was not counted: another call, attempt or shard than their file\'s header, or a later attempt; y.'
    )
  })
})
