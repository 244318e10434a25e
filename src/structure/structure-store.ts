import { join } from 'node:path';
import { OctxError, issue, type OctxIssue } from '../model/errors.js';
import { RECORD_KINDS, RECORD_KIND_ORDER, type RecordKind } from '../model/record-kinds.js';
import { Int32Column } from '../model/columns.js';
import { IdKind } from '../model/id-kind.js';
import type { IdRegistry } from './id-registry.js';
import { assertRecord, serializeRecord, snapshotRecord } from './record-check.js';
import { RecordSpill } from './record-spill.js';
import { PairIndex } from './pair-index.js';
import { suspectFieldIssues } from './field-suspects.js';
import type { BackgroundDeflate } from '../package/background-deflate.js';
import type { SpillSnapshot, StructureSnapshot } from './structure-snapshot.js';

/**
 * Most links of one kind (16M). The pair tables would still work beyond it, but 16 million links
 * of one kind is far beyond what consumers accept, and it bounds each table at 128 MiB.
 */
const MAX_LINKS = 16_000_000;

function assertRoom(links: Int32Column, kind: string): void {
  if (links.length >= MAX_LINKS) throw new OctxError('OCTX_RESOURCE_LIMIT', `more than ${MAX_LINKS.toLocaleString('en')} ${kind} links in one package are not supported`);
}

/** Ordinals up to this fit the Int32 ordinal column; larger ones (legal, never seen) use a side set. */
const MAX_COLUMN_ORDINAL = 2 ** 31 - 1;

/** Suspect-field warnings kept as issues; beyond this many only counted. */
export const MAX_LISTED_SUSPECTS = 100;

const NO_ISSUES: readonly OctxIssue[] = Object.freeze([]);

/** Options of a {@link StructureStore}. */
export interface StructureStoreOptions {
  /** Compresses the JSONL files while records are still being added. */
  readonly background?: BackgroundDeflate;
  /**
   * A field that looks like a misspelt known field (`parentId`) refuses the record with
   * `OCTX_RECORD_FIELD_SUSPECT` instead of being kept with a warning (the builder's `strict`).
   */
  readonly strictFields?: boolean;
}

/**
 * The structure layer as it is collected: record payloads go straight to their JSONL spill files
 * (written once, hashed while written), and only the reference graph stays in memory, as dense
 * integers in typed columns. Records may arrive in any order; references are resolved at export.
 *
 * Duplicate `(document, ordinal)` pairs and duplicate links are refused at the call. The sets
 * that detect them are {@link PairIndex} tables over the columns already kept here, not V8 Sets
 * of packed keys (a heap number each), since this state sets the builder's peak memory.
 */
export class StructureStore {
  readonly #ids: IdRegistry;
  readonly #dir: string;
  readonly #spills = new Map<RecordKind, RecordSpill>();

  /** Dense id of each chunk, and of the document it names. */
  readonly chunkId = new Int32Column();
  readonly chunkDocument = new Int32Column();
  /** Ordinal of each chunk (-1 when above {@link MAX_COLUMN_ORDINAL}, then in `#wideOrdinals`). */
  readonly #chunkOrdinal = new Int32Column();
  readonly #ordinals = new PairIndex(this.chunkDocument, this.#chunkOrdinal);
  readonly #wideOrdinals = new Set<string>();

  /** Dense id of each event, of its parent (-1 for none) and its declared level (0 for top). */
  readonly eventId = new Int32Column();
  readonly eventParent = new Int32Column();
  readonly eventLevel = new Int32Column();

  /** Dense id of each entity. */
  readonly entityId = new Int32Column();

  /** Chunk → event links (dense ids of both ends). */
  readonly linkChunk = new Int32Column();
  readonly linkEvent = new Int32Column();
  readonly #chunkEventPairs = new PairIndex(this.linkChunk, this.linkEvent);

  /** Event → entity links (dense ids of both ends). */
  readonly mentionEvent = new Int32Column();
  readonly mentionEntity = new Int32Column();
  readonly #eventEntityPairs = new PairIndex(this.mentionEvent, this.mentionEntity);

  readonly #background: BackgroundDeflate | undefined;
  readonly #strictFields: boolean;
  readonly #suspects: OctxIssue[] = [];
  #suspectCount = 0;
  #pending: readonly OctxIssue[] = NO_ISSUES;
  readonly #unknownFields: string[] = [];
  #source: { readonly path: string; readonly line: number } | undefined;

  constructor(ids: IdRegistry, dir: string, options: StructureStoreOptions = {}) {
    this.#ids = ids;
    this.#dir = dir;
    this.#background = options.background;
    this.#strictFields = options.strictFields === true;
  }

  /**
   * Where the records added next come from (a working folder's file and line), so their
   * warnings name it like their errors do; `undefined` again once the file is read.
   */
  setRecordSource(source: { readonly path: string; readonly line: number } | undefined): void {
    this.#source = source;
  }

  /**
   * `OCTX_RECORD_FIELD_SUSPECT` warnings of the records added so far (the first
   * {@link MAX_LISTED_SUSPECTS}, then one warning counting the rest).
   */
  get fieldWarnings(): readonly OctxIssue[] {
    if (this.#suspectCount <= this.#suspects.length) return this.#suspects;
    const more = this.#suspectCount - this.#suspects.length;
    return [
      ...this.#suspects,
      issue({ code: 'OCTX_RECORD_FIELD_SUSPECT', severity: 'warning', message: `${more} more suspect field(s) are not listed (the first ${this.#suspects.length} are)` }),
    ];
  }

  /**
   * Reads the caller's record once and checks its own fields; unknown fields that look like a
   * misspelt known one are reported (or refused under `strictFields`).
   * @throws OctxError
   */
  #take(kind: RecordKind, input: unknown): Record<string, unknown> {
    // One reused array: the usual record has no unknown field, and costs no allocation here.
    const unknownFields = this.#unknownFields;
    unknownFields.length = 0;
    const record = snapshotRecord(kind, input, unknownFields);
    const suspects = unknownFields.length > 0 ? suspectFieldIssues(kind, record as Record<string, unknown>, unknownFields) : NO_ISSUES;
    try {
      assertRecord(kind, record);
    } catch (e) {
      // `level` without `parent_id` because it was spelt `parentId`: say so beside the error.
      if (suspects.length === 0 || !(e instanceof OctxError)) throw e;
      throw new OctxError(e.code, `${e.message}\n${suspects.map((i) => `  - ${i.message}`).join('\n')}`, { issues: [...e.issues, ...suspects] });
    }
    if (suspects.length > 0) {
      if (this.#strictFields) {
        const errors = suspects.map((i) => ({ ...i, severity: 'error' as const }));
        if (errors.length === 1) throw OctxError.of(errors[0]!);
        throw OctxError.aggregate('OCTX_RECORD_FIELD_SUSPECT', `${kind} record has misspelt-looking fields (strict):`, errors);
      }
    }
    this.#pending = suspects;
    return record;
  }

  /** Keeps the warnings of the record just stored (a refused record leaves none behind). */
  #stored(): void {
    if (this.#pending.length === 0) return;
    const source = this.#source;
    for (const s of this.#pending) {
      this.#suspectCount++;
      if (this.#suspects.length < MAX_LISTED_SUSPECTS) this.#suspects.push(source ? { ...s, path: source.path, line: source.line } : s);
    }
    this.#pending = NO_ISSUES;
  }

  /** True when no structure record or link was added. */
  get isEmpty(): boolean {
    return this.chunkId.length + this.eventId.length + this.entityId.length + this.linkChunk.length + this.mentionEvent.length === 0;
  }

  #spill(kind: RecordKind): RecordSpill {
    let s = this.#spills.get(kind);
    if (!s) {
      s = new RecordSpill(join(this.#dir, RECORD_KINDS[kind].spillName), this.#background);
      this.#spills.set(kind, s);
    }
    return s;
  }

  /** Validates and stores a chunk. @throws OctxError */
  addChunk(input: unknown): void {
    const record = this.#take('chunk', input);
    const id = record.id as string;
    this.#ids.assertFree(id, IdKind.chunk);
    const doc = this.#ids.ref(record.document_id as string);
    const ordinal = record.ordinal as number;
    const wide = ordinal > MAX_COLUMN_ORDINAL ? `${doc}:${ordinal}` : undefined;
    if (wide === undefined ? this.#ordinals.has(doc, ordinal) : this.#wideOrdinals.has(wide)) {
      throw OctxError.of({
        code: 'OCTX_CHUNK_ORDINAL_DUPLICATE',
        recordId: id,
        field: 'ordinal',
        message: `document ${record.document_id as string} already has a chunk with ordinal ${ordinal}`,
      });
    }
    const line = serializeRecord('chunk', record);
    const dense = this.#ids.define(id, IdKind.chunk, this.chunkId.length);
    const row = this.chunkId.push(dense);
    this.chunkDocument.push(doc);
    this.#chunkOrdinal.push(wide === undefined ? ordinal : -1);
    if (wide === undefined) this.#ordinals.add(row);
    else this.#wideOrdinals.add(wide);
    this.#spill('chunk').append(line);
    this.#stored();
  }

  /** Validates and stores an event. @throws OctxError */
  addEvent(input: unknown): void {
    const record = this.#take('event', input);
    const id = record.id as string;
    this.#ids.assertFree(id, IdKind.event);
    const line = serializeRecord('event', record);
    const parent = record.parent_id === undefined ? -1 : this.#ids.ref(record.parent_id as string);
    const dense = this.#ids.define(id, IdKind.event, this.eventId.length);
    this.eventId.push(dense);
    this.eventParent.push(parent);
    this.eventLevel.push(record.level === undefined ? 0 : (record.level as number));
    this.#spill('event').append(line);
    this.#stored();
  }

  /** Validates and stores an entity. @throws OctxError */
  addEntity(input: unknown): void {
    const record = this.#take('entity', input);
    const id = record.id as string;
    this.#ids.assertFree(id, IdKind.entity);
    const line = serializeRecord('entity', record);
    const dense = this.#ids.define(id, IdKind.entity, this.entityId.length);
    this.entityId.push(dense);
    this.#spill('entity').append(line);
    this.#stored();
  }

  /** Validates and stores a chunk → event link. @throws OctxError */
  linkChunkEvent(input: unknown): void {
    const link = this.#take('chunk-event', input);
    const chunk = this.#ids.ref(link.chunk_id as string);
    const event = this.#ids.ref(link.event_id as string);
    if (this.#chunkEventPairs.has(chunk, event)) {
      throw OctxError.of({
        code: 'OCTX_CHUNK_EVENT_DUPLICATE',
        recordId: link.chunk_id as string,
        field: 'event_id',
        message: `chunk ${link.chunk_id as string} is already linked to event ${link.event_id as string}`,
      });
    }
    const line = serializeRecord('chunk-event', link);
    assertRoom(this.linkChunk, 'chunk-event');
    const row = this.linkChunk.push(chunk);
    this.linkEvent.push(event);
    this.#chunkEventPairs.add(row);
    this.#spill('chunk-event').append(line);
    this.#stored();
  }

  /** Validates and stores an event → entity link. @throws OctxError */
  linkEventEntity(input: unknown): void {
    const link = this.#take('event-entity', input);
    const event = this.#ids.ref(link.event_id as string);
    const entity = this.#ids.ref(link.entity_id as string);
    if (this.#eventEntityPairs.has(event, entity)) {
      throw OctxError.of({
        code: 'OCTX_EVENT_ENTITY_DUPLICATE',
        recordId: link.event_id as string,
        field: 'entity_id',
        message: `event ${link.event_id as string} is already linked to entity ${link.entity_id as string}`,
      });
    }
    const line = serializeRecord('event-entity', link);
    assertRoom(this.mentionEvent, 'event-entity');
    const row = this.mentionEvent.push(event);
    this.mentionEntity.push(entity);
    this.#eventEntityPairs.add(row);
    this.#spill('event-entity').append(line);
    this.#stored();
  }

  /**
   * Freezes the structure layer as it stands: flushes every spill and returns each JSONL file with
   * its size, SHA-256, line count and longest line (a kind without records gets an empty file, a
   * valid JSONL file with zero records), the reference columns up to the records added so far, and
   * their field warnings. Nothing is copied but the warnings: the columns and files only grow, so
   * views that end here keep describing exactly these records while more are added. The spills
   * stay open: a refused export leaves the builder usable.
   */
  freeze(): StructureSnapshot {
    const files = {} as Record<RecordKind, SpillSnapshot>;
    for (const kind of RECORD_KIND_ORDER) {
      const spill = this.#spill(kind);
      const entry = spill.snapshot();
      const { size, sha256 } = entry;
      files[kind] = { file: spill.file, size, sha256, lines: spill.lines, maxLineBytes: spill.maxLineBytes, entry };
    }
    // view(): rows below a column's length are never rewritten, and a later push that grows the
    // column moves it to a new array, so these subarrays stay exactly as they are now.
    return Object.freeze({
      chunkId: this.chunkId.view(),
      chunkDocument: this.chunkDocument.view(),
      eventId: this.eventId.view(),
      eventParent: this.eventParent.view(),
      eventLevel: this.eventLevel.view(),
      entityId: this.entityId.view(),
      linkChunk: this.linkChunk.view(),
      linkEvent: this.linkEvent.view(),
      mentionEvent: this.mentionEvent.view(),
      mentionEntity: this.mentionEntity.view(),
      files: Object.freeze(files),
      fieldWarnings: Object.freeze([...this.fieldWarnings]),
      isEmpty: this.isEmpty,
    });
  }

  /** Closes spill descriptors after a failure. */
  close(): void {
    for (const s of this.#spills.values()) s.close();
  }

  /** Path of the spill file of a kind (for readers such as the embedding hook). */
  spillFile(kind: RecordKind): string {
    this.#spill(kind).flush();
    return join(this.#dir, RECORD_KINDS[kind].spillName);
  }
}
