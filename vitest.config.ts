import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { entryPoints } from './scripts/entry-points.mjs';

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

export default defineConfig({
  resolve: {
    // Examples and tests import the package and its sub-path entry points by name, as users do;
    // resolve each to its source, from the one list (package.json `exports`, through
    // scripts/entry-points.mjs). Exact patterns: a plain 'octx-export' key would also rewrite the
    // prefix of 'octx-export/adapters/…'.
    alias: entryPoints().map((e) => ({ find: new RegExp(`^${escape(e.specifier)}$`), replacement: fileURLToPath(new URL(`./${e.source}`, import.meta.url)) })),
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
