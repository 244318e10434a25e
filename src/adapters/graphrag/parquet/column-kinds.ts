/**
 * What a top-level Parquet column holds, in the few kinds the GraphRAG layouts are written in:
 * text, integers, floating-point numbers, all-null columns and lists of those. Used to check a
 * table's columns against its layout before any row is read.
 */
import type { SchemaTree } from 'hyparquet';

/** The kind of values of a column. */
export type ColumnKind = 'string' | 'int' | 'float' | 'bool' | 'null' | 'list<string>' | 'list<int>' | 'list<float>' | 'other';

/** One top-level column. */
export interface ColumnInfo {
  readonly kind: ColumnKind;
  /** Its Parquet type as written (`BYTE_ARRAY/STRING`, `LIST<DOUBLE>`, `INT32/NULL`), for messages. */
  readonly type: string;
}

function leafKind(node: SchemaTree): { kind: ColumnKind; type: string } {
  const e = node.element;
  const logical = e.logical_type?.type;
  const type = `${e.type ?? 'GROUP'}${logical ? `/${logical}` : e.converted_type ? `/${e.converted_type}` : ''}`;
  if (node.children.length > 0) return { kind: 'other', type };
  if (logical === 'NULL') return { kind: 'null', type };
  switch (e.type) {
    case 'BYTE_ARRAY':
      // An unannotated byte array is read as UTF-8 text (hyparquet's default, and what pandas writes for str).
      return { kind: logical === undefined || logical === 'STRING' || e.converted_type === 'UTF8' ? 'string' : 'other', type };
    case 'INT32':
    case 'INT64':
      return { kind: logical === undefined || logical === 'INTEGER' ? 'int' : 'other', type };
    case 'FLOAT':
    case 'DOUBLE':
      return { kind: 'float', type };
    case 'BOOLEAN':
      return { kind: 'bool', type };
    default:
      return { kind: 'other', type };
  }
}

/** The kind of a top-level column of a Parquet schema tree. */
export function describeColumn(node: SchemaTree): ColumnInfo {
  const e = node.element;
  const isList = e.logical_type?.type === 'LIST' || e.converted_type === 'LIST';
  if (node.children.length === 0) return leafKind(node);
  if (isList && node.children.length === 1) {
    const repeated = node.children[0]!;
    // Three-level list (list → element) or the legacy two-level one (a repeated leaf).
    const element = repeated.children.length === 1 ? repeated.children[0]! : repeated.children.length === 0 ? repeated : undefined;
    if (element !== undefined) {
      const leaf = leafKind(element);
      const kind: ColumnKind = leaf.kind === 'string' ? 'list<string>' : leaf.kind === 'int' ? 'list<int>' : leaf.kind === 'float' ? 'list<float>' : 'other';
      return { kind, type: `LIST<${leaf.type}>` };
    }
  }
  return { kind: 'other', type: isList ? 'LIST<…>' : 'STRUCT' };
}
