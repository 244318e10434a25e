import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { configDefaults, defineConfig } from 'vitest/config';
import { entryPoints } from './scripts/entry-points.mjs';
import { HEAVY_TAG, laneConfig, laneFromEnv } from './test/helpers/lanes.js';

const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
const ROOT = fileURLToPath(new URL('.', import.meta.url));

// The lane (test/helpers/lanes.ts): `npm test` runs `default`, `npm run test:quick` `quick`,
// `npm run test:slow` `slow`; OCTX_TEST_LANE=all runs every file.
const lanes = laneConfig(laneFromEnv(process.env.OCTX_TEST_LANE), ROOT);

const resolve = {
  // Examples and tests import the package and its sub-path entry points by name, as users do;
  // resolve each to its source, from the one list (package.json `exports`, through
  // scripts/entry-points.mjs). Exact patterns: a plain 'octx-export' key would also rewrite the
  // prefix of 'octx-export/adapters/…'.
  alias: entryPoints().map((e) => ({ find: new RegExp(`^${escape(e.specifier)}$`), replacement: fileURLToPath(new URL(`./${e.source}`, import.meta.url)) })),
};

/** What every test file runs with, in every lane and project. */
const common = {
  setupFiles: ['test/per-file-setup.ts'],
  tags: [{ name: HEAVY_TAG, description: 'in-process work of several seconds: not in the quick lane (test/helpers/lanes.ts)' }],
  // Exports write real files and spawn the CLI; give slow 2-core CI machines room.
  testTimeout: 60_000,
  hookTimeout: 60_000,
  pool: 'forks' as const,
  // One test file per core (vitest's default leaves one core to itself: on 2 cores, one file at
  // a time). Most files wait on child processes and the disk for part of their time, and the
  // main process is idle while they run.
  maxWorkers: Math.max(2, availableParallelism()),
  // The sources compiled once per run (test/helpers/compiled-sources.ts, in the broker's folder
  // `resource-compiled-sources`) load natively in a test file that runs the CLI in-process
  // (test/cli/run-cli.ts): the same JavaScript a spawned CLI runs, without vite's transform.
  server: { deps: { external: [/[\\/]resource-compiled-sources[\\/]package[\\/]src[\\/]/] } },
};

export default defineConfig({
  resolve,
  test: {
    ...common,
    include: lanes.include,
    exclude: [...configDefaults.exclude, ...lanes.exclude],
    // Once per run, in the main process (also when the lane is split into projects below).
    globalSetup: ['test/global-setup.ts'],
    // The quick lane's two projects (test/helpers/lanes.ts), each configured in full: a project
    // that extended this configuration would also run the global setup, once more per project.
    ...(lanes.projects && { projects: lanes.projects.map((p) => ({ resolve, test: { ...common, name: p.name, isolate: p.isolate, include: p.include } })) }),
  },
});
