import { shard, snapshot, where } from '../../src/inputs/targets.js'
import { captureStdout, setInputs } from '../helpers.js'

const DIGEST = `sha256:${'ab12'.repeat(16)}`

describe('shard', () => {
  it('is absent without the input', () => {
    setInputs({})
    expect(shard('list-targets')).toBeUndefined()
  })

  it('reads K/N as the shards output gives it', () => {
    setInputs({ shard: '3/20' })
    expect(shard('list-targets')).toEqual({ index: 3, count: 20 })
  })

  it.each(['0/5', '6/5', '1/257', 'x'])('refuses %j, naming the input and the form', value => {
    setInputs({ shard: value })
    expect(() => shard('list-targets')).toThrow(
      new Error(
        `Input shard must be K/N with 1 <= K <= N <= 256, as in the shards output (for example 3/20), got "${value}"`
      )
    )
  })

  it('needs the targets listed', () => {
    setInputs({ shard: '1/2', 'list-targets': 'false' })
    expect(() => shard('list-targets')).toThrow(
      new Error('Input shard needs the targets listed: remove shard, or set list-targets to true')
    )
  })
})

describe('snapshot', () => {
  const written = captureStdout()
  const warnings = () => written.filter(l => l.startsWith('::warning::'))

  it('is empty without targets-from', () => {
    setInputs({})
    expect(snapshot('list-targets')).toEqual({ targetsFrom: undefined, targetsDigest: undefined })
  })

  it('reads targets-from, with a digest in lower case', () => {
    setInputs({ 'targets-from': 'snap/', 'targets-digest': DIGEST.toUpperCase().replace('SHA256', 'sha256') })
    expect(snapshot('list-targets')).toEqual({ targetsFrom: 'snap/', targetsDigest: DIGEST })
    setInputs({ 'targets-from': 'snap/' })
    expect(snapshot('list-targets')).toEqual({ targetsFrom: 'snap/', targetsDigest: undefined })
  })

  it('warns once, naming the file and what the digest protects, when targets-from has no digest', () => {
    setInputs({ 'targets-from': 'snap/', 'targets-digest': DIGEST })
    snapshot('list-targets')
    expect(warnings()).toEqual([])
    setInputs({ 'targets-from': 'snap/' })
    snapshot('list-targets')
    expect(warnings()).toEqual([
      '::warning::Input targets-from "snap/" is read without targets-digest, so nothing checks that it is the listing job\'s snapshot, unchanged: ' +
        "an edited file, or another run's, would be taken as the targets. Pass the listing step's targets-digest output as targets-digest.\n"
    ])
  })

  it('says nothing when targets-from is refused anyway', () => {
    setInputs({ 'targets-from': 'snap/', 'list-targets': 'false' })
    expect(() => snapshot('list-targets')).toThrow()
    expect(warnings()).toEqual([])
  })

  it('refuses a digest without targets-from', () => {
    setInputs({ 'targets-digest': DIGEST })
    expect(() => snapshot('list-targets')).toThrow(
      new Error('Input targets-digest checks the file of targets-from: set targets-from too, or remove it')
    )
  })

  it.each([
    DIGEST.slice(0, -1),
    `${DIGEST}0`,
    DIGEST.replace('sha256:', 'sha1:'),
    `x${DIGEST}`,
    DIGEST.replace('a', 'g')
  ])('refuses the digest %j, saying its form', digest => {
    setInputs({ 'targets-from': 'snap/', 'targets-digest': digest })
    expect(() => snapshot('list-targets')).toThrow(
      new Error(
        `Input targets-digest must be sha256: and 64 hex digits, as the targets-digest output gives it, got "${digest}"`
      )
    )
  })

  it('refuses targets-from with list-targets: false, which would leave it unread', () => {
    setInputs({ 'targets-from': 'snap/', 'list-targets': 'false' })
    expect(() => snapshot('list-targets')).toThrow(
      new Error('Input targets-from gives the targets: remove list-targets: false')
    )
  })
})

describe('where', () => {
  it('is absent without the input, and the text as written with it', () => {
    setInputs({})
    expect(where('list-targets')).toBeUndefined()
    setInputs({ 'targets-where': 'status == "retired"' })
    expect(where('list-targets')).toBe('status == "retired"')
  })

  it('needs the targets listed', () => {
    setInputs({ 'targets-where': 'true', 'list-targets': 'false' })
    expect(() => where('list-targets')).toThrow(
      new Error('Input targets-where selects among listed targets: remove it, or set list-targets to true')
    )
  })
})
