/**
 * The prebuilt SAG engine databases under fixtures/sag/ (read by the from-sag help examples and
 * docs/cli.md) hold exactly what test/adapters/sag-fixture.ts builds from the table definitions
 * next to them. Regenerate them with `npx tsx test/adapters/write-sag-fixtures.ts`.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { ROOT, tempDir } from '../helpers/temp.js';
import { createSagDatabase, SAG_FIXTURE_DB } from './sag-fixture.js';

/** Every table's definition and rows, in a stable order. */
function contents(path: string): Record<string, unknown> {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    const tables = db.prepare("SELECT name, sql FROM sqlite_master WHERE type IN ('table', 'index') AND sql IS NOT NULL ORDER BY type, name").all() as {
      name: string;
      sql: string;
    }[];
    const out: Record<string, unknown> = {};
    for (const t of tables) {
      out[`schema:${t.name}`] = t.sql;
      if (t.sql.startsWith('CREATE TABLE')) out[`rows:${t.name}`] = db.prepare(`SELECT * FROM "${t.name}" ORDER BY rowid`).all();
    }
    return out;
  } finally {
    db.close();
  }
}

describe('prebuilt SAG fixture databases', () => {
  it.each([1, 2] as const)('schema generation %i: the shipped file equals a fresh build', (gen) => {
    const fresh = join(tempDir(), 'sag.db');
    createSagDatabase(fresh, gen);
    const shipped = contents(join(ROOT, SAG_FIXTURE_DB[gen]));
    expect(Object.keys(shipped).length).toBeGreaterThan(20);
    expect(shipped).toEqual(contents(fresh));
  });
});
