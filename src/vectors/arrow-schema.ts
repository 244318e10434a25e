/**
 * The column table of a vector target file (`VECTOR_COLUMNS` in `model/vector-format.ts`) in
 * apache-arrow's terms, for both sides: the schema the writer writes is built from it, and the
 * reader compares each column of a file with it through {@link arrowColumnType}. A column added
 * to the table is written and checked without another list to update.
 */
import { Field, FixedSizeList, Float32, Precision, Schema, Type, Utf8 } from 'apache-arrow';
import { VECTOR_COLUMNS, vectorTargetColumns, type VectorColumn } from '../model/vector-format.js';

/** Column types of a vector target file (`input_sha256` only when the vectors carry input digests). */
export type VectorTargetColumns = { record_id: Utf8; vector: FixedSizeList<Float32>; input_sha256?: Utf8 };

/**
 * What {@link arrowColumnType} reads of an apache-arrow type. The typings give `Field.type` (and
 * so a type's `children`) as `any`; apache-arrow's `DataType` has all of these.
 */
export interface ArrowTypeLike {
  readonly typeId: Type;
  /** The child fields (the element field of a `fixed_size_list`); `null` on types without. */
  readonly children?: readonly { readonly type: ArrowTypeLike; readonly nullable: boolean; readonly name: string }[] | null;
  /** `Float` types only. */
  readonly precision?: Precision;
  /** `FixedSizeList` types only. */
  readonly listSize?: number;
  /** The type as apache-arrow writes it, e.g. `Utf8`, `FixedSizeList[4]<Float32>`. */
  toString(): string;
}

/**
 * The table's spelling of an apache-arrow type (`utf8`, `fixed_size_list<float32>`), or
 * `undefined` for a type the table has no column of. `large_utf8`, a dictionary and a list of
 * another element type are not the table's types.
 */
export function arrowColumnType(type: ArrowTypeLike): VectorColumn['type'] | undefined {
  if (type.typeId === Type.Utf8) return 'utf8';
  if (type.typeId === Type.FixedSizeList) {
    const item = type.children?.[0]?.type;
    if (item !== undefined && item.typeId === Type.Float && item.precision === Precision.SINGLE) return 'fixed_size_list<float32>';
  }
  return undefined;
}

/** The apache-arrow type of a column of the table (`dimensions`: the width of `vector`). */
function arrowTypeOf(column: VectorColumn, dimensions: number): Utf8 | FixedSizeList<Float32> {
  switch (column.type) {
    case 'utf8':
      return new Utf8();
    case 'fixed_size_list<float32>':
      return new FixedSizeList(dimensions, new Field(VECTOR_COLUMNS.vector.item, new Float32(), false));
  }
}

/**
 * The schema of a vector target file: the table's columns in file order, all non-nullable
 * (`record_id: Utf8`, `vector: FixedSizeList<Float32>[dimensions]` with child field `item`),
 * then, with `digests`, `input_sha256: Utf8`.
 */
export function vectorTargetSchema(dimensions: number, digests: boolean): Schema<VectorTargetColumns> {
  return new Schema<VectorTargetColumns>(vectorTargetColumns(digests).map((c) => new Field(c.name, arrowTypeOf(c, dimensions), c.nullable)));
}
