import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Field, FixedSizeList, Float32, Float64, Int32, Schema, Utf8, tableFromIPC } from 'apache-arrow';
import { afterAll, describe, expect, it } from 'vitest';
import { IdKind } from '../../src/model/id-kind.js';
import { VECTOR_TARGET_PATHS } from '../../src/model/paths.js';
import { RECORD_KINDS, RECORD_KIND_ORDER } from '../../src/model/record-kinds.js';
import { INPUT_SHA256_HEX_LENGTH, INPUT_SHA256_PATTERN, TARGET_RECORD_KIND, VECTOR_COLUMNS, VECTOR_TARGET_FORMATS, vectorTargetColumns } from '../../src/model/vector-format.js';
import type { OctxError } from '../../src/model/errors.js';
import { arrowColumnType, vectorTargetSchema } from '../../src/vectors/arrow-schema.js';
import { writeArrowTarget } from '../../src/vectors/arrow-writer.js';
import { INPUT_SHA256_COLUMN } from '../../src/vectors/input-digest.js';
import { TARGET_ID_KIND, VECTOR_TARGETS } from '../../src/vectors/targets.js';
import { DIGEST_BYTES, VectorSpill } from '../../src/vectors/vector-spill.js';
import { checkVectorSchema } from '../../src/read/arrow-schema-check.js';
import { resolveLimits } from '../../src/model/limits.js';

const dir = mkdtempSync(path.join(tmpdir(), 'octx-vector-format-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the vector format table (model/vector-format.ts)', () => {
  it('names each target once, agreeing with the record kinds table, the paths and the id kinds', () => {
    expect(Object.keys(VECTOR_TARGET_FORMATS)).toEqual([...VECTOR_TARGETS]);
    for (const target of VECTOR_TARGETS) {
      const f = VECTOR_TARGET_FORMATS[target];
      expect(f.target).toBe(target);
      expect(f.path).toBe(VECTOR_TARGET_PATHS[target]);
      expect(f.path).toBe(`vectors/${target}.arrow`);
      expect(f.recordKind).toBe(TARGET_RECORD_KIND[target]);
      expect(RECORD_KINDS[f.recordKind].vectorTarget).toBe(target);
      expect(f.jsonlPath).toBe(RECORD_KINDS[f.recordKind].path);
      expect(f.idKind).toBe(IdKind[RECORD_KINDS[f.recordKind].defines]);
      expect(TARGET_ID_KIND[target]).toBe(f.idKind);
      expect(Object.isFrozen(f)).toBe(true);
    }
    // No record kind names a vector target the table lacks.
    const named = RECORD_KIND_ORDER.flatMap((k) => {
      const t = (RECORD_KINDS[k] as { vectorTarget?: string }).vectorTarget;
      return t === undefined ? [] : [t];
    });
    expect(named).toEqual([...VECTOR_TARGETS]);
  });

  it('fixes the digest width to a SHA-256 in hex, and every digest alias agrees', () => {
    const hex = createHash('sha256').update('x').digest('hex');
    expect(INPUT_SHA256_HEX_LENGTH).toBe(hex.length);
    expect(DIGEST_BYTES).toBe(INPUT_SHA256_HEX_LENGTH);
    expect(VECTOR_COLUMNS.inputSha256.width).toBe(INPUT_SHA256_HEX_LENGTH);
    expect(INPUT_SHA256_PATTERN.test(hex)).toBe(true);
    expect(INPUT_SHA256_PATTERN.test(hex.toUpperCase())).toBe(false);
    expect(INPUT_SHA256_PATTERN.test(hex.slice(1))).toBe(false);
    expect(INPUT_SHA256_COLUMN).toBe(VECTOR_COLUMNS.inputSha256.name);
  });

  it('is what the writer writes and what the reader looks for', async () => {
    const spill = new VectorSpill({ file: path.join(dir, 'events.f32'), target: 'events', dimensions: 3, normalized: false });
    const digest = 'a'.repeat(INPUT_SHA256_HEX_LENGTH);
    spill.add(0, 'r0', [1, 2, 3], { inputSha256: digest });
    const outPath = path.join(dir, 'events.arrow');
    await writeArrowTarget({ spill, rows: [{ recordIndex: 0, id: 'r0' }], outPath });
    spill.close();
    const table = tableFromIPC(readFileSync(outPath));
    const names = table.schema.fields.map((f) => f.name);
    expect(names).toEqual([VECTOR_COLUMNS.recordId.name, VECTOR_COLUMNS.vector.name, VECTOR_COLUMNS.inputSha256.name]);
    expect((table.schema.fields[1]!.type as FixedSizeList<Float32>).children[0]!.name).toBe(VECTOR_COLUMNS.vector.item);
    expect(String(table.getChild(VECTOR_COLUMNS.inputSha256.name)!.get(0))).toBe(digest);

    const layout = checkVectorSchema(table.schema, VECTOR_TARGET_FORMATS.events.path, resolveLimits().maxArrowDimension, 3);
    expect(layout).toEqual({ recordIdIndex: 0, vectorIndex: 1, dimension: 3, inputSha256Index: 2 });
  });

  it("builds the writer's schema and checks the reader's from the same column table", () => {
    const schema = vectorTargetSchema(3, true) as unknown as Schema;
    const columns = vectorTargetColumns(true);
    expect(schema.fields.map((f) => f.name)).toEqual(columns.map((c) => c.name));
    schema.fields.forEach((f, i) => {
      expect(arrowColumnType(f.type)).toBe(columns[i]!.type);
      expect(f.nullable).toBe(columns[i]!.nullable);
    });
    expect(vectorTargetColumns(false).map((c) => c.name)).toEqual([VECTOR_COLUMNS.recordId.name, VECTOR_COLUMNS.vector.name]);
    const path = VECTOR_TARGET_FORMATS.chunks.path;
    const max = resolveLimits().maxArrowDimension;
    expect(checkVectorSchema(schema, path, max, 3)).toEqual({ recordIdIndex: 0, vectorIndex: 1, dimension: 3, inputSha256Index: 2 });

    // Each column of the table, given another type or declared nullable, is refused with its own code.
    const replaced = (name: string, field: Field): Schema => new Schema(schema.fields.map((f) => (f.name === name ? field : f)));
    const refusal = (s2: Schema): string | undefined => {
      try {
        const layout = checkVectorSchema(s2, path, max, 3);
        return layout.inputSha256Problem === undefined ? undefined : VECTOR_COLUMNS.inputSha256.schemaCode;
      } catch (e) {
        return (e as OctxError).code;
      }
    };
    for (const column of columns) {
      const other = column.type === 'utf8' ? new Int32() : new Utf8();
      expect(refusal(replaced(column.name, new Field(column.name, other, false)))).toBe(column.schemaCode);
      const field = schema.fields.find((f) => f.name === column.name)!;
      expect(refusal(replaced(column.name, new Field(column.name, field.type, true)))).toBe(column.schemaCode);
    }
    // The list of the wrong elements, and a nullable element field.
    const vector = VECTOR_COLUMNS.vector;
    expect(refusal(replaced(vector.name, new Field(vector.name, new FixedSizeList(3, new Field(vector.item, new Float64(), false)), false)))).toBe(vector.schemaCode);
    expect(refusal(replaced(vector.name, new Field(vector.name, new FixedSizeList(3, new Field(vector.item, new Float32(), true)), false)))).toBe(vector.schemaCode);
  });
});
