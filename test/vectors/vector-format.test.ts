import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { tableFromIPC, type FixedSizeList, type Float32 } from 'apache-arrow';
import { afterAll, describe, expect, it } from 'vitest';
import { IdKind } from '../../src/model/id-kind.js';
import { VECTOR_TARGET_PATHS } from '../../src/model/paths.js';
import { RECORD_KINDS, RECORD_KIND_ORDER } from '../../src/model/record-kinds.js';
import { INPUT_SHA256_HEX_LENGTH, INPUT_SHA256_PATTERN, TARGET_RECORD_KIND, VECTOR_COLUMNS, VECTOR_TARGET_FORMATS } from '../../src/model/vector-format.js';
import { writeArrowTarget } from '../../src/vectors/arrow-writer.js';
import { INPUT_SHA256_COLUMN } from '../../src/vectors/input-digest.js';
import { TARGET_ID_KIND, VECTOR_TARGETS } from '../../src/vectors/targets.js';
import { DIGEST_BYTES, VectorSpill } from '../../src/vectors/vector-spill.js';
import { checkVectorSchema } from '../../src/read/arrow-file.js';
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
});
