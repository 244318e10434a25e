/**
 * The one door to LanceDB, where GraphRAG keeps its embeddings by default (`output/lancedb/`).
 * `@lancedb/lancedb` is a native package (prebuilt binaries per platform) and an optional peer
 * dependency: it is imported only when a LanceDB table is about to be read, never when a module
 * is loaded, and when it cannot be loaded `OCTX_DEPENDENCY_MISSING` says what to install (the
 * `embeddings.<name>.parquet` snapshots need nothing native).
 */
import { OctxError } from '../../model/errors.js';

/** The exact install command printed when LanceDB is missing (the version this adapter is tested with). */
export const LANCEDB_INSTALL = 'npm install @lancedb/lancedb@0.31.0';

/** One row of a LanceDB embeddings table. */
export interface LanceRow {
  readonly id: string;
  readonly vector: Float32Array;
}

/** An open LanceDB database: its tables and a way to stream one. */
export interface LanceDatabase {
  tableNames(): Promise<string[]>;
  countRows(table: string): Promise<number>;
  /** Streams `id` and `vector` of every row. */
  rows(table: string): AsyncIterable<LanceRow>;
  close(): void;
}

/** How `@lancedb/lancedb` is imported: replaceable for tests (an install without it). */
export type LanceDbLoader = () => Promise<unknown>;

// A specifier in a variable: no type declarations are needed at build time (the package may be
// absent), and no bundler or tool follows it.
const LANCEDB: string = '@lancedb/lancedb';
const defaultLoader: LanceDbLoader = () => import(LANCEDB);

interface RawVector {
  get(i: number): unknown;
}
interface RawBatch {
  readonly numRows: number;
  getChild(name: string): RawVector | null;
}
interface RawTable {
  countRows(): Promise<number>;
  query(): { select(columns: string[]): AsyncIterable<RawBatch> };
  close(): void;
}
interface RawConnection {
  tableNames(): Promise<string[]>;
  openTable(name: string): Promise<RawTable>;
  close(): void;
}
type Connect = (uri: string) => Promise<RawConnection>;

const isMissing = (e: unknown): boolean => {
  const code = (e as NodeJS.ErrnoException | undefined)?.code;
  const message = String((e as Error | undefined)?.message ?? e);
  return code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND' || /lancedb[-.\w]*\.node|Cannot find module '@lancedb\//.test(message);
};

/**
 * Opens the LanceDB database in `dir` (read only: nothing is written).
 * @throws OctxError `OCTX_DEPENDENCY_MISSING` (no `@lancedb/lancedb`, or its native part for this
 *   platform), `OCTX_OPEN_ERROR` (not a LanceDB folder)
 */
export async function openLanceDb(dir: string, load: LanceDbLoader = defaultLoader): Promise<LanceDatabase> {
  let module: { connect?: Connect; default?: { connect?: Connect } };
  try {
    module = (await load()) as typeof module;
  } catch (e) {
    if (isMissing(e)) {
      throw OctxError.of({
        code: 'OCTX_DEPENDENCY_MISSING',
        path: dir,
        message: `reading the LanceDB tables of a GraphRAG index needs the optional dependency @lancedb/lancedb, which ${/Cannot find module '@lancedb\/lancedb'/.test(String((e as Error).message)) || (e as NodeJS.ErrnoException).code !== undefined ? 'is not installed' : `cannot be loaded (${String((e as Error).message).split('\n')[0]})`}. Install it with \`${LANCEDB_INSTALL}\`, or export the vectors from embeddings.<name>.parquet snapshots (GraphRAG's snapshots.embeddings setting) with --vectors snapshots, or leave them out with --vectors none`,
      });
    }
    throw e;
  }
  const connect = module.connect ?? module.default?.connect;
  if (typeof connect !== 'function') throw OctxError.of({ code: 'OCTX_DEPENDENCY_MISSING', message: '@lancedb/lancedb could not be loaded (no connect export)' });
  let db: RawConnection;
  try {
    db = await connect(dir);
  } catch (e) {
    throw OctxError.of({ code: 'OCTX_OPEN_ERROR', path: dir, message: `cannot open ${dir} as a LanceDB database: ${(e as Error).message}` });
  }
  return {
    tableNames: () => db.tableNames(),
    async countRows(name) {
      const t = await db.openTable(name);
      try {
        return await t.countRows();
      } finally {
        t.close();
      }
    },
    async *rows(name) {
      const t = await db.openTable(name);
      try {
        for await (const batch of t.query().select(['id', 'vector'])) {
          const ids = batch.getChild('id');
          const vectors = batch.getChild('vector');
          if (ids === null || vectors === null)
            throw OctxError.of({ code: 'OCTX_ADAPTER_INPUT_INVALID', path: `${dir}/${name}.lance`, message: 'the LanceDB table has no id or vector column' });
          for (let i = 0; i < batch.numRows; i++) {
            const id = ids.get(i);
            const v = vectors.get(i) as { toArray(): Float32Array } | null;
            yield { id: typeof id === 'string' ? id : String(id), vector: v === null ? new Float32Array(0) : v.toArray() };
          }
        }
      } finally {
        t.close();
      }
    },
    close: () => db.close(),
  };
}
