/**
 * Rewrites the prebuilt SAG engine databases under fixtures/sag/ (read by the from-sag help
 * examples and docs/cli.md) from test/adapters/sag-fixture.ts:
 *
 *   npx tsx test/adapters/write-sag-fixtures.ts
 *
 * test/adapters/sag-fixture-files.test.ts fails when they differ from what this would write.
 */
import { mkdirSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { createSagDatabase, SAG_FIXTURE_DB } from './sag-fixture.js';

const root = resolve(import.meta.dirname, '../..');
for (const gen of [1, 2] as const) {
  const path = join(root, SAG_FIXTURE_DB[gen]);
  mkdirSync(dirname(path), { recursive: true });
  rmSync(path, { force: true });
  createSagDatabase(path, gen);
  console.log(`wrote ${SAG_FIXTURE_DB[gen]}`);
}
