/**
 * The SAG adapter's SQLite door (src/adapters/sag/sqlite.ts): node:sqlite where the runtime has
 * it, else the optional better-sqlite3, else OCTX_DEPENDENCY_MISSING with the install command.
 *
 * A missing driver is simulated without uninstalling anything: in-process through the
 * replaceable module loaders, and for the real CLI through a module-resolution hook (given with
 * `--import` in NODE_OPTIONS) that makes `better-sqlite3` and `node:sqlite` unresolvable.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { PackageBuilder } from 'octx-export';
import { BETTER_SQLITE3_INSTALL, loadSqliteDriver } from '../../src/adapters/sag/sqlite.js';
import { readSagDatabase } from '../../src/adapters/sag/from-sag.js';
import { failureAsync } from '../helpers/errors.js';
import { tempDir } from '../helpers/temp.js';
import { spawnCli } from '../cli/run-cli.js';
import { createSagDatabase, SAG } from './sag-fixture.js';

const notFound = (specifier: string) => () => Promise.reject(Object.assign(new Error(`Cannot find package '${specifier}'`), { code: 'ERR_MODULE_NOT_FOUND' }));
const NO_NODE_SQLITE = () => Promise.reject(Object.assign(new Error('No such built-in module: node:sqlite'), { code: 'ERR_UNKNOWN_BUILTIN_MODULE' }));
/** better-sqlite3 installed with --ignore-scripts: the JavaScript loads, the first Database throws. */
const NO_BINDINGS = () =>
  Promise.resolve({
    default: class {
      constructor() {
        throw new Error('Could not locate the bindings file. Tried:\n → build/Release/better_sqlite3.node');
      }
    },
  });

describe('SQLite driver selection', () => {
  it('uses node:sqlite when the runtime has it, else better-sqlite3; both read the same rows read-only', async () => {
    const driver = await loadSqliteDriver();
    let hasBuiltin = false;
    try {
      hasBuiltin = process.getBuiltinModule?.('node:sqlite') !== undefined;
    } catch {
      hasBuiltin = false;
    }
    expect(driver.name).toBe(hasBuiltin ? 'node:sqlite' : 'better-sqlite3');
    const forced = await loadSqliteDriver({ nodeSqlite: NO_NODE_SQLITE });
    expect(forced.name).toBe('better-sqlite3');
    const path = join(tempDir(), 'sag.db');
    createSagDatabase(path, 1);
    for (const d of [driver, forced]) {
      const db = d.open(path);
      try {
        expect(db.prepare('SELECT id FROM article WHERE source_config_id = @source ORDER BY id').all({ source: SAG.source, unused: 1 }).length).toBeGreaterThan(0);
        expect(db.prepare('SELECT COUNT(*) AS n FROM article').get()).toMatchObject({ n: expect.any(Number) });
        expect(() => db.prepare("DELETE FROM article WHERE id = 'x' RETURNING id").all()).toThrow(/readonly|read-only/i);
      } finally {
        db.close();
      }
    }
    expect(() => forced.open(join(tempDir(), 'absent.db'))).toThrow();
  });

  it('without node:sqlite and better-sqlite3: OCTX_DEPENDENCY_MISSING with the install command', async () => {
    const e = await failureAsync(loadSqliteDriver({ nodeSqlite: NO_NODE_SQLITE, betterSqlite3: notFound('better-sqlite3') }));
    expect(e.code).toBe('OCTX_DEPENDENCY_MISSING');
    expect(e.message).toContain(BETTER_SQLITE3_INSTALL);
    expect(BETTER_SQLITE3_INSTALL).toBe('npm install better-sqlite3@12');
    expect(e.message).toContain('Node.js ≥ 22.5');
    expect(e.message).toContain('better-sqlite3 is not installed');
  });

  it('better-sqlite3 without its native part (installed with --ignore-scripts) is a missing dependency too', async () => {
    const e = await failureAsync(loadSqliteDriver({ nodeSqlite: NO_NODE_SQLITE, betterSqlite3: NO_BINDINGS }));
    expect(e.code).toBe('OCTX_DEPENDENCY_MISSING');
    expect(e.message).toContain('native part cannot be loaded (Could not locate the bindings file. Tried:)');
    expect(e.message).toContain(BETTER_SQLITE3_INSTALL);
  });

  it('fromSagDatabase reports the missing driver before touching the database or the builder', async () => {
    const builder = new PackageBuilder({ asset: { name: 'x' } });
    try {
      const e = await failureAsync(
        readSagDatabase(builder, join(tempDir(), 'any.db'), { sourceId: 's' }, { nodeSqlite: NO_NODE_SQLITE, betterSqlite3: notFound('better-sqlite3') }),
      );
      expect(e.code).toBe('OCTX_DEPENDENCY_MISSING');
    } finally {
      await builder.dispose();
    }
  });
});

/** A resolve hook that makes both SQLite drivers unresolvable, registered by a module given to `--import`. */
function hideSqlite(dir: string): string {
  const hooks = join(dir, 'hide-sqlite-hooks.mjs');
  writeFileSync(
    hooks,
    `export async function resolve(specifier, context, nextResolve) {
  if (specifier === 'better-sqlite3' || specifier === 'node:sqlite' || specifier === 'sqlite') {
    const e = new Error(\`Cannot find package '\${specifier}' (hidden by the test)\`);
    e.code = specifier === 'better-sqlite3' ? 'ERR_MODULE_NOT_FOUND' : 'ERR_UNKNOWN_BUILTIN_MODULE';
    throw e;
  }
  return nextResolve(specifier, context);
}
`,
  );
  const register = join(dir, 'hide-sqlite.mjs');
  writeFileSync(register, `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`);
  return register;
}

describe('octx-export from-sag without an SQLite driver (real CLI)', () => {
  it('exits 2 with OCTX_DEPENDENCY_MISSING and the install hint', async () => {
    const tmp = tempDir();
    const db = join(tmp, 'sag.db');
    createSagDatabase(db, 1);
    // A process: the loader hook that hides the driver is a Node option (NODE_OPTIONS), read at start.
    const r = await spawnCli(['from-sag', db, '--source', SAG.source, '-o', join(tmp, 'x.octx'), '--name', 'X'], {
      env: { NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import ${pathToFileURL(hideSqlite(tmp)).href}`.trim() },
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('error[OCTX_DEPENDENCY_MISSING]');
    expect(r.stderr).toContain('npm install better-sqlite3@12');
    expect(r.stderr).toMatch(/hint: .*npm install better-sqlite3@12/);
  });
});
