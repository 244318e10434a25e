/**
 * The five structure record shapes of `sag-structured/0.1`, as callers pass them to the builder.
 * Field names are the wire names; any other field is an "unknown optional field" kept verbatim,
 * except the names the spec forbids. An object literal passed to a builder method is checked
 * against these shapes, so a misspelt field (`parentId`, `sumary`) does not compile; extra fields
 * are passed through a named type: `builder.addEvent<MyEvent>({ …, x_source: 'wiki' })` with
 * `interface MyEvent extends EventRecord { readonly x_source: string }` (a value already typed as
 * `MyEvent` needs no type argument).
 */
import { RECORD_KINDS, RECORD_KIND_ORDER, knownFields, type RecordKind, type RecordKindSpec } from './record-kinds.js';

/** A chunk: a real piece of one Concept Document's text (`data/chunks.jsonl`). */
export interface ChunkRecord {
  /** Canonical lowercase UUIDv7, unique in the package. */
  readonly id: string;
  /** `octx.document_id` of a Concept Document in this package. */
  readonly document_id: string;
  /** Integer ≥ 0, unique within the document; gaps are allowed. */
  readonly ordinal: number;
  /** The complete chunk text (not a summary). */
  readonly text: string;
}

/** An event extracted from chunks (`data/events.jsonl`). */
export interface EventRecord {
  readonly id: string;
  /** Non-empty, displayable on its own. */
  readonly title: string;
  /** Non-empty complete statement, understandable without the chunk. */
  readonly content: string;
  readonly summary?: string;
  readonly category?: string;
  /** Parent event (child events only; needs `level`). */
  readonly parent_id?: string;
  /** Depth ≥ 1 for child events: parent level + 1 (top-level events have none: level 0). */
  readonly level?: number;
}

/** An entity taking part in events (`data/entities.jsonl`). */
export interface EntityRecord {
  readonly id: string;
  /** Non-empty canonical name. */
  readonly name: string;
  /** Non-empty, any vocabulary; consumers keep it as written. */
  readonly type: string;
  readonly description?: string;
}

/** A chunk → event provenance link (`relations/chunk-events.jsonl`). */
export interface ChunkEventLink {
  readonly chunk_id: string;
  readonly event_id: string;
}

/** An event → entity link (`relations/event-entities.jsonl`). */
export interface EventEntityLink {
  readonly event_id: string;
  readonly entity_id: string;
  /** Finite number, no fixed scale; omit when unknown (never null). */
  readonly weight?: number;
  readonly description?: string;
}

export type { RecordKind } from './record-kinds.js';

/**
 * The caller's shape of each record kind, by kind: what `OctxPackage.records(kind)` yields and
 * `PackageBuilder.addRecord(kind, …)` takes. Indexed by `RecordKind` below, so a kind added to
 * `RECORD_KINDS` without its shape here is a compile error.
 */
export interface RecordShapes {
  readonly chunk: ChunkRecord;
  readonly event: EventRecord;
  readonly entity: EntityRecord;
  readonly 'chunk-event': ChunkEventLink;
  readonly 'event-entity': EventEntityLink;
}

/** The caller's shape of a record of `K`. */
export type RecordOf<K extends RecordKind> = RecordShapes[K];

/** Required then optional known fields per kind, in the order they are written. */
export const RECORD_FIELDS: Readonly<Record<RecordKind, readonly string[]>> = Object.fromEntries(RECORD_KIND_ORDER.map((kind) => [kind, knownFields(kind)])) as Record<
  RecordKind,
  readonly string[]
>;

/**
 * Field names the builder refuses: the spec's schema-`false` fields (provenance lives only in
 * relations, and local index/database fields never enter OCTX) and the ones only the producer
 * refuses ({@link RecordKindSpec.refusedByProducer}).
 */
export const FORBIDDEN_RECORD_FIELDS: Readonly<Record<RecordKind, ReadonlySet<string>>> = Object.fromEntries(
  RECORD_KIND_ORDER.map((kind) => {
    const spec: RecordKindSpec = RECORD_KINDS[kind];
    return [kind, new Set([...spec.forbidden, ...spec.refusedByProducer])];
  }),
) as unknown as Record<RecordKind, ReadonlySet<string>>;
