/**
 * What each record kind of `sag-structured/0.1` is, in one table (seed 001 §3–§6,
 * OCTX-REFERENCE §11): its JSONL file, the builder's spill file, its fields, the fields it must
 * not carry, the ids it defines and references, its vector target and its coverage rules.
 *
 * Every kind → file mapping, the validator's scan order, the builder's fast checks, the zod
 * schemas and the validator's record rules are derived from this table or typed against it
 * (`Record<RecordKind, …>`), so a kind added here and missed elsewhere is a type error. See
 * `docs/architecture.md`, "To add a record kind".
 */
import type { IdKindName } from './id-kind.js';

/** The five record kinds, named by their JSONL file. */
export type RecordKind = 'chunk' | 'event' | 'entity' | 'chunk-event' | 'event-entity';

/** A kind that `vectors/0.1` can carry vectors for: one Arrow file per target (seed §7). */
export type VectorTarget = 'chunks' | 'events' | 'entities';

/**
 * The five complete-coverage rules of seed §6, by number: (1) every Concept Document has at least
 * one chunk; (2) every chunk is in a chunk-event link; (3) every event is in a chunk-event link;
 * (4) every event is in an event-entity link; (5) every entity is in an event-entity link.
 */
export type CoverageRule = 1 | 2 | 3 | 4 | 5;

/** The definition of one record kind. */
export interface RecordKindSpec {
  /** The package file holding the records, one JSON object a line. */
  readonly path: string;
  /** The builder's spill file of this kind; the spill is the final payload, byte for byte. */
  readonly spillName: string;
  /** `record`: defines an id of its own; `relation`: links two records, identified by the pair. */
  readonly role: 'record' | 'relation';
  /** Required known fields, in the order they are written. */
  readonly required: readonly string[];
  /** Optional known fields, written after the required ones in this order. */
  readonly optional: readonly string[];
  /**
   * Fields the spec's schema forbids (`false`): the builder refuses them and the validator reports
   * them, both as errors.
   */
  readonly forbidden: readonly string[];
  /**
   * Fields only the producer refuses: a consumer must accept them (the schema allows unknown
   * fields), but the seed's prose keeps them out of a package, so our builder never writes them.
   * Listed in the differential record-rule test as deliberate differences.
   */
  readonly refusedByProducer: readonly string[];
  /** The UUIDv7 fields, in order: the first is the record's identity (see {@link recordIdField}). */
  readonly idFields: readonly string[];
  /** The kind of id the `id` field defines (records only). */
  readonly defines?: IdKindName;
  /** Reference fields and the kind of id each must name. */
  readonly references: Readonly<Record<string, IdKindName>>;
  /** The field that names the record in issues (`recordId`). */
  readonly recordIdField: string;
  /** The key of this kind in the export report's counts (`StructureCounts`). */
  readonly countKey: string;
  /** The vector target of this kind's records, if it can have one. */
  readonly vectorTarget?: VectorTarget;
  /** The coverage rules (seed §6) a record of this kind breaks when no relation names it. */
  readonly orphanRules: readonly CoverageRule[];
}

/** The record kinds, in the order the spec lists their files (and the validator reads them). */
export const RECORD_KINDS = {
  chunk: {
    path: 'data/chunks.jsonl',
    spillName: 'chunks.jsonl',
    role: 'record',
    required: ['id', 'document_id', 'ordinal', 'text'],
    optional: [],
    forbidden: [],
    refusedByProducer: [],
    idFields: ['id', 'document_id'],
    defines: 'chunk',
    references: { document_id: 'document' },
    recordIdField: 'id',
    countKey: 'chunks',
    vectorTarget: 'chunks',
    orphanRules: [2],
  },
  event: {
    path: 'data/events.jsonl',
    spillName: 'events.jsonl',
    role: 'record',
    required: ['id', 'title', 'content'],
    optional: ['summary', 'category', 'parent_id', 'level'],
    // Seed 001 §4: "An Event does not embed chunk_id, references, or a local rank."
    forbidden: ['chunk_id', 'references', 'rank'],
    // Seed 001 §4: "All provenance is expressed exclusively by chunk-events.jsonl": a chunk_ids
    // list is that provenance under another name. The schema does not forbid it, so a consumer
    // accepts it; our producer never writes it.
    refusedByProducer: ['chunk_ids'],
    idFields: ['id', 'parent_id'],
    defines: 'event',
    references: { parent_id: 'event' },
    recordIdField: 'id',
    countKey: 'events',
    vectorTarget: 'events',
    orphanRules: [3, 4],
  },
  entity: {
    path: 'data/entities.jsonl',
    spillName: 'entities.jsonl',
    role: 'record',
    required: ['id', 'name', 'type'],
    optional: ['description'],
    // Seed 001 §5: local index and database fields never enter OCTX.
    forbidden: ['normalized_name', 'entity_type_id', 'index_id', 'index_status', 'embedding', 'vector'],
    refusedByProducer: [],
    idFields: ['id'],
    defines: 'entity',
    references: {},
    recordIdField: 'id',
    countKey: 'entities',
    vectorTarget: 'entities',
    orphanRules: [5],
  },
  'chunk-event': {
    path: 'relations/chunk-events.jsonl',
    spillName: 'chunk-events.jsonl',
    role: 'relation',
    required: ['chunk_id', 'event_id'],
    optional: [],
    forbidden: [],
    refusedByProducer: [],
    idFields: ['chunk_id', 'event_id'],
    references: { chunk_id: 'chunk', event_id: 'event' },
    recordIdField: 'chunk_id',
    countKey: 'chunkEvents',
    orphanRules: [],
  },
  'event-entity': {
    path: 'relations/event-entities.jsonl',
    spillName: 'event-entities.jsonl',
    role: 'relation',
    required: ['event_id', 'entity_id'],
    optional: ['weight', 'description'],
    forbidden: [],
    refusedByProducer: [],
    idFields: ['event_id', 'entity_id'],
    references: { event_id: 'event', entity_id: 'entity' },
    recordIdField: 'event_id',
    countKey: 'eventEntities',
    orphanRules: [],
  },
} as const satisfies Readonly<Record<RecordKind, RecordKindSpec>>;

/** The keys of the export report's record counts, one per kind. */
export type RecordCountKey = (typeof RECORD_KINDS)[RecordKind]['countKey'];

/** Every record kind in spec order: records first (chunks, events, entities), then relations. */
export const RECORD_KIND_ORDER: readonly RecordKind[] = Object.freeze(Object.keys(RECORD_KINDS) as RecordKind[]);

/** The record kind stored at `path`, or `undefined` when `path` is not a structure file. */
export function recordKindAt(path: string): RecordKind | undefined {
  return RECORD_KIND_ORDER.find((kind) => RECORD_KINDS[kind].path === path);
}

/** Required then optional known fields of `kind`, in the order they are written. */
export function knownFields(kind: RecordKind): readonly string[] {
  const spec: RecordKindSpec = RECORD_KINDS[kind];
  return [...spec.required, ...spec.optional];
}
