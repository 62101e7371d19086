import js from '@eslint/js'
import globals from 'globals'
import tseslint from 'typescript-eslint'

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'coverage/', 'reports/', '.stryker-tmp/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      'no-console': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }]
    }
  },
  {
    // nock patches the worker's shared http module on import: only the nock unit tests load it.
    files: ['**/*.ts', '**/*.js'],
    ignores: ['test/nock.test.ts', 'test/nock/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        { paths: [{ name: 'nock', message: 'Only test/nock/ and test/nock.test.ts may import nock.' }] }
      ]
    }
  },
  {
    // Scripts that print to a terminal on purpose.
    files: ['demo/**', 'bench/**', 'scripts/**', 'test/real/**'],
    rules: { 'no-console': 'off' }
  }
)
