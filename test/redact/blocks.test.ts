import { addWindows, BLOCK, FILTER_BITS, WINDOW, windowed } from '../../src/redact/blocks.js'

const FORM = 'Zq8!mW2#pL5@vN9$xR4%'

function windowsOf(...forms: string[]): Uint32Array {
  const windows = new Uint32Array(1 << (FILTER_BITS - 5))
  for (const form of forms) addWindows(windows, form)
  return windows
}

describe('windowed', () => {
  const windows = windowsOf(FORM)

  it('holds each window of 6 of a form, and says so for a run of 12 through any block of it', () => {
    // A run of 12 of the form, the block looked up at each place of it a block can start.
    for (let from = 0; from + 12 <= FORM.length; from++) {
      for (let pad = 0; pad < 12; pad++) {
        const text = `${'.'.repeat(pad)}${FORM.slice(from, from + 12)}${'.'.repeat(pad)}`
        for (let j = pad; j + BLOCK <= pad + 12; j++)
          expect([from, pad, j, windowed(windows, text, j)]).toEqual([from, pad, j, true])
      }
    }
  })

  it('takes the window before the block, or the one from it, and no other', () => {
    const before = `..${FORM.slice(0, WINDOW)}..` // the block at 5: its window before is the form's
    expect(windowed(windows, before, 5)).toBe(true)
    expect(windowed(windows, `${before.slice(0, 4)}?${before.slice(5)}`, 5)).toBe(false)
    const from = `..${FORM.slice(4, 4 + WINDOW)}..` // the block at 2: the window it starts
    expect(windowed(windows, from, 2)).toBe(true)
    expect(windowed(windows, `${from.slice(0, 7)}?${from.slice(8)}`, 2)).toBe(false)
    // A block of the form whose characters around it are not the form's.
    expect(windowed(windows, `.....${FORM.slice(0, BLOCK)}.....`, 5)).toBe(false)
  })

  it('reads no window that would start before the text or end past it', () => {
    const head = FORM.slice(0, WINDOW)
    expect(windowed(windows, head, 0)).toBe(true)
    expect(windowed(windows, head, 3)).toBe(true)
    // Read past an edge, a character is NaN, which hashes as the character 0 does, or resets the hash.
    expect(windowed(windowsOf('\u0000\u0000\u0000Zq8'), 'Zq8', 0)).toBe(false)
    expect(windowed(windowsOf('\u0000'.repeat(WINDOW)), 'Zq8', 0)).toBe(false)
    expect(windowed(windowsOf('\u0000'.repeat(WINDOW)), '\u0000'.repeat(WINDOW), 0)).toBe(true)
    // A window whose hash is 0, before the block: the one from it is not a form's.
    expect(windowed(windowsOf('\u0000'.repeat(WINDOW)), `${'\u0000'.repeat(WINDOW)}xyz`, 3)).toBe(true)
  })

  it('sets no bit for a form shorter than a window, and one for each window of a longer one', () => {
    const count = (bits: Uint32Array): number =>
      bits.reduce((sum, word) => sum + word.toString(2).replaceAll('0', '').length, 0)
    expect(count(windowsOf(FORM.slice(0, WINDOW - 1)))).toBe(0)
    expect(count(windowsOf(FORM.slice(0, WINDOW)))).toBe(1)
    expect(count(windowsOf(FORM))).toBe(FORM.length - WINDOW + 1)
  })
})
