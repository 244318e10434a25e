import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig } from 'vitest/config';
import { entryPoints } from './scripts/entry-points.mjs';
import { HEAVY_TAG, laneFromEnv, laneGlobs } from './test/helpers/lanes.js';

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
const ROOT = fileURLToPath(new URL('.', import.meta.url));

// The lane (test/helpers/lanes.ts): `npm test` runs `default`, `npm run test:quick` `quick`,
// `npm run test:slow` `slow`; OCTX_TEST_LANE=all runs every file.
const lanes = laneGlobs(laneFromEnv(process.env.OCTX_TEST_LANE), ROOT);

export default defineConfig({
  resolve: {
    // Examples and tests import the package and its sub-path entry points by name, as users do;
    // resolve each to its source, from the one list (package.json `exports`, through
    // scripts/entry-points.mjs). Exact patterns: a plain 'octx-export' key would also rewrite the
    // prefix of 'octx-export/adapters/…'.
    alias: entryPoints().map((e) => ({ find: new RegExp(`^${escape(e.specifier)}$`), replacement: fileURLToPath(new URL(`./${e.source}`, import.meta.url)) })),
  },
  test: {
    include: lanes.include,
    exclude: [...configDefaults.exclude, ...lanes.exclude],
    tags: [{ name: HEAVY_TAG, description: 'in-process work of several seconds: not in the quick lane (test/helpers/lanes.ts)' }],
    globalSetup: ['test/global-setup.ts'],
    // Exports write real files and spawn the CLI; give slow 2-core CI machines room.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // One test file per core (vitest's default leaves one core to itself: on 2 cores, one file at
    // a time). Most files wait on child processes and the disk for part of their time, and the
    // main process is idle while they run.
    maxWorkers: Math.max(2, availableParallelism()),
  },
});
