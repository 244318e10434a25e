/**
 * The schema check of a vector target file, against the column table (`VECTOR_COLUMNS`, through
 * `vectors/arrow-schema.ts`, which also builds the schema the writer writes).
 */
import { Type, type Schema } from 'apache-arrow';
import type { OctxCode } from '../model/codes.js';
import { OctxError } from '../model/errors.js';
import { VECTOR_COLUMNS, vectorTargetColumns, type VectorColumn } from '../model/vector-format.js';
import { arrowColumnType, type ArrowTypeLike } from '../vectors/arrow-schema.js';

/** What {@link checkVectorSchema} reads of an apache-arrow schema field. */
interface ArrowField {
  readonly name: string;
  readonly nullable: boolean;
  readonly type: ArrowTypeLike;
}

/** Column layout of a valid vector target, found in its schema. */
export interface ArrowVectorSchema {
  /** Index of the `record_id` column. */
  readonly recordIdIndex: number;
  /** Index of the `vector` column. */
  readonly vectorIndex: number;
  /** `fixed_size_list` width. */
  readonly dimension: number;
  /** Index of a usable `input_sha256` column (non-nullable utf8), or -1. */
  readonly inputSha256Index: number;
  /** Why an `input_sha256` column that is present cannot be used (wrong type, nullable, repeated). */
  readonly inputSha256Problem?: string;
}

function problem(code: OctxCode, path: string, message: string): OctxError {
  return OctxError.of({ code, path, message });
}

/**
 * Why `field` is not the table's `column`: another type, then a nullable field, then a nullable
 * element field; `undefined` when it is the column.
 */
function columnProblem(field: ArrowField, column: VectorColumn): string | undefined {
  const t = field.type;
  if (arrowColumnType(t) !== column.type) {
    // The right kind of list of the wrong elements: name the elements.
    const element = /^fixed_size_list<(.+)>$/.exec(column.type)?.[1];
    if (element !== undefined && t.typeId === Type.FixedSizeList) {
      const child = t.children?.[0];
      return `${column.name} elements must be ${element}, not ${child ? String(child.type) : 'missing'}`;
    }
    return `${column.name} must be ${column.type}, not ${String(t)}`;
  }
  if (field.nullable !== column.nullable) return `the ${column.name} field must be declared non-nullable`;
  if (t.children?.[0]?.nullable === true) return `the ${column.name} element field must be declared non-nullable`;
  return undefined;
}

/** Positions of the fields named `name`. */
function fieldsNamed(fields: readonly ArrowField[], name: string): number[] {
  return fields.flatMap((f, i) => (f.name === name ? [i] : []));
}

/**
 * Checks the schema of a vector target against the column table: exactly one of each required
 * column (`record_id`, `vector`), each of the table's type and non-nullable (`record_id`: `utf8`,
 * not large, not dictionary; `vector`: `fixed_size_list<float32>` with a non-nullable child), the
 * width within 1…`maxDimension` and equal to `expectedDimension` when given. Extra columns are
 * allowed; an `input_sha256` column is located, and one that is not a single column as the table
 * declares it is described in `inputSha256Problem` (not thrown: the rest of the file can still
 * be read).
 * @throws OctxError `OCTX_VECTOR_COLUMNS_REQUIRED`, the column's `schemaCode`
 *   (`OCTX_VECTOR_RECORD_ID_SCHEMA`, `OCTX_VECTOR_VALUE_SCHEMA`), `OCTX_VECTOR_DIMENSION_INVALID`
 */
export function checkVectorSchema(schema: Schema, path: string, maxDimension: number, expectedDimension?: number): ArrowVectorSchema {
  const fields: readonly ArrowField[] = schema.fields;
  const required = vectorTargetColumns(false);
  const found = required.map((c) => fieldsNamed(fields, c.name));
  if (found.some((at) => at.length !== 1)) {
    throw problem(
      'OCTX_VECTOR_COLUMNS_REQUIRED',
      path,
      `a vector target needs exactly ${required.map((c) => `one ${c.name}`).join(' and ')} column (found ${found.map((at) => at.length).join(' and ')})`,
    );
  }
  required.forEach((column, k) => {
    const why = columnProblem(fields[found[k]![0]!]!, column);
    if (why !== undefined) throw problem(column.schemaCode, path, why);
  });
  const recordIdIndex = found[required.indexOf(VECTOR_COLUMNS.recordId)]![0]!;
  const vectorIndex = found[required.indexOf(VECTOR_COLUMNS.vector)]![0]!;
  const dimension = fields[vectorIndex]!.type.listSize!;
  if (!Number.isInteger(dimension) || dimension < 1 || dimension > maxDimension) {
    throw problem('OCTX_VECTOR_DIMENSION_INVALID', path, `vector dimension ${dimension} is outside 1…${maxDimension}`);
  }
  if (expectedDimension !== undefined && dimension !== expectedDimension) {
    throw problem('OCTX_VECTOR_DIMENSION_INVALID', path, `vector dimension ${dimension} differs from config.dimensions ${expectedDimension}`);
  }
  const digest = VECTOR_COLUMNS.inputSha256;
  const digests = fieldsNamed(fields, digest.name);
  const inputSha256Problem =
    digests.length > 1 ? `there are ${digests.length} ${digest.name} columns` : digests.length === 1 ? columnProblem(fields[digests[0]!]!, digest) : undefined;
  const inputSha256Index = digests.length === 1 && inputSha256Problem === undefined ? digests[0]! : -1;
  return { recordIdIndex, vectorIndex, dimension, inputSha256Index, ...(inputSha256Problem === undefined ? {} : { inputSha256Problem }) };
}
