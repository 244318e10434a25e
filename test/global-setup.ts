import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { startResourceBroker } from './helpers/shared-resources.js';

/**
 * Once per test run, in vitest's main process:
 *
 * - one private temporary root (TMPDIR, inherited by the forked workers and by the processes
 *   tests spawn), removed at the end. Builders that a test abandons without `dispose()` remove
 *   their spill folder on process exit, but vitest ends its workers without an 'exit' event, so
 *   without this each run left dozens of folders in /tmp;
 * - the broker of the shared resources (test/helpers/shared-resources.ts: compiled sources,
 *   a headless Chromium), started lazily when a test file first asks for one and
 *   stopped here; its address is handed to the test files with `provide` (read with `inject`).
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const root = mkdtempSync(join(tmpdir(), 'octx-vitest-'));
  process.env.TMPDIR = root;
  const broker = await startResourceBroker(join(root, 'shared'));
  project.provide('resourceBroker', broker.address);
  return async () => {
    try {
      await broker.close();
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  };
}
