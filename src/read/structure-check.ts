/**
 * Record and graph checks of `sag-structured/0.1` (OCTX-REFERENCE §10.2–§10.5, SEED §3–§6),
 * fed one record at a time while the five JSONL files stream past.
 *
 * Memory: ids live once, in the shared {@link IdSpace} map (id → packed kind+index); everything
 * else is per-record numbers in typed arrays (lines, levels, parent indices, coverage flags) and
 * numeric-keyed sets for the uniqueness rules. No record object is kept after its line.
 *
 * Like the reference, a record that breaks its schema is not added to the record set, so
 * references to it are reported as missing and coverage gaps cascade — every problem is
 * reported, none is silently skipped.
 */
import type { OctxCode } from '../model/codes.js';
import { issue, type OctxIssue } from '../model/errors.js';
import { GrowableInt32, IdKind, IdSpace, describeKind, type IdKindValue } from './id-space.js';
import { recordProblems, type StructureRecordKind } from './record-rules.js';

/** Concept documents known to the format layer, by their document index in the id space. */
export interface ConceptDocumentRef {
  readonly path: string;
  readonly documentId: string;
}

const PAIR_BASE = 2 ** 26; // record indices stay far below this (maxJsonlRecords default 1e6)
const ORDINAL_BASE = 2 ** 32;

/** Ids and lines of one record kind. */
interface RecordTable {
  readonly ids: string[];
  readonly lines: GrowableInt32;
  path: string;
}

/** Checks the structure layer; issues go to `report`. */
export class StructureChecker {
  readonly chunks: RecordTable = { ids: [], lines: new GrowableInt32(), path: 'data/chunks.jsonl' };
  readonly events: RecordTable = { ids: [], lines: new GrowableInt32(), path: 'data/events.jsonl' };
  readonly entities: RecordTable = { ids: [], lines: new GrowableInt32(), path: 'data/entities.jsonl' };
  private readonly eventLevels = new GrowableInt32();
  private readonly eventParents: (string | undefined)[] = [];
  private readonly docHasChunk: Uint8Array;
  private readonly ordinals = new Set<number>();
  private readonly ordinalsWide = new Set<string>();
  private readonly pairs = new Set<number>();
  private readonly pairsWide = new Set<string>();
  private chunkHasEvent = new Uint8Array(0);
  private eventHasChunk = new Uint8Array(0);
  private eventHasEntity = new Uint8Array(0);
  private entityHasEvent = new Uint8Array(0);
  /** Set when a file could not be read to its end: coverage would only repeat that failure. */
  incomplete = false;

  constructor(
    private readonly ids: IdSpace,
    private readonly documents: readonly ConceptDocumentRef[],
    private readonly report: (i: OctxIssue) => void,
  ) {
    this.docHasChunk = new Uint8Array(documents.length);
  }

  private fail(code: OctxCode, path: string, line: number | undefined, message: string, recordId?: string, field?: string): void {
    this.report(
      issue({
        code,
        path,
        message,
        ...(line === undefined ? {} : { line }),
        ...(recordId === undefined ? {} : { recordId }),
        ...(field === undefined ? {} : { field }),
      }),
    );
  }

  /** Checks one parsed record of `kind` found at `line` of `path`. */
  record(kind: StructureRecordKind, r: Record<string, unknown>, path: string, line: number): void {
    const problems = recordProblems(kind, r);
    const rid = typeof r.id === 'string' ? r.id : undefined;
    if (problems) {
      for (const p of problems) this.fail(p.code, path, line, `${kind} record: ${p.message}`, rid, p.field);
      return;
    }
    switch (kind) {
      case 'chunk':
        return this.chunk(r, path, line);
      case 'event':
        return this.event(r, path, line);
      case 'entity':
        return this.entity(r, path, line);
      case 'chunk-event':
        return this.chunkEvent(r, path, line);
      case 'event-entity':
        return this.eventEntity(r, path, line);
    }
  }

  private register(table: RecordTable, kind: IdKindValue, id: string, path: string, line: number): number {
    const index = this.ids.register(id, kind);
    if (index < 0) {
      const holder = IdSpace.kindOf(-1 - index);
      this.fail('OCTX_ID_DUPLICATE', path, line, `id ${id} is already used by ${describeKind(holder)}; ids are unique across the asset, documents and records`, id, 'id');
      return -1;
    }
    table.ids.push(id);
    table.lines.push(line);
    table.path = path;
    return index;
  }

  private chunk(r: Record<string, unknown>, path: string, line: number): void {
    const id = r.id as string;
    if (this.register(this.chunks, IdKind.chunk, id, path, line) < 0) return;
    const documentId = r.document_id as string;
    const doc = this.ids.indexOf(documentId, IdKind.document);
    if (doc < 0) {
      this.fail('OCTX_CHUNK_DOCUMENT_MISSING', path, line, `chunk document_id ${documentId} is not the id of a Concept Document in this package`, id, 'document_id');
      return;
    }
    this.docHasChunk[doc] = 1;
    const ordinal = r.ordinal as number;
    let fresh: boolean;
    if (ordinal < ORDINAL_BASE && doc < PAIR_BASE) {
      const key = doc * ORDINAL_BASE + ordinal;
      fresh = !this.ordinals.has(key);
      if (fresh) this.ordinals.add(key);
    } else {
      const key = `${doc}:${ordinal}`;
      fresh = !this.ordinalsWide.has(key);
      if (fresh) this.ordinalsWide.add(key);
    }
    if (!fresh) this.fail('OCTX_CHUNK_ORDINAL_DUPLICATE', path, line, `ordinal ${ordinal} is used twice in document ${documentId}`, id, 'ordinal');
  }

  private event(r: Record<string, unknown>, path: string, line: number): void {
    const id = r.id as string;
    if (this.register(this.events, IdKind.event, id, path, line) < 0) return;
    this.eventLevels.push(typeof r.level === 'number' ? r.level : 0);
    this.eventParents.push(r.parent_id as string | undefined);
  }

  private entity(r: Record<string, unknown>, path: string, line: number): void {
    this.register(this.entities, IdKind.entity, r.id as string, path, line);
  }

  /**
   * Resolves the event hierarchy once all events are known: parents exist
   * (`OCTX_EVENT_PARENT_MISSING`), no cycles (`OCTX_EVENT_HIERARCHY_CYCLE`), and
   * `level = parent.level + 1` with top-level events at 0 (`OCTX_EVENT_LEVEL_INVALID`).
   */
  finishEvents(): void {
    const n = this.events.ids.length;
    const parent = new Int32Array(n).fill(-1);
    const { path } = this.events;
    for (let i = 0; i < n; i++) {
      const p = this.eventParents[i];
      if (p === undefined) continue;
      const j = this.ids.indexOf(p, IdKind.event);
      if (j < 0) {
        parent[i] = -2;
        if (!this.incomplete) this.fail('OCTX_EVENT_PARENT_MISSING', path, this.events.lines.get(i), `parent_id ${p} is not an event of this package`, this.events.ids[i], 'parent_id');
      } else parent[i] = j;
    }
    // Each event has at most one parent, so following parents from every event finds every
    // cycle in linear time: a walk that meets a node of its own walk closed a loop.
    const state = new Uint8Array(n); // 0 new, 1 on the current walk, 2 finished
    const onCycle = new Uint8Array(n);
    const walk = new Int32Array(n);
    for (let start = 0; start < n; start++) {
      let len = 0;
      let j = start;
      while (j >= 0 && state[j] === 0) {
        state[j] = 1;
        walk[len++] = j;
        j = parent[j]!;
      }
      if (j >= 0 && state[j] === 1) {
        for (let k = len - 1; k >= 0; k--) {
          const m = walk[k]!;
          onCycle[m] = 1;
          if (m === j) break;
        }
      }
      for (let k = 0; k < len; k++) state[walk[k]!] = 2;
    }
    for (let i = 0; i < n; i++) {
      if (onCycle[i]) {
        this.fail('OCTX_EVENT_HIERARCHY_CYCLE', path, this.events.lines.get(i), `event ${this.events.ids[i]} is its own ancestor (the parent_id chain loops)`, this.events.ids[i], 'parent_id');
        continue;
      }
      const p = parent[i]!;
      if (p < 0) continue;
      const expected = this.eventLevels.get(p) + 1;
      const level = this.eventLevels.get(i);
      if (level !== expected) {
        this.fail('OCTX_EVENT_LEVEL_INVALID', path, this.events.lines.get(i), `level ${level} must be the parent's level + 1 = ${expected}`, this.events.ids[i], 'level');
      }
    }
    this.eventParents.length = 0;
  }

  /** Sizes the coverage flags; call after the three record files, before the relations. */
  beginRelations(): void {
    this.chunkHasEvent = new Uint8Array(this.chunks.ids.length);
    this.eventHasChunk = new Uint8Array(this.events.ids.length);
    this.eventHasEntity = new Uint8Array(this.events.ids.length);
    this.entityHasEvent = new Uint8Array(this.entities.ids.length);
  }

  /** True when the pair was not seen before (and records it). */
  private freshPair(a: number, b: number, salt: number): boolean {
    if (a < PAIR_BASE && b < PAIR_BASE / 2) {
      const key = (a * (PAIR_BASE / 2) + b) * 2 + salt;
      if (this.pairs.has(key)) return false;
      this.pairs.add(key);
      return true;
    }
    const key = `${salt}:${a}:${b}`;
    if (this.pairsWide.has(key)) return false;
    this.pairsWide.add(key);
    return true;
  }

  private chunkEvent(r: Record<string, unknown>, path: string, line: number): void {
    const chunkId = r.chunk_id as string;
    const eventId = r.event_id as string;
    const c = this.ids.indexOf(chunkId, IdKind.chunk);
    const e = this.ids.indexOf(eventId, IdKind.event);
    // After a file was cut short (resource limit), "missing" would only repeat that failure.
    if (c < 0 && !this.incomplete) this.fail('OCTX_CHUNK_EVENT_CHUNK_MISSING', path, line, `chunk_id ${chunkId} is not a chunk of this package`, undefined, 'chunk_id');
    if (e < 0 && !this.incomplete) this.fail('OCTX_CHUNK_EVENT_EVENT_MISSING', path, line, `event_id ${eventId} is not an event of this package`, undefined, 'event_id');
    if (c < 0 || e < 0) return;
    if (!this.freshPair(c, e, 0)) {
      this.fail('OCTX_CHUNK_EVENT_DUPLICATE', path, line, `the relation (${chunkId}, ${eventId}) is listed twice`);
      return;
    }
    this.chunkHasEvent[c] = 1;
    this.eventHasChunk[e] = 1;
  }

  private eventEntity(r: Record<string, unknown>, path: string, line: number): void {
    const eventId = r.event_id as string;
    const entityId = r.entity_id as string;
    const e = this.ids.indexOf(eventId, IdKind.event);
    const t = this.ids.indexOf(entityId, IdKind.entity);
    if (e < 0 && !this.incomplete) this.fail('OCTX_EVENT_ENTITY_EVENT_MISSING', path, line, `event_id ${eventId} is not an event of this package`, undefined, 'event_id');
    if (t < 0 && !this.incomplete) this.fail('OCTX_EVENT_ENTITY_ENTITY_MISSING', path, line, `entity_id ${entityId} is not an entity of this package`, undefined, 'entity_id');
    if (e < 0 || t < 0) return;
    if (!this.freshPair(e, t, 1)) {
      this.fail('OCTX_EVENT_ENTITY_DUPLICATE', path, line, `the relation (${eventId}, ${entityId}) is listed twice`);
      return;
    }
    this.eventHasEntity[e] = 1;
    this.entityHasEvent[t] = 1;
  }

  /** The five coverage rules of SEED §6 (skipped when a file was not read completely). */
  finish(): void {
    if (this.incomplete) return;
    for (let d = 0; d < this.documents.length; d++) {
      if (this.docHasChunk[d]) continue;
      const doc = this.documents[d]!;
      this.fail('OCTX_SAG_DOCUMENT_WITHOUT_CHUNK', doc.path, undefined, `Concept Document ${doc.path} has no chunk`, doc.documentId);
    }
    const orphans = (table: RecordTable, flags: Uint8Array, code: OctxCode, what: string): void => {
      for (let i = 0; i < table.ids.length; i++) {
        if (!flags[i]) this.fail(code, table.path, table.lines.get(i), `${what} ${table.ids[i]} ${code === 'OCTX_ENTITY_WITHOUT_EVENT' ? 'is referenced by no event' : code === 'OCTX_SAG_EVENT_WITHOUT_ENTITY' ? 'has no entity relation' : 'has no chunk-event relation'}`, table.ids[i]);
      }
    };
    orphans(this.chunks, this.chunkHasEvent, 'OCTX_SAG_CHUNK_WITHOUT_EVENT', 'chunk');
    orphans(this.events, this.eventHasChunk, 'OCTX_EVENT_WITHOUT_CHUNK', 'event');
    orphans(this.events, this.eventHasEntity, 'OCTX_SAG_EVENT_WITHOUT_ENTITY', 'event');
    orphans(this.entities, this.entityHasEvent, 'OCTX_ENTITY_WITHOUT_EVENT', 'entity');
  }
}
