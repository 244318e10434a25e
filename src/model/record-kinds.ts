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
import type { OctxCode } from './codes.js';
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

/**
 * One field of a record kind: what its value must be. The builder's fast check, the zod schemas and
 * the validator's record rules are all generated from these specs (`structure/record-check.ts`,
 * `structure/record-schemas.ts`, `read/record-rules.ts`).
 */
export interface FieldSpec {
  /**
   * `uuidv7`: a canonical lowercase UUIDv7 string; `text`: a string without lone surrogates;
   * `int`: a safe integer; `number`: a finite number.
   */
  readonly type: 'uuidv7' | 'text' | 'int' | 'number';
  /** The field must be present (otherwise it may be omitted, never `null`). */
  readonly required?: boolean;
  /** `uuidv7`: the kind of id a reference must name (absent for the record's own `id`). */
  readonly ref?: IdKindName;
  /** `ref`: the issue code of a reference that names no record of that kind (graph checks). */
  readonly missingCode?: OctxCode;
  /**
   * `text`: the schema's `minLength: 1`; the producer is stricter and also refuses text that is
   * only white space (a deliberate difference, see `test/structure/record-rules-agree.test.ts`).
   */
  readonly nonEmpty?: boolean;
  /** `int`: the least value allowed. */
  readonly min?: number;
  /** `int`: why the least value is what it is, added to the message of a smaller one. */
  readonly minHint?: string;
  /** `number`: the validator's code for a non-finite value (the schema's `OCTX_SCHEMA_VALIDATION` otherwise). */
  readonly nonFiniteCode?: OctxCode;
}

/** A record kind as written in {@link RECORD_KINDS}; the field lists are derived from `fields`. */
export interface RecordKindRow {
  /** The package file holding the records, one JSON object a line. */
  readonly path: string;
  /** The builder's spill file of this kind; the spill is the final payload, byte for byte. */
  readonly spillName: string;
  /** `record`: defines an id of its own; `relation`: links two records, identified by the pair. */
  readonly role: 'record' | 'relation';
  /**
   * The known fields, in the order they are written (required ones first). The first field is
   * required: a written line always starts with it.
   */
  readonly fields: Readonly<Record<string, FieldSpec>>;
  /**
   * The builder's in-memory column of each id field (and each integer field the graph checks
   * need), named as in `StructureColumns` (`structure/structure-snapshot.ts`): the identity and
   * the references as dense ids, `level` as its value. The first is the kind's record count.
   */
  readonly columns: Readonly<Record<string, string>>;
  /**
   * Fields that are given together or not at all (a child event's `parent_id` and `level`); a
   * record with only one of them is reported on the missing one.
   */
  readonly together?: readonly (readonly [string, string])[];
  /**
   * A reference that must not name the record itself. Only the builder refuses it at the call;
   * the validator reports it with the hierarchy, after every record is read.
   */
  readonly notSelf?: string;
  /**
   * Fields the spec's schema forbids (`false`): the builder refuses them and the validator reports
   * them, both as errors.
   */
  readonly forbidden: readonly string[];
  /** Why the forbidden fields are forbidden (said in the issue). */
  readonly forbiddenReason?: string;
  /**
   * Fields only the producer refuses: a consumer must accept them (the schema allows unknown
   * fields), but the seed's prose keeps them out of a package, so our builder never writes them.
   * Listed in the differential record-rule test as deliberate differences.
   */
  readonly refusedByProducer: readonly string[];
  /** The kind of id the `id` field defines (records only). */
  readonly defines?: IdKindName;
  /** Relations: the issue code of a pair linked twice (the pair of its two references). */
  readonly duplicateCode?: OctxCode;
  /** The field that names the record in issues (`recordId`). */
  readonly recordIdField: string;
  /** The key of this kind in the export report's counts (`StructureCounts`). */
  readonly countKey: string;
  /** The vector target of this kind's records, if it can have one. */
  readonly vectorTarget?: VectorTarget;
  /** The coverage rules (seed §6) a record of this kind breaks when no relation names it. */
  readonly orphanRules: readonly CoverageRule[];
}

/** The definition of one record kind: its row and the field lists derived from its `fields`. */
export interface RecordKindSpec extends RecordKindRow {
  /** Required known fields, in the order they are written. */
  readonly required: readonly string[];
  /** Optional known fields, written after the required ones in this order. */
  readonly optional: readonly string[];
  /** The UUIDv7 fields, in order: the first is the record's identity (see {@link RecordKindRow.recordIdField}). */
  readonly idFields: readonly string[];
  /** Reference fields and the kind of id each must name. */
  readonly references: Readonly<Record<string, IdKindName>>;
}

/** Derives a row's field lists from its field specs (once, at module load). */
function kind<const T extends RecordKindRow>(row: T): T & Omit<RecordKindSpec, keyof RecordKindRow> {
  const names = Object.keys(row.fields);
  const spec = (name: string): FieldSpec => row.fields[name]!;
  const required = names.filter((f) => spec(f).required === true);
  const optional = names.filter((f) => spec(f).required !== true);
  if (names.join() !== [...required, ...optional].join() || required.length === 0) throw new Error(`${row.path}: required fields come first`);
  const references: Record<string, IdKindName> = {};
  for (const f of names) {
    const ref = spec(f).ref;
    if (ref === undefined) continue;
    if (spec(f).missingCode === undefined) throw new Error(`${row.path}: reference ${f} needs its missingCode`);
    references[f] = ref;
  }
  const idFields = names.filter((f) => spec(f).type === 'uuidv7');
  return Object.freeze({ ...row, required, optional, idFields, references: Object.freeze(references) });
}

/** The record kinds, in the order the spec lists their files (and the validator reads them). */
export const RECORD_KINDS = {
  chunk: kind({
    path: 'data/chunks.jsonl',
    spillName: 'chunks.jsonl',
    role: 'record',
    fields: {
      id: { type: 'uuidv7', required: true },
      document_id: { type: 'uuidv7', required: true, ref: 'document', missingCode: 'OCTX_CHUNK_DOCUMENT_MISSING' },
      ordinal: { type: 'int', required: true, min: 0 },
      text: { type: 'text', required: true, nonEmpty: true },
    },
    columns: { id: 'chunkId', document_id: 'chunkDocument' },
    forbidden: [],
    refusedByProducer: [],
    defines: 'chunk',
    recordIdField: 'id',
    countKey: 'chunks',
    vectorTarget: 'chunks',
    orphanRules: [2],
  }),
  event: kind({
    path: 'data/events.jsonl',
    spillName: 'events.jsonl',
    role: 'record',
    fields: {
      id: { type: 'uuidv7', required: true },
      title: { type: 'text', required: true, nonEmpty: true },
      content: { type: 'text', required: true, nonEmpty: true },
      summary: { type: 'text' },
      category: { type: 'text' },
      parent_id: { type: 'uuidv7', ref: 'event', missingCode: 'OCTX_EVENT_PARENT_MISSING' },
      level: { type: 'int', min: 1, minHint: 'a top-level event omits level' },
    },
    together: [['parent_id', 'level']],
    notSelf: 'parent_id',
    // Seed 001 §4: "An Event does not embed chunk_id, references, or a local rank."
    columns: { id: 'eventId', parent_id: 'eventParent', level: 'eventLevel' },
    forbidden: ['chunk_id', 'references', 'rank'],
    forbiddenReason: 'provenance lives only in relations/chunk-events.jsonl',
    // Seed 001 §4: "All provenance is expressed exclusively by chunk-events.jsonl": a chunk_ids
    // list is that provenance under another name. The schema does not forbid it, so a consumer
    // accepts it; our producer never writes it.
    refusedByProducer: ['chunk_ids'],
    defines: 'event',
    recordIdField: 'id',
    countKey: 'events',
    vectorTarget: 'events',
    orphanRules: [3, 4],
  }),
  entity: kind({
    path: 'data/entities.jsonl',
    spillName: 'entities.jsonl',
    role: 'record',
    fields: {
      id: { type: 'uuidv7', required: true },
      name: { type: 'text', required: true, nonEmpty: true },
      type: { type: 'text', required: true, nonEmpty: true },
      description: { type: 'text' },
    },
    // Seed 001 §5: local index and database fields never enter OCTX.
    columns: { id: 'entityId' },
    forbidden: ['normalized_name', 'entity_type_id', 'index_id', 'index_status', 'embedding', 'vector'],
    forbiddenReason: 'local index and database fields never enter an OCTX package',
    refusedByProducer: [],
    defines: 'entity',
    recordIdField: 'id',
    countKey: 'entities',
    vectorTarget: 'entities',
    orphanRules: [5],
  }),
  'chunk-event': kind({
    path: 'relations/chunk-events.jsonl',
    spillName: 'chunk-events.jsonl',
    role: 'relation',
    fields: {
      chunk_id: { type: 'uuidv7', required: true, ref: 'chunk', missingCode: 'OCTX_CHUNK_EVENT_CHUNK_MISSING' },
      event_id: { type: 'uuidv7', required: true, ref: 'event', missingCode: 'OCTX_CHUNK_EVENT_EVENT_MISSING' },
    },
    columns: { chunk_id: 'linkChunk', event_id: 'linkEvent' },
    forbidden: [],
    refusedByProducer: [],
    duplicateCode: 'OCTX_CHUNK_EVENT_DUPLICATE',
    recordIdField: 'chunk_id',
    countKey: 'chunkEvents',
    orphanRules: [],
  }),
  'event-entity': kind({
    path: 'relations/event-entities.jsonl',
    spillName: 'event-entities.jsonl',
    role: 'relation',
    fields: {
      event_id: { type: 'uuidv7', required: true, ref: 'event', missingCode: 'OCTX_EVENT_ENTITY_EVENT_MISSING' },
      entity_id: { type: 'uuidv7', required: true, ref: 'entity', missingCode: 'OCTX_EVENT_ENTITY_ENTITY_MISSING' },
      weight: { type: 'number', nonFiniteCode: 'OCTX_EVENT_ENTITY_WEIGHT_INVALID' },
      description: { type: 'text' },
    },
    columns: { event_id: 'mentionEvent', entity_id: 'mentionEntity' },
    forbidden: [],
    refusedByProducer: [],
    duplicateCode: 'OCTX_EVENT_ENTITY_DUPLICATE',
    recordIdField: 'event_id',
    countKey: 'eventEntities',
    orphanRules: [],
  }),
} as const satisfies Readonly<Record<RecordKind, RecordKindSpec>>;

/**
 * The reference that satisfies each coverage rule (seed §6): a record of the kind `by.field`
 * names (a Concept Document for rule 1) breaks the rule when no `by` record names it there. The
 * rows' `orphanRules` list the same rules from the other side (checked when this module loads).
 */
export const COVERAGE_RULES = {
  1: { by: 'chunk', field: 'document_id' },
  2: { by: 'chunk-event', field: 'chunk_id' },
  3: { by: 'chunk-event', field: 'event_id' },
  4: { by: 'event-entity', field: 'event_id' },
  5: { by: 'event-entity', field: 'entity_id' },
} as const satisfies Readonly<Record<CoverageRule, { readonly by: RecordKind; readonly field: string }>>;

/** The coverage rules in order (1 to 5). */
export const COVERAGE_RULE_ORDER: readonly CoverageRule[] = Object.freeze(Object.keys(COVERAGE_RULES).map(Number) as CoverageRule[]);

for (const rule of COVERAGE_RULE_ORDER) {
  const { by, field } = COVERAGE_RULES[rule];
  const named = (RECORD_KINDS[by] as RecordKindSpec).references[field];
  const orphan = (Object.keys(RECORD_KINDS) as RecordKind[]).find((k) => (RECORD_KINDS[k] as RecordKindSpec).defines === named);
  const listed = orphan === undefined ? named === 'document' : (RECORD_KINDS[orphan] as RecordKindSpec).orphanRules.includes(rule);
  if (!listed) throw new Error(`coverage rule ${rule}: ${by}.${field} names ${String(named)}, whose row does not list the rule`);
}
for (const kind of Object.keys(RECORD_KINDS) as RecordKind[]) {
  const row: RecordKindSpec = RECORD_KINDS[kind];
  for (const rule of row.orphanRules) {
    const { by, field } = COVERAGE_RULES[rule];
    if ((RECORD_KINDS[by] as RecordKindSpec).references[field] !== row.defines)
      throw new Error(`${kind}: orphan rule ${rule} is satisfied by ${by}.${field}, which does not name a ${kind}`);
  }
}

/** The keys of the export report's record counts, one per kind. */
export type RecordCountKey = (typeof RECORD_KINDS)[RecordKind]['countKey'];

/**
 * The name of a kind's file without its folder and `.jsonl` (`chunks`, `chunk-events`): how
 * reports and progress name the kind to a user, who sees the files.
 */
export type RecordFileStem<K extends RecordKind = RecordKind> = K extends RecordKind ? ((typeof RECORD_KINDS)[K]['path'] extends `${string}/${infer S}.jsonl` ? S : never) : never;

/** The kinds whose row has `role` (`record`: chunk, event, entity; `relation`: the links). */
export type RecordKindWithRole<R extends RecordKindRow['role']> = { [K in RecordKind]: (typeof RECORD_KINDS)[K]['role'] extends R ? K : never }[RecordKind];

/** Every record kind in spec order: records first (chunks, events, entities), then relations. */
export const RECORD_KIND_ORDER: readonly RecordKind[] = Object.freeze(Object.keys(RECORD_KINDS) as RecordKind[]);

/** The record kind stored at `path`, or `undefined` when `path` is not a structure file. */
export function recordKindAt(path: string): RecordKind | undefined {
  return RECORD_KIND_ORDER.find((kind) => RECORD_KINDS[kind].path === path);
}

/** {@link RecordFileStem}: `chunks` for `data/chunks.jsonl`. */
export function recordFileStem<K extends RecordKind>(kind: K): RecordFileStem<K> {
  const path: string = RECORD_KINDS[kind].path;
  return path.slice(path.lastIndexOf('/') + 1, -'.jsonl'.length) as RecordFileStem<K>;
}

/** Required then optional known fields of `kind`, in the order they are written. */
export function knownFields(kind: RecordKind): readonly string[] {
  const spec: RecordKindSpec = RECORD_KINDS[kind];
  return [...spec.required, ...spec.optional];
}
