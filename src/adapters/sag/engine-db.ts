/**
 * Which SAG database is which. SAG v1.7.0 keeps two SQLite files: its application database
 * (`./.data/sag.db`: sources, documents, OCTX transfers, …) and the zleap-sag engine database
 * (`<SAG_DATA_DIR>/sag.db`, by default `./.data/engine/sag.db`: article, source_chunk,
 * source_event, entity, …). `from-sag` reads the engine database; given the other one (or any
 * SQLite file without the engine's tables) it says, in one error, which file to use.
 */
import { existsSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { OctxError } from '../../model/errors.js';

/** Where SAG v1.7.0 keeps the engine database by default, relative to where SAG runs. */
export const SAG_ENGINE_DB_DEFAULT = '.data/engine/sag.db';

/** How to find the engine database, as the error and the help say it. */
export const SAG_ENGINE_DB_HINT = `the zleap-sag engine database is <SAG_DATA_DIR>/sag.db, by default ./${SAG_ENGINE_DB_DEFAULT} (./.data/sag.db is the SAG application's own database)`;

/** Tables of SAG's application database (none of them is an engine table). */
const APP_TABLES = ['sources', 'documents', 'octx_assets', 'octx_releases', 'octx_transfers', 'octx_installations', 'octx_source_bindings', 'octx_document_bindings'];

/**
 * The one error for a database that lacks the engine tables `missing`: `OCTX_SAG_NOT_ENGINE_DB`,
 * naming `.data/engine/sag.db` (and the likely file next to an application database).
 */
export function notEngineDatabase(dbPath: string, tables: ReadonlySet<string>, missing: readonly string[]): OctxError {
  const app = APP_TABLES.filter((t) => tables.has(t));
  if (app.length >= 2) {
    // `<dir>/sag.db` of the application → `<dir>/engine/sag.db`, SAG's default engine location.
    const sibling = basename(dbPath) === 'sag.db' ? join(dirname(dbPath), 'engine', 'sag.db') : undefined;
    const tryThis = sibling !== undefined ? `; try ${sibling}${existsSync(sibling) ? ' (it exists)' : ''}` : '';
    return OctxError.of({
      code: 'OCTX_SAG_NOT_ENGINE_DB',
      path: dbPath,
      message: `this is the SAG application's database (tables ${app.join(', ')}), not the zleap-sag engine database from-sag reads: ${SAG_ENGINE_DB_HINT}${tryThis}`,
    });
  }
  return OctxError.of({
    code: 'OCTX_SAG_NOT_ENGINE_DB',
    path: dbPath,
    message: `not a zleap-sag engine database: table(s) ${missing.join(', ')} missing; ${SAG_ENGINE_DB_HINT}`,
  });
}
