/**
 * The structure layer for the report, in streaming passes over the JSONL files (each read through
 * the reader, which checks its digest): ids go into the validator's compact id space (16 bytes of
 * words per id, not a string), and every per-record number into a typed array. Nothing of a
 * record is kept but numbers — names and titles are read again, later, only for the records the
 * page shows (graph.ts) — so memory grows by tens of bytes per record, whatever the texts hold.
 *
 * A record the tables cannot use (an id that is not a UUIDv7 or is taken, a link to nothing) is
 * counted in `unresolved` and left out: the report shows the package as it is, the validator's
 * issues on the same page say what is wrong with it.
 */
import { IdKind } from '../model/id-kind.js';
import { OctxError } from '../model/errors.js';
import { RECORD_KINDS, RECORD_KIND_ORDER, type RecordKind } from '../model/record-kinds.js';
import type { OctxPackage } from '../read/open-package.js';
import type { IdSpace } from '../read/id-space.js';
import type { DocumentTable } from './collect-documents.js';
import { Float64Column, Int32Column } from '../model/record-columns.js';

/** Distinct entity types counted one by one; the rest are summed (a hostile package could name a type per entity). */
export const MAX_ENTITY_TYPES = 1000;

/** What the structure passes found. */
export interface StructureTables {
  /** Records per kind, as read (lines of each JSONL file). */
  readonly counts: Record<RecordKind, number>;
  /** Per chunk: its document's row (-1 unknown) and ordinal. */
  readonly chunkRow: Int32Array;
  readonly chunkOrdinal: Float64Array;
  readonly eventsPerChunk: Uint32Array;
  readonly chunksPerEvent: Uint32Array;
  readonly entitiesPerEvent: Uint32Array;
  readonly eventsPerEntity: Uint32Array;
  /** Per entity: its index in `types`, or -1 past the type budget. */
  readonly entityType: Int32Array;
  readonly types: readonly string[];
  readonly typeCounts: readonly number[];
  /** Entities whose type is past the type budget. */
  readonly otherTypes: number;
  /** Per document row: chunks, distinct events, chunks without events. */
  readonly rowChunks: Uint32Array;
  readonly rowEvents: Uint32Array;
  readonly rowUncovered: Uint32Array;
  readonly unresolved: number;
  readonly unreadable: readonly string[];
}

/** A record's string field, or undefined. */
export const text = (r: unknown, field: string): string | undefined => {
  const v = (r as Record<string, unknown> | null)?.[field];
  return typeof v === 'string' ? v : undefined;
};

/**
 * Streams the records of `kind`, handing each to `each`; a file that cannot be read to its end
 * (digest, JSON, limits) stops its pass and is noted in `unreadable`.
 */
export async function eachRecord(pkg: OctxPackage, kind: RecordKind, unreadable: string[], each: (record: unknown) => void): Promise<void> {
  try {
    for await (const { record } of pkg.records(kind)) each(record);
  } catch (e) {
    if (!(e instanceof OctxError)) throw e;
    const note = `${RECORD_KINDS[kind].path}: ${e.code}`;
    if (!unreadable.includes(note)) unreadable.push(note);
  }
}

/** The field names of a kind's id references, from its row of the table (`chunk_id`, `event_id`, …). */
export function refField(kind: RecordKind, target: 'chunk' | 'event' | 'entity' | 'document'): string {
  const fields = RECORD_KINDS[kind].fields as Readonly<Record<string, { readonly ref?: string }>>;
  const name = Object.keys(fields).find((f) => fields[f]!.ref === target);
  if (name === undefined) throw new Error(`${kind} has no reference to ${target}`);
  return name;
}

/** Runs the structure passes over `pkg`, whose documents are in `docs` (ids registered in `ids`). */
export async function collectStructure(pkg: OctxPackage, ids: IdSpace, docs: DocumentTable): Promise<StructureTables> {
  const counts = Object.fromEntries(RECORD_KIND_ORDER.map((k) => [k, 0])) as Record<RecordKind, number>;
  const unreadable: string[] = [];
  let unresolved = 0;
  const rows = docs.paths.length;
  // A link's two ends as indexes in `ids`; a link naming an id the package does not hold is unresolved.
  const eachLink = async (kind: 'chunk-event' | 'event-entity', from: 'chunk' | 'event', to: 'event' | 'entity', each: (a: number, b: number) => void): Promise<void> => {
    const fromField = refField(kind, from);
    const toField = refField(kind, to);
    await eachRecord(pkg, kind, unreadable, (r) => {
      counts[kind]++;
      const a = ids.indexOf(text(r, fromField) ?? '', IdKind[from]);
      const b = ids.indexOf(text(r, toField) ?? '', IdKind[to]);
      if (a < 0 || b < 0) return void unresolved++;
      each(a, b);
    });
  };

  // Chunks: id, document row, ordinal.
  const chunkRow = new Int32Column();
  const chunkOrdinal = new Float64Column();
  const chunkDocField = refField('chunk', 'document');
  await eachRecord(pkg, 'chunk', unreadable, (r) => {
    counts.chunk++;
    const id = text(r, 'id');
    const index = id === undefined ? -1 : ids.register(id, IdKind.chunk);
    if (index < 0) return void unresolved++;
    const docId = text(r, chunkDocField);
    const docIndex = docId === undefined ? -1 : ids.indexOf(docId, IdKind.document);
    chunkRow.ensure(index)[index] = docIndex >= 0 ? (docs.rowOfId[docIndex] ?? -1) : -1;
    const ordinal = (r as { ordinal?: unknown }).ordinal;
    chunkOrdinal.ensure(index)[index] = typeof ordinal === 'number' ? ordinal : -1;
  });
  await eachRecord(pkg, 'event', unreadable, (r) => {
    counts.event++;
    const id = text(r, 'id');
    if (id === undefined || ids.register(id, IdKind.event) < 0) unresolved++;
  });
  // Entities: id and type (types in a bounded table).
  const entityTypes = new Int32Column();
  const typeIndex = new Map<string, number>();
  const types: string[] = [];
  const typeCounts: number[] = [];
  let otherTypes = 0;
  await eachRecord(pkg, 'entity', unreadable, (r) => {
    counts.entity++;
    const id = text(r, 'id');
    const index = id === undefined ? -1 : ids.register(id, IdKind.entity);
    if (index < 0) return void unresolved++;
    const type = text(r, 'type') ?? '';
    let t = typeIndex.get(type);
    if (t === undefined && types.length < MAX_ENTITY_TYPES) {
      t = types.push(type) - 1;
      typeIndex.set(type, t);
      typeCounts.push(0);
    }
    if (t === undefined) otherTypes++;
    else typeCounts[t]!++;
    entityTypes.ensure(index)[index] = t ?? -1;
  });
  const chunkCount = ids.count(IdKind.chunk);
  const eventCount = ids.count(IdKind.event);
  const entityCount = ids.count(IdKind.entity);
  const entityType = entityTypes.ensure(Math.max(0, entityCount - 1)).subarray(0, entityCount);

  // Chunk → event links: events per chunk, chunks per event, and the (event, document) pairs that
  // give each document its distinct events (sorted numbers, not a set of objects).
  const eventsPerChunk = new Uint32Array(chunkCount);
  const chunksPerEvent = new Uint32Array(eventCount);
  const pairs = new Float64Column();
  const chunkRows = chunkRow.ensure(Math.max(0, chunkCount - 1));
  await eachLink('chunk-event', 'chunk', 'event', (c, e) => {
    eventsPerChunk[c]!++;
    chunksPerEvent[e]!++;
    const row = chunkRows[c]!;
    if (row >= 0) pairs.push(e * rows + row);
  });
  const rowChunks = new Uint32Array(rows);
  const rowUncovered = new Uint32Array(rows);
  for (let c = 0; c < chunkCount; c++) {
    const row = chunkRows[c]!;
    if (row < 0) continue;
    rowChunks[row]!++;
    if (eventsPerChunk[c] === 0) rowUncovered[row]!++;
  }
  const rowEvents = new Uint32Array(rows);
  const sorted = pairs.view().sort();
  for (let i = 0; i < sorted.length; i++) if (i === 0 || sorted[i] !== sorted[i - 1]) rowEvents[sorted[i]! % rows]!++;

  // Event → entity links: the degrees of the graph.
  const entitiesPerEvent = new Uint32Array(eventCount);
  const eventsPerEntity = new Uint32Array(entityCount);
  await eachLink('event-entity', 'event', 'entity', (e, n) => {
    entitiesPerEvent[e]!++;
    eventsPerEntity[n]!++;
  });

  return {
    counts,
    chunkRow: chunkRows.subarray(0, chunkCount),
    chunkOrdinal: chunkOrdinal.ensure(Math.max(0, chunkCount - 1)).subarray(0, chunkCount),
    eventsPerChunk,
    chunksPerEvent,
    entitiesPerEvent,
    eventsPerEntity,
    entityType,
    types,
    typeCounts,
    otherTypes,
    rowChunks,
    rowEvents,
    rowUncovered,
    unresolved,
    unreadable,
  };
}
