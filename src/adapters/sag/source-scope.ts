import type { OctxIssue } from '../../model/errors.js';
import type { ActiveGenerations } from './generations.js';
import type { IdExchange } from './id-exchange.js';
import type { SagSchema } from './sag-schema.js';
import type { ReadOnlyDatabase } from './sqlite.js';

/**
 * What every reader of one SAG source's rows (chunks, events) works from: the database, its
 * schema, the source, the exported articles' document ids, the active generations, the id
 * exchange, and the list the readers add their problems to.
 */
export interface SagSourceScope {
  readonly db: ReadOnlyDatabase;
  /** The database file, as the user named it (messages). */
  readonly dbPath: string;
  readonly schema: SagSchema;
  readonly sourceId: string;
  /** The OCTX document id of each exported article. */
  readonly documentOf: ReadonlyMap<string, string>;
  readonly generations: ActiveGenerations;
  readonly exchange: IdExchange;
  /** Problems found while reading (refusals), added to by every reader. */
  readonly problems: OctxIssue[];
}
