import { jest } from '@jest/globals'
import { mask } from '../src/secrets.js'
import { QUIET, withoutMaskCommands } from './quiet-stdout.js'

describe('the test output', () => {
  it('carries no ::add-mask:: line of a unit test: each would read as a leaked secret', () => {
    expect(QUIET in process.stdout.write).toBe(true)
    const write = jest.fn((..._args: unknown[]) => true)
    const quiet = withoutMaskCommands(write as unknown as typeof process.stdout.write)
    expect(quiet('::add-mask::s3cret\n')).toBe(true)
    quiet('a log line\n')
    expect(write.mock.calls).toEqual([['a log line\n']])
  })

  it('lets a test that checks the commands see them', () => {
    const written: string[] = []
    const spy = jest.spyOn(process.stdout, 'write').mockImplementation(chunk => {
      written.push(String(chunk))
      return true
    })
    mask('quiet-test-secret-1')
    spy.mockRestore()
    expect(written).toContain('::add-mask::quiet-test-secret-1\n')
    expect(QUIET in process.stdout.write).toBe(true)
  })
})
