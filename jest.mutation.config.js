// The unit and property tests, for `npm run mutation` (StrykerJS): the end-to-end tests run the
// committed bundle, which a mutant of src/ does not change, as does the demo's test; the docs tests
// check no code.
import base from './jest.config.js'

/** @type {import('jest').Config} */
export default {
  ...base,
  testPathIgnorePatterns: [
    '/node_modules/',
    '<rootDir>/test/e2e/',
    '<rootDir>/test/docs.test.ts',
    '<rootDir>/test/demo.test.ts'
  ]
}
