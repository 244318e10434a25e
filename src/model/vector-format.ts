/**
 * The format facts of `vectors/0.1` target files (SEED §7, reference §10.6) in one place: the
 * Arrow columns and their types, the width of an input digest, and for every target the record
 * kind it covers, the kind of id its rows carry and its file. The writer (`vectors/`), the
 * reader and the validator (`read/`) and the planner all take them from here, so a column name
 * or a digest width cannot drift between the side that writes a file and the side that checks it.
 */
import type { OctxCode } from './codes.js';
import { IdKind } from './id-kind.js';
import { VECTOR_TARGET_PATHS } from './paths.js';
import { RECORD_KINDS, type RecordKind, type VectorTarget } from './record-kinds.js';

/** Hex digits of one `input_sha256` value (SHA-256, lower-case hex): also its UTF-8 byte width. */
export const INPUT_SHA256_HEX_LENGTH = 64;

/** Shape of one `input_sha256` value: exactly {@link INPUT_SHA256_HEX_LENGTH} lower-case hex digits. */
export const INPUT_SHA256_PATTERN = /^[0-9a-f]{64}$/;

/** One column of a vector target file, as the writer writes it and the reader checks it. */
export interface VectorColumn {
  /** Column name. */
  readonly name: string;
  /** Arrow type, spelt as the format spells it (`utf8`, `fixed_size_list<float32>`). */
  readonly type: 'utf8' | 'fixed_size_list<float32>';
  /** Present in every target file (`input_sha256` is present only when the vectors carry input digests). */
  readonly required: boolean;
  /** Columns are declared non-nullable (and hold no null). */
  readonly nullable: false;
  /** The code of a file whose column has another type or is declared nullable. */
  readonly schemaCode: OctxCode;
}

/**
 * The columns of a vector target file, in file order. All are non-nullable; `input_sha256` is
 * present only when the target's vectors carry input digests (an extra column, which the SEED
 * allows). `vector` is `fixed_size_list<float32>[dimensions]` whose element field is `item`
 * (non-nullable), the name apache-arrow and pyarrow give it. The writer builds its schema from
 * this table and the reader checks a file's schema against it (`vectors/arrow-schema.ts`).
 */
export const VECTOR_COLUMNS = Object.freeze({
  /** `record_id: utf8` — the id of the JSONL record the row belongs to. */
  recordId: Object.freeze({ name: 'record_id', type: 'utf8', required: true, nullable: false, schemaCode: 'OCTX_VECTOR_RECORD_ID_SCHEMA' }),
  /** `vector: fixed_size_list<float32>[dimensions]`. */
  vector: Object.freeze({ name: 'vector', type: 'fixed_size_list<float32>', item: 'item', required: true, nullable: false, schemaCode: 'OCTX_VECTOR_VALUE_SCHEMA' }),
  /** `input_sha256: utf8` — optional; {@link INPUT_SHA256_HEX_LENGTH} lower-case hex digits. */
  inputSha256: Object.freeze({
    name: 'input_sha256',
    type: 'utf8',
    width: INPUT_SHA256_HEX_LENGTH,
    required: false,
    nullable: false,
    schemaCode: 'OCTX_VECTOR_INPUT_SHA256_INVALID',
  }),
} as const satisfies Readonly<Record<string, VectorColumn>>);

/** The columns of a target file in file order: the required ones, then `input_sha256` with `digests`. */
export function vectorTargetColumns(digests: boolean): readonly (typeof VECTOR_COLUMNS)[keyof typeof VECTOR_COLUMNS][] {
  return Object.values(VECTOR_COLUMNS).filter((c) => c.required || digests);
}

/** What the format fixes for one vector target. */
export interface VectorTargetFormat {
  /** The target (`chunks`, `events`, `entities`). */
  readonly target: VectorTarget;
  /** Its Arrow file inside a package (`vectors/<target>.arrow`). */
  readonly path: (typeof VECTOR_TARGET_PATHS)[VectorTarget];
  /** The record kind whose records the file covers, one row per record. */
  readonly recordKind: (typeof TARGET_RECORD_KIND)[VectorTarget];
  /** The JSONL file of those records. */
  readonly jsonlPath: string;
  /** The id kind of `record_id` (the kind the record kind defines). */
  readonly idKind: IdKind;
}

/** The record kind whose records a vector target covers. */
export const TARGET_RECORD_KIND = { chunks: 'chunk', events: 'event', entities: 'entity' } as const satisfies Readonly<Record<VectorTarget, RecordKind>>;

function targetFormat(target: VectorTarget): VectorTargetFormat {
  const recordKind = TARGET_RECORD_KIND[target];
  const spec = RECORD_KINDS[recordKind];
  return Object.freeze({ target, path: VECTOR_TARGET_PATHS[target], recordKind, jsonlPath: spec.path, idKind: IdKind[spec.defines] });
}

/**
 * Every vector target's format facts, keyed by target. The record kinds' own table
 * (`RECORD_KINDS[kind].vectorTarget`) names the same pairs; a test pins that both agree.
 */
export const VECTOR_TARGET_FORMATS: Readonly<Record<VectorTarget, VectorTargetFormat>> = Object.freeze({
  chunks: targetFormat('chunks'),
  events: targetFormat('events'),
  entities: targetFormat('entities'),
});

/**
 * One row of a vector target, as a package holds it: what `openPackage().vectors()` yields, and
 * what a producer that copies vectors from a package (`derive`) hands back to `addVector`.
 */
export interface VectorRow {
  /** The `record_id` cell. */
  readonly recordId: string;
  /** `dimension` floats; a view into the current Arrow batch (copy it to keep it long). */
  readonly vector: Float32Array;
  /** The row's `input_sha256`, when the target carries that column (as stored; not checked here). */
  readonly inputSha256?: string;
}
