/**
 * The one door to SQLite for the SAG database adapter: a read-only database with the small API
 * the adapter uses (`prepare(sql).all/get` with named `@name` parameters, `close`).
 *
 * The driver is chosen when a database is opened, never when a module is imported: Node's
 * built-in `node:sqlite` where the runtime has it (Node ≥ 22.13, or ≥ 22.5 with
 * `--experimental-sqlite`), else the optional dependency `better-sqlite3` (the Node 20 path; a
 * native module). When neither loads, `OCTX_DEPENDENCY_MISSING` says what to install.
 */
import { existsSync } from 'node:fs';
import { OctxError } from '../../model/errors.js';

/** One result row: column name → value. */
export type SqliteRow = Record<string, unknown>;
/** Named parameters, bound to `@name` in the SQL. */
export type SqliteParams = Readonly<Record<string, unknown>>;

/** A prepared statement of a {@link ReadOnlyDatabase}. */
export interface ReadOnlyStatement {
  all(params?: SqliteParams): SqliteRow[];
  get(params?: SqliteParams): SqliteRow | undefined;
}

/** A database opened read-only. */
export interface ReadOnlyDatabase {
  /** Which driver opened it. */
  readonly driver: SqliteDriverName;
  prepare(sql: string): ReadOnlyStatement;
  close(): void;
}

/** The SQLite drivers the adapter can use. */
export type SqliteDriverName = 'node:sqlite' | 'better-sqlite3';

/** A loaded driver: opens a file read-only (the file must exist). */
export interface SqliteDriver {
  readonly name: SqliteDriverName;
  open(path: string): ReadOnlyDatabase;
}

/**
 * How each driver's module is imported. Replaceable for tests (to simulate a runtime without
 * `node:sqlite` or an install without `better-sqlite3`); the defaults are plain dynamic imports.
 */
export interface SqliteModuleLoaders {
  readonly nodeSqlite: () => Promise<unknown>;
  readonly betterSqlite3: () => Promise<unknown>;
}

// Specifiers held in variables: no type declarations are needed for either module (node:sqlite
// is not in @types/node 20, better-sqlite3 may be absent), and no bundler or tool follows them.
const NODE_SQLITE: string = 'node:sqlite';
const BETTER_SQLITE3: string = 'better-sqlite3';
const DEFAULT_LOADERS: SqliteModuleLoaders = {
  nodeSqlite: () => import(NODE_SQLITE),
  betterSqlite3: () => import(BETTER_SQLITE3),
};

/** The exact install command printed when no driver is available. */
export const BETTER_SQLITE3_INSTALL = 'npm install better-sqlite3@12';

interface RawStatement {
  all(...params: unknown[]): unknown[];
  get(...params: unknown[]): unknown;
}
interface RawDatabase {
  prepare(sql: string): RawStatement;
  close(): void;
}
type RawConstructor = new (path: string, options?: Record<string, unknown>) => RawDatabase;

/** Only the parameters the SQL names (node:sqlite refuses unknown names; both drivers refuse `{}` for a statement without any). */
function bind(sql: string, params: SqliteParams | undefined): unknown[] {
  if (params === undefined) return [];
  const used = new Set([...sql.matchAll(/[@:$]([A-Za-z_][A-Za-z0-9_]*)/g)].map((m) => m[1]!));
  const picked = Object.fromEntries(Object.entries(params).filter(([k]) => used.has(k)));
  return Object.keys(picked).length === 0 ? [] : [picked];
}

function wrap(raw: RawDatabase, driver: SqliteDriverName): ReadOnlyDatabase {
  return {
    driver,
    prepare(sql) {
      const statement = raw.prepare(sql);
      return {
        all: (params) => statement.all(...bind(sql, params)) as SqliteRow[],
        get: (params) => statement.get(...bind(sql, params)) as SqliteRow | undefined,
      };
    },
    close: () => raw.close(),
  };
}

function constructorOf(module: unknown, name: string): RawConstructor | undefined {
  const m = module as Record<string, unknown> | undefined;
  const c = m?.[name] ?? (m?.default as Record<string, unknown> | undefined)?.[name];
  return typeof c === 'function' ? (c as RawConstructor) : undefined;
}

const isModuleMissing = (e: unknown): boolean => {
  const code = (e as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND' || code === 'ERR_UNKNOWN_BUILTIN_MODULE';
};

/** The native part of better-sqlite3 is absent (installed with --ignore-scripts, no prebuilt binary) or built for another Node. */
const isNativeMissing = (e: unknown): boolean =>
  /bindings file|NODE_MODULE_VERSION|better_sqlite3\.node|invalid ELF|not a valid Win32/i.test(String((e as Error | undefined)?.message ?? e));

function missing(detail: string): OctxError {
  return OctxError.of({
    code: 'OCTX_DEPENDENCY_MISSING',
    message:
      `reading a SAG database needs SQLite, and ${detail}. ` +
      `Install the optional dependency with \`${BETTER_SQLITE3_INSTALL}\` (with install scripts enabled: it downloads a prebuilt binary, or compiles one with a C++ toolchain), ` +
      `or run on Node.js ≥ 22.5, whose built-in node:sqlite is used instead (≥ 22.13; 22.5–22.12 need --experimental-sqlite).`,
  });
}

async function nodeSqlite(load: () => Promise<unknown>): Promise<SqliteDriver | undefined> {
  let module: unknown;
  try {
    module = await load();
  } catch (e) {
    if (isModuleMissing(e)) return undefined;
    throw e;
  }
  const DatabaseSync = constructorOf(module, 'DatabaseSync');
  if (!DatabaseSync) return undefined;
  return {
    name: 'node:sqlite',
    open(path) {
      // node:sqlite has no fileMustExist; readOnly never creates a file, this gives the same message on every version.
      if (!existsSync(path)) throw new Error(`unable to open database file: ${path} does not exist`);
      return wrap(new DatabaseSync(path, { readOnly: true }), 'node:sqlite');
    },
  };
}

async function betterSqlite3(load: () => Promise<unknown>): Promise<SqliteDriver | { missing: string }> {
  let module: unknown;
  try {
    module = await load();
  } catch (e) {
    if (isModuleMissing(e)) return { missing: 'the optional dependency better-sqlite3 is not installed' };
    throw e;
  }
  const m = module as { default?: unknown };
  const Database = (typeof m.default === 'function' ? m.default : module) as RawConstructor;
  if (typeof Database !== 'function') return { missing: 'better-sqlite3 could not be loaded (no Database export)' };
  try {
    // The native addon is loaded by the first constructor call: probe it here so a missing binary is told apart from a bad file.
    new Database(':memory:').close();
  } catch (e) {
    if (isNativeMissing(e))
      return {
        missing: `better-sqlite3 is installed but its native part cannot be loaded (${String((e as Error).message).split('\n')[0]}), e.g. it was installed with --ignore-scripts`,
      };
    throw e;
  }
  return { name: 'better-sqlite3', open: (path) => wrap(new Database(path, { readonly: true, fileMustExist: true }), 'better-sqlite3') };
}

/**
 * The SQLite driver of this runtime: `node:sqlite` when available, else `better-sqlite3`.
 *
 * @throws OctxError `OCTX_DEPENDENCY_MISSING` when neither can be loaded
 */
export async function loadSqliteDriver(loaders: Partial<SqliteModuleLoaders> = {}): Promise<SqliteDriver> {
  const l = { ...DEFAULT_LOADERS, ...loaders };
  const builtin = await nodeSqlite(l.nodeSqlite);
  if (builtin) return builtin;
  const native = await betterSqlite3(l.betterSqlite3);
  if ('open' in native) return native;
  throw missing(`this Node.js (${process.version}) has no node:sqlite and ${native.missing}`);
}
