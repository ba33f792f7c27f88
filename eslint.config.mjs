// Type-aware lint: these rules catch what tsc lets through (promises nobody awaits,
// `any` leaking out of JSON.parse and loosely typed libraries), so reviews need not look for it by hand.
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

const UNSAFE_ANY = ['no-unsafe-assignment', 'no-unsafe-member-access', 'no-unsafe-call', 'no-unsafe-return', 'no-unsafe-argument'].map(
  (r) => `@typescript-eslint/${r}`,
);

export default defineConfig(
  // Build output, bench results and generated files are not ours to lint.
  { ignores: ['dist/', 'coverage/', 'node_modules/', '.tmp/', 'bench/results/', 'clients/*.d.ts', 'clients/dist/'] },
  js.configs.recommended,
  tseslint.configs.recommended,
  // CommonJS config files (dependency-cruiser's) run in Node's module scope.
  { files: ['**/*.cjs'], languageOptions: { sourceType: 'commonjs', globals: { module: 'writable', require: 'readonly' } } },
  {
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      ...Object.fromEntries(UNSAFE_ANY.map((r) => [r, 'error'])),
      // The same convention tsc's noUnusedParameters follows: a leading _ marks a deliberately unused name;
      // a rest sibling is named to leave it out of the rest.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true }],
      // Input validation spells out the control characters it refuses; that is the point, not a typo.
      'no-control-regex': 'off',
    },
  },
  {
    // Tests read supertest's `any` response bodies in well over a thousand assertions; a wrong field fails the test anyway.
    // Floating promises and the rest still apply.
    files: ['test/**/*.ts', 'src/**/*.test.ts'],
    rules: { ...Object.fromEntries(UNSAFE_ANY.map((r) => [r, 'off'])), '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    languageOptions: { globals: { module: 'writable', require: 'readonly', process: 'readonly' } },
  },
);
