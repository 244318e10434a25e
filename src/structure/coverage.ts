import { issue, type OctxIssue } from '../model/errors.js';
import type { IdView } from './frozen-ids.js';
import type { StructureColumns } from './structure-snapshot.js';
import { RECORD_KINDS } from '../model/record-kinds.js';

/** How many orphan ids each rule lists before it only counts. */
export const COVERAGE_ID_LIMIT = 10_000;

/** Orphans of one coverage rule: how many, and their ids (the first 10 000: `COVERAGE_ID_LIMIT`). */
export interface OrphanList {
  readonly count: number;
  readonly ids: readonly string[];
  /** True when `ids` holds fewer than `count` ids. */
  readonly truncated: boolean;
}

/** Orphans of a rule that belongs to documents: also grouped per document id. */
export interface OrphanListByDocument extends OrphanList {
  /** document id → { path, count } */
  readonly byDocument: Readonly<Record<string, { readonly path: string; readonly count: number }>>;
}

/**
 * The five complete-coverage rules of seed §6, each with its orphans. `complete` is true only when
 * all five lists are empty; then the structure layer may ship.
 */
export interface CoverageReport {
  readonly complete: boolean;
  /** Rule 1: Concept Documents without a chunk. */
  readonly documentsWithoutChunks: OrphanList & { readonly paths: readonly string[] };
  /** Rule 2: chunks in no chunk-event link. */
  readonly chunksWithoutEvents: OrphanListByDocument;
  /** Rule 3: events in no chunk-event link. */
  readonly eventsWithoutChunks: OrphanList;
  /** Rule 4: events in no event-entity link. */
  readonly eventsWithoutEntities: OrphanList;
  /** Rule 5: entities in no event-entity link. */
  readonly entitiesWithoutEvents: OrphanList;
}

/** A Concept Document as coverage needs it. */
export interface CoverageDocument {
  readonly dense: number;
  readonly path: string;
}

class Collector {
  count = 0;
  readonly ids: string[] = [];
  add(id: string): void {
    this.count += 1;
    if (this.ids.length < COVERAGE_ID_LIMIT) this.ids.push(id);
  }
  done(): OrphanList {
    return { count: this.count, ids: this.ids, truncated: this.ids.length < this.count };
  }
}

/**
 * Evaluates the five coverage rules over the collected graph (references are assumed resolved:
 * run {@link checkStructureGraph} first).
 */
export function computeCoverage(ids: IdView, s: StructureColumns, documents: readonly CoverageDocument[]): CoverageReport {
  const docChunks = new Map<number, number>();
  for (const d of documents) docChunks.set(d.dense, 0);
  for (let c = 0; c < s.chunkId.length; c++) {
    const d = s.chunkDocument[c]!;
    const n = docChunks.get(d);
    if (n !== undefined) docChunks.set(d, n + 1);
  }
  const chunkEvents = new Uint32Array(s.chunkId.length);
  const eventChunks = new Uint32Array(s.eventId.length);
  for (let i = 0; i < s.linkChunk.length; i++) {
    chunkEvents[ids.slotOf(s.linkChunk[i]!)]! += 1;
    eventChunks[ids.slotOf(s.linkEvent[i]!)]! += 1;
  }
  const eventEntities = new Uint32Array(s.eventId.length);
  const entityEvents = new Uint32Array(s.entityId.length);
  for (let i = 0; i < s.mentionEvent.length; i++) {
    eventEntities[ids.slotOf(s.mentionEvent[i]!)]! += 1;
    entityEvents[ids.slotOf(s.mentionEntity[i]!)]! += 1;
  }

  const docs = new Collector();
  const paths: string[] = [];
  for (const d of documents) {
    if (docChunks.get(d.dense) === 0) {
      docs.add(ids.idOf(d.dense));
      if (paths.length < COVERAGE_ID_LIMIT) paths.push(d.path);
    }
  }
  const pathOf = new Map(documents.map((d) => [d.dense, d.path]));
  const chunks = new Collector();
  const byDocument: Record<string, { path: string; count: number }> = {};
  for (let c = 0; c < chunkEvents.length; c++) {
    if (chunkEvents[c] !== 0) continue;
    chunks.add(ids.idOf(s.chunkId[c]!));
    const d = s.chunkDocument[c]!;
    const key = ids.idOf(d);
    const entry = (byDocument[key] ??= { path: pathOf.get(d) ?? '', count: 0 });
    entry.count += 1;
  }
  const evNoChunk = new Collector();
  const evNoEntity = new Collector();
  for (let e = 0; e < eventChunks.length; e++) {
    if (eventChunks[e] === 0) evNoChunk.add(ids.idOf(s.eventId[e]!));
    if (eventEntities[e] === 0) evNoEntity.add(ids.idOf(s.eventId[e]!));
  }
  const entNoEvent = new Collector();
  for (let n = 0; n < entityEvents.length; n++) if (entityEvents[n] === 0) entNoEvent.add(ids.idOf(s.entityId[n]!));

  const report = {
    documentsWithoutChunks: { ...docs.done(), paths },
    chunksWithoutEvents: { ...chunks.done(), byDocument },
    eventsWithoutChunks: evNoChunk.done(),
    eventsWithoutEntities: evNoEntity.done(),
    entitiesWithoutEvents: entNoEvent.done(),
  };
  const complete = docs.count + chunks.count + evNoChunk.count + evNoEntity.count + entNoEvent.count === 0;
  return { complete, ...report };
}

/** The coverage report as issues with the reference codes (one per orphan listed). */
export function coverageIssues(report: CoverageReport, severity: 'error' | 'warning' = 'error'): OctxIssue[] {
  const out: OctxIssue[] = [];
  report.documentsWithoutChunks.ids.forEach((id, i) =>
    out.push(
      issue({
        code: 'OCTX_SAG_DOCUMENT_WITHOUT_CHUNK',
        severity,
        path: report.documentsWithoutChunks.paths[i],
        recordId: id,
        message: 'Concept Document has no chunk (coverage rule 1)',
      }),
    ),
  );
  for (const id of report.chunksWithoutEvents.ids)
    out.push(issue({ code: 'OCTX_SAG_CHUNK_WITHOUT_EVENT', severity, path: RECORD_KINDS.chunk.path, recordId: id, message: 'chunk is in no chunk-event link (coverage rule 2)' }));
  for (const id of report.eventsWithoutChunks.ids)
    out.push(issue({ code: 'OCTX_EVENT_WITHOUT_CHUNK', severity, path: RECORD_KINDS.event.path, recordId: id, message: 'event is in no chunk-event link (coverage rule 3)' }));
  for (const id of report.eventsWithoutEntities.ids)
    out.push(
      issue({ code: 'OCTX_SAG_EVENT_WITHOUT_ENTITY', severity, path: RECORD_KINDS.event.path, recordId: id, message: 'event is in no event-entity link (coverage rule 4)' }),
    );
  for (const id of report.entitiesWithoutEvents.ids)
    out.push(issue({ code: 'OCTX_ENTITY_WITHOUT_EVENT', severity, path: RECORD_KINDS.entity.path, recordId: id, message: 'entity is in no event-entity link (coverage rule 5)' }));
  return out;
}
