import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const src = (path: string): string => fileURLToPath(new URL(`./src/${path}`, import.meta.url));

export default defineConfig({
  resolve: {
    // Examples and tests import the package and its adapter entry points by name, as users do;
    // resolve them to the sources (the same map as `paths` in tsconfig.json and `exports` in
    // package.json). Exact patterns: a plain 'octx-export' key would also rewrite the prefix of
    // 'octx-export/adapters/…'.
    alias: [
      { find: /^octx-export$/, replacement: src('index.ts') },
      { find: /^octx-export\/adapters\/rag$/, replacement: src('adapters/rag/index.ts') },
      { find: /^octx-export\/adapters\/ingest$/, replacement: src('adapters/ingest/index.ts') },
      { find: /^octx-export\/adapters\/sag$/, replacement: src('adapters/sag/index.ts') },
    ],
  },
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    // Exports write real files and spawn the CLI; give slow 2-core CI machines room.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
  },
});
