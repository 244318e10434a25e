/**
 * Record and graph checks of `sag-structured/0.1` (OCTX-REFERENCE §10.2–§10.5, SEED §3–§6),
 * fed one record at a time while the five JSONL files stream past.
 *
 * Memory: ids live once, as 128-bit words in the shared {@link IdSpace}; everything else is
 * per-record numbers in typed arrays (lines, levels, parent ids, coverage flags). Uniqueness of
 * `(document, ordinal)` and of relation pairs is checked by collecting packed numeric keys and
 * sorting them once at the end (a few ms for a million keys), instead of a hash set that would
 * allocate a heap number per key. Duplicates are then reported with their lines.
 *
 * Like the reference, a record that breaks its schema is not added to the record set, so
 * references to it are reported as missing and coverage gaps cascade — every problem is
 * reported, none is silently skipped.
 */
import type { OctxCode } from '../model/codes.js';
import { issue, type OctxIssue } from '../model/errors.js';
import { Float64Column, Int32Column } from '../model/columns.js';
import { wordsToUuid } from '../model/uuid-words.js';
import { IdKind, describeIdKind } from '../model/id-kind.js';
import { IdSpace } from './id-space.js';
import { RECORD_KINDS, type RecordKind } from '../model/record-kinds.js';
import { recordProblems } from './record-rules.js';
import type { InputDigests } from './input-digests.js';
import { ENTRY_LIMIT, ENTRY_RECORD, type RecordScan } from './record-scan.js';

/** A Concept Document known to the format layer (by its document index in the id space). */
export interface ConceptDocumentRef {
  readonly path: string;
  readonly documentId: string;
}

/** Keys pack two indices as `a * 2^26 + b`; indices beyond that use the string fallback. */
const PAIR_BASE = 2 ** 26;
/** Ordinal keys pack `document * 2^32 + ordinal`. */
const ORDINAL_BASE = 2 ** 32;
/** The largest level the 32-bit level column holds (larger ones are refused, never narrowed). */
const INT32_MAX = 2 ** 31 - 1;

/** Lines of one record kind (ids are in the id space). */
interface RecordTable {
  readonly kind: IdKind;
  readonly lines: Int32Column;
  readonly path: string;
}

/** Collects packed keys with their lines; finds repeated keys at the end. */
class KeyCollector {
  private readonly keys = new Float64Column();
  private readonly lines = new Int32Column();
  private readonly wide = new Map<string, number>();
  readonly wideDuplicates: { key: string; line: number }[] = [];

  add(key: number, line: number): void {
    this.keys.push(key);
    this.lines.push(line);
  }

  /** For keys too large to pack: checked at once with a map. */
  addWide(key: string, line: number): void {
    if (this.wide.has(key)) this.wideDuplicates.push({ key, line });
    else this.wide.set(key, line);
  }

  /** Second and later occurrences of every repeated packed key, in file order. */
  duplicates(): { key: number; line: number }[] {
    const n = this.keys.length;
    if (n < 2) return [];
    const sorted = this.keys.view().slice().sort();
    let repeated: Set<number> | undefined;
    for (let i = 1; i < n; i++) if (sorted[i] === sorted[i - 1]) (repeated ??= new Set()).add(sorted[i]!);
    if (!repeated) return [];
    const out: { key: number; line: number }[] = [];
    const seen = new Set<number>();
    for (let i = 0; i < n; i++) {
      const k = this.keys.get(i);
      if (!repeated.has(k)) continue;
      if (seen.has(k)) out.push({ key: k, line: this.lines.get(i) });
      else seen.add(k);
    }
    return out;
  }
}

/** Checks the structure layer; issues go to `report`. */
export class StructureChecker {
  readonly chunks: RecordTable = { kind: IdKind.chunk, lines: new Int32Column(), path: RECORD_KINDS.chunk.path };
  readonly events: RecordTable = { kind: IdKind.event, lines: new Int32Column(), path: RECORD_KINDS.event.path };
  readonly entities: RecordTable = { kind: IdKind.entity, lines: new Int32Column(), path: RECORD_KINDS.entity.path };
  private readonly eventLevels = new Int32Column();
  /** Parent id words of each event (4 per event; only meaningful when its level is > 0). */
  private parentWords = new Uint32Array(4 * 1024);
  private readonly docHasChunk: Uint8Array;
  private readonly ordinals = new KeyCollector();
  private readonly chunkEventPairs = new KeyCollector();
  private readonly eventEntityPairs = new KeyCollector();
  private chunkHasEvent = new Uint8Array(0);
  private eventHasChunk = new Uint8Array(0);
  private eventHasEntity = new Uint8Array(0);
  private entityHasEvent = new Uint8Array(0);
  /** Set when a file could not be read to its end: "missing" and coverage would only repeat that. */
  incomplete = false;
  /**
   * Input digests to recompute in this pass, per record kind with a vector target (see
   * {@link InputDigests}): each registered record of that kind is rendered and hashed.
   */
  inputs: { chunk?: InputDigests; event?: InputDigests; entity?: InputDigests } = {};
  /** Id words of the current record, filled by `recordProblems` (slot 0 at 0, slot 1 at 4). */
  private readonly w = new Uint32Array(8);

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
  record(kind: RecordKind, r: Record<string, unknown>, path: string, line: number): void {
    const problems = recordProblems(kind, r, this.w);
    if (problems) {
      const rid = typeof r.id === 'string' ? r.id : undefined;
      for (const p of problems) this.fail(p.code, path, line, `${kind} record: ${p.message}`, rid, p.field);
      return;
    }
    this.accepted(kind, r, path, line);
  }

  /**
   * Replays a file scanned elsewhere ({@link RecordScan}, from a worker): the issues of its lines
   * and the checks of its schema-valid records, in file order — the same issues, in the same
   * order, as {@link record} for each line.
   */
  replay(kind: RecordKind, path: string, scan: RecordScan): void {
    // A replayed record has only its ids and numbers, not the text an input digest renders.
    if ((kind === 'chunk' || kind === 'event' || kind === 'entity') && this.inputs[kind] !== undefined) throw new Error(`replay: ${kind} input digests need the in-thread check`);
    const { tags, lines, words, nums, issues } = scan;
    const w = this.w;
    let next = 0;
    for (let e = 0; e < scan.count; e++) {
      const tag = tags[e]!;
      if (tag !== ENTRY_RECORD) {
        this.report(issues[next++]!);
        if (tag === ENTRY_LIMIT) this.incomplete = true;
        continue;
      }
      w.set(words.subarray(e * 8, e * 8 + 8));
      // Ids are canonical (schema-checked), so their text is rebuilt exactly from the words.
      const a = wordsToUuid(w, 0);
      let r: Record<string, unknown>;
      switch (kind) {
        case 'chunk':
          r = { id: a, document_id: wordsToUuid(w, 4), ordinal: nums[e] };
          break;
        case 'event':
          r = { id: a, level: nums[e] };
          break;
        case 'entity':
          r = { id: a };
          break;
        case 'chunk-event':
          r = { chunk_id: a, event_id: wordsToUuid(w, 4) };
          break;
        case 'event-entity':
          r = { event_id: a, entity_id: wordsToUuid(w, 4) };
          break;
      }
      this.accepted(kind, r, path, lines[e]!);
    }
  }

  /** The checks of a schema-valid record (its id words are in `w`). */
  private accepted(kind: RecordKind, r: Record<string, unknown>, path: string, line: number): void {
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

  /** Registers the record id parsed into slot 0. */
  private register(table: RecordTable, id: string, path: string, line: number): number {
    const index = this.ids.registerWords(this.w, 0, table.kind);
    if (index < 0) {
      const holder = IdSpace.kindOf(-1 - index);
      this.fail('OCTX_ID_DUPLICATE', path, line, `id ${id} is already used by ${describeIdKind(holder)}; ids are unique across the asset, documents and records`, id, 'id');
      return -1;
    }
    table.lines.push(line);
    return index;
  }

  private chunk(r: Record<string, unknown>, path: string, line: number): void {
    const id = r.id as string;
    const index = this.register(this.chunks, id, path, line);
    if (index < 0) return;
    this.inputs.chunk?.add(index, r, id, line);
    const documentId = r.document_id as string;
    const doc = this.ids.indexOfWords(this.w, 4, IdKind.document);
    if (doc < 0) {
      this.fail('OCTX_CHUNK_DOCUMENT_MISSING', path, line, `chunk document_id ${documentId} is not the id of a Concept Document in this package`, id, 'document_id');
      return;
    }
    this.docHasChunk[doc] = 1;
    const ordinal = r.ordinal as number;
    if (ordinal < ORDINAL_BASE && doc < PAIR_BASE) this.ordinals.add(doc * ORDINAL_BASE + ordinal, line);
    else this.ordinals.addWide(`${doc}:${ordinal}`, line);
  }

  private event(r: Record<string, unknown>, path: string, line: number): void {
    const index = this.register(this.events, r.id as string, path, line);
    if (index < 0) return;
    this.inputs.event?.add(index, r, r.id as string, line);
    let level = typeof r.level === 'number' ? r.level : 0;
    if (level > INT32_MAX) {
      // Refused here, never narrowed into the 32-bit column: a level is a depth in the hierarchy,
      // and no hierarchy is that deep. Stored as -1, which the level check below skips.
      this.fail(
        'OCTX_EVENT_LEVEL_INVALID',
        path,
        line,
        `level ${level} is deeper than any event hierarchy can be (at most ${INT32_MAX}); it can never be its parent's level + 1`,
        r.id as string,
        'level',
      );
      level = -1;
    }
    this.eventLevels.push(level);
    if ((index + 1) * 4 > this.parentWords.length) {
      const next = new Uint32Array(this.parentWords.length * 2);
      next.set(this.parentWords);
      this.parentWords = next;
    }
    // The schema guarantees parent_id and level come together; its words are in slot 1.
    if (level > 0) this.parentWords.set(this.w.subarray(4, 8), index * 4);
  }

  private entity(r: Record<string, unknown>, path: string, line: number): void {
    const index = this.register(this.entities, r.id as string, path, line);
    if (index >= 0) this.inputs.entity?.add(index, r, r.id as string, line);
  }

  /**
   * Resolves the event hierarchy once all events are known: parents exist
   * (`OCTX_EVENT_PARENT_MISSING`), no cycles (`OCTX_EVENT_HIERARCHY_CYCLE`), and
   * `level = parent.level + 1` with top-level events at 0 (`OCTX_EVENT_LEVEL_INVALID`).
   */
  finishEvents(): void {
    const n = this.eventLevels.length;
    const parent = new Int32Array(n).fill(-1);
    const { path, lines } = this.events;
    const idOf = (i: number): string => this.ids.idOf(IdKind.event, i);
    for (let i = 0; i < n; i++) {
      if (this.eventLevels.get(i) <= 0) continue;
      const j = this.ids.indexOfWords(this.parentWords, i * 4, IdKind.event);
      if (j < 0) {
        parent[i] = -2;
        if (!this.incomplete) {
          this.fail('OCTX_EVENT_PARENT_MISSING', path, lines.get(i), `parent_id ${wordsToUuid(this.parentWords, i * 4)} is not an event of this package`, idOf(i), 'parent_id');
        }
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
        this.fail('OCTX_EVENT_HIERARCHY_CYCLE', path, lines.get(i), `event ${idOf(i)} is its own ancestor (the parent_id chain loops)`, idOf(i), 'parent_id');
        continue;
      }
      const p = parent[i]!;
      if (p < 0) continue;
      const expected = this.eventLevels.get(p) + 1;
      const level = this.eventLevels.get(i);
      // -1: a level beyond 32 bits, reported when it was read.
      if (level === -1) continue;
      if (expected === 0) {
        this.fail('OCTX_EVENT_LEVEL_INVALID', path, lines.get(i), `level ${level} must be the parent's level + 1, and the parent's level is beyond ${INT32_MAX}`, idOf(i), 'level');
        continue;
      }
      if (level !== expected) this.fail('OCTX_EVENT_LEVEL_INVALID', path, lines.get(i), `level ${level} must be the parent's level + 1 = ${expected}`, idOf(i), 'level');
    }
    this.parentWords = new Uint32Array(0);
  }

  /** Sizes the coverage flags; call after the three record files, before the relations. */
  beginRelations(): void {
    this.chunkHasEvent = new Uint8Array(this.ids.count(IdKind.chunk));
    this.eventHasChunk = new Uint8Array(this.ids.count(IdKind.event));
    this.eventHasEntity = new Uint8Array(this.ids.count(IdKind.event));
    this.entityHasEvent = new Uint8Array(this.ids.count(IdKind.entity));
  }

  private pair(collector: KeyCollector, a: number, b: number, line: number): void {
    if (a < PAIR_BASE && b < PAIR_BASE) collector.add(a * PAIR_BASE + b, line);
    else collector.addWide(`${a}:${b}`, line);
  }

  private chunkEvent(r: Record<string, unknown>, path: string, line: number): void {
    const chunkId = r.chunk_id as string;
    const eventId = r.event_id as string;
    const c = this.ids.indexOfWords(this.w, 0, IdKind.chunk);
    const e = this.ids.indexOfWords(this.w, 4, IdKind.event);
    // After a file was cut short (resource limit), "missing" would only repeat that failure.
    if (c < 0 && !this.incomplete) this.fail('OCTX_CHUNK_EVENT_CHUNK_MISSING', path, line, `chunk_id ${chunkId} is not a chunk of this package`, undefined, 'chunk_id');
    if (e < 0 && !this.incomplete) this.fail('OCTX_CHUNK_EVENT_EVENT_MISSING', path, line, `event_id ${eventId} is not an event of this package`, undefined, 'event_id');
    if (c < 0 || e < 0) return;
    this.pair(this.chunkEventPairs, c, e, line);
    this.chunkHasEvent[c] = 1;
    this.eventHasChunk[e] = 1;
  }

  private eventEntity(r: Record<string, unknown>, path: string, line: number): void {
    const eventId = r.event_id as string;
    const entityId = r.entity_id as string;
    const e = this.ids.indexOfWords(this.w, 0, IdKind.event);
    const t = this.ids.indexOfWords(this.w, 4, IdKind.entity);
    if (e < 0 && !this.incomplete) this.fail('OCTX_EVENT_ENTITY_EVENT_MISSING', path, line, `event_id ${eventId} is not an event of this package`, undefined, 'event_id');
    if (t < 0 && !this.incomplete) this.fail('OCTX_EVENT_ENTITY_ENTITY_MISSING', path, line, `entity_id ${entityId} is not an entity of this package`, undefined, 'entity_id');
    if (e < 0 || t < 0) return;
    this.pair(this.eventEntityPairs, e, t, line);
    this.eventHasEntity[e] = 1;
    this.entityHasEvent[t] = 1;
  }

  /** Reports repeated ordinals and relation pairs, then the five coverage rules of SEED §6. */
  finish(): void {
    const split = (key: number, base: number): [number, number] => [Math.floor(key / base), key % base];
    for (const d of this.ordinals.duplicates()) {
      const [doc, ordinal] = split(d.key, ORDINAL_BASE);
      this.fail(
        'OCTX_CHUNK_ORDINAL_DUPLICATE',
        this.chunks.path,
        d.line,
        `ordinal ${ordinal} is used twice in document ${this.ids.idOf(IdKind.document, doc)}`,
        undefined,
        'ordinal',
      );
    }
    for (const d of this.ordinals.wideDuplicates)
      this.fail('OCTX_CHUNK_ORDINAL_DUPLICATE', this.chunks.path, d.line, `an ordinal is used twice in one document (${d.key})`, undefined, 'ordinal');
    const pairs = (collector: KeyCollector, code: OctxCode, path: string, ka: IdKind, kb: IdKind): void => {
      for (const d of collector.duplicates()) {
        const [a, b] = split(d.key, PAIR_BASE);
        this.fail(code, path, d.line, `the relation (${this.ids.idOf(ka, a)}, ${this.ids.idOf(kb, b)}) is listed twice`);
      }
      for (const d of collector.wideDuplicates) this.fail(code, path, d.line, 'a relation is listed twice');
    };
    pairs(this.chunkEventPairs, 'OCTX_CHUNK_EVENT_DUPLICATE', RECORD_KINDS['chunk-event'].path, IdKind.chunk, IdKind.event);
    pairs(this.eventEntityPairs, 'OCTX_EVENT_ENTITY_DUPLICATE', RECORD_KINDS['event-entity'].path, IdKind.event, IdKind.entity);
    if (this.incomplete) return;

    for (let d = 0; d < this.documents.length; d++) {
      if (this.docHasChunk[d]) continue;
      const doc = this.documents[d]!;
      this.fail('OCTX_SAG_DOCUMENT_WITHOUT_CHUNK', doc.path, undefined, `Concept Document ${doc.path} has no chunk`, doc.documentId);
    }
    const orphans = (table: RecordTable, flags: Uint8Array, code: OctxCode, what: string): void => {
      for (let i = 0; i < flags.length; i++) {
        if (flags[i]) continue;
        const id = this.ids.idOf(table.kind, i);
        this.fail(code, table.path, table.lines.get(i), `${describeIdKind(table.kind)} ${id} ${what}`, id);
      }
    };
    orphans(this.chunks, this.chunkHasEvent, 'OCTX_SAG_CHUNK_WITHOUT_EVENT', 'has no chunk-event relation');
    orphans(this.events, this.eventHasChunk, 'OCTX_EVENT_WITHOUT_CHUNK', 'has no chunk-event relation');
    orphans(this.events, this.eventHasEntity, 'OCTX_SAG_EVENT_WITHOUT_ENTITY', 'has no event-entity relation');
    orphans(this.entities, this.entityHasEvent, 'OCTX_ENTITY_WITHOUT_EVENT', 'is referenced by no event');
  }
}
