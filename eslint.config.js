// ESLint flat config (ESLint 9; ESLint 10 needs Node >= 20.19 and the package supports 20.15).
// Typed linting (recommendedTypeChecked) over src/, test/, examples/, bench/: about 20-30 s single-threaded on a 2-core machine (--concurrency=2 is slower).
// Layout is Prettier's job (.prettierrc.json); nothing here checks formatting.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: ['dist/', 'node_modules/', 'out/', 'coverage/', '.bench-tmp/', '**/fixtures/'],
  },
  {
    // A stale `eslint-disable` hides nothing and misleads the reader.
    linterOptions: { reportUnusedDisableDirectives: 'error' },
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        // The TypeScript program of tsconfig.json (which includes src, test, examples, bench, vitest.config.ts).
        projectService: true,
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      // Real bugs: a promise nobody awaits or catches, or a promise where a void callback is expected.
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      // `return promise` inside try/catch/finally skips the catch and runs the finally too early.
      '@typescript-eslint/return-await': ['error', 'in-try-catch'],
      // A switch over a union that forgets a member (unless it has a default).
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      eqeqeq: ['error', 'smart'],
      // verbatimModuleSyntax is on: an import used only as a type must say `type`, or it survives into the JS.
      '@typescript-eslint/consistent-type-imports': ['error', { prefer: 'type-imports', fixStyle: 'inline-type-imports', disallowTypeAnnotations: true }],
      // The code marks deliberately unused parameters and bindings with a leading underscore.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_', ignoreRestSiblings: true }],

      // Deliberate style, not bugs:
      // `arr[i]!` on typed arrays under noUncheckedIndexedAccess.
      '@typescript-eslint/no-non-null-assertion': 'off',
      // Bit twiddling in hashing, CRC, zip and deflate code.
      'no-bitwise': 'off',
      // `async` methods that implement a Promise-returning interface (Embedder.embed, close()) without awaiting.
      '@typescript-eslint/require-await': 'off',
    },
  },
  {
    // The report page runs in a browser: its own TypeScript program (DOM types), bundled by esbuild.
    files: ['src/report/browser/**/*.ts'],
    languageOptions: { parserOptions: { projectService: false, project: './src/report/browser/tsconfig.json', tsconfigRootDir: import.meta.dirname } },
  },
  {
    // Tests and benchmarks poke at parsed JSON (`JSON.parse(...) as Record<string, any>`) on purpose.
    files: ['test/**/*.ts', 'bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  {
    // Plain JavaScript config files (this one, .dependency-cruiser.cjs): not in the TypeScript program.
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs' },
  },
);
