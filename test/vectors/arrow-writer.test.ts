import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { crc32 } from 'node:zlib';
import type { Float32, FixedSizeList } from 'apache-arrow';
import type { Codec, Schema } from 'apache-arrow';
import {
  CompressionType,
  Message,
  MessageHeader,
  MessageReader,
  RecordBatchFileWriter,
  RecordBatchReader,
  Type,
  compressionRegistry,
  tableFromArrays,
  tableFromIPC,
} from 'apache-arrow';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OctxError } from '../../src/model/errors.js';
import type { VectorRowRef } from '../../src/vectors/arrow-writer.js';
import { writeArrowTarget } from '../../src/vectors/arrow-writer.js';
import { VectorSpill } from '../../src/vectors/vector-spill.js';
import { HEADER, walkArrowFile } from './arrow-walk.js';

let dir: string;
const spills: VectorSpill[] = [];

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'octx-arrow-'));
});
afterEach(() => {
  for (const s of spills.splice(0)) s.close();
  rmSync(dir, { recursive: true, force: true });
});

function newSpill(dimensions: number): VectorSpill {
  const s = new VectorSpill({ file: path.join(dir, `spill-${spills.length}.f32`), target: 'chunks', dimensions, normalized: false });
  spills.push(s);
  return s;
}

/** Deterministic awkward floats: subnormals, -0, large and small magnitudes. */
function vectorFor(i: number, dims: number): Float32Array {
  const v = new Float32Array(dims);
  for (let k = 0; k < dims; k++) v[k] = Math.fround(Math.sin(i * 31 + k) * 10 ** ((k % 7) - 3));
  if (dims > 2) {
    v[0] = i % 2 === 0 ? -0 : 1.401298464324817e-45;
    v[1] = -3.4028234663852886e38;
  }
  return v;
}

async function expectOctxError(p: Promise<unknown>, code: string): Promise<OctxError> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(OctxError);
    expect((e as OctxError).code).toBe(code);
    return e as OctxError;
  }
  throw new Error(`expected ${code}`);
}

describe('writeArrowTarget', () => {
  it('writes an Arrow IPC file with the exact schema and bit-exact vectors, in row order', async () => {
    const dims = 5;
    const spill = newSpill(dims);
    const ids = ['019c2222-2222-7222-8222-222222222222', 'é-chunk', '中文-記錄', 'emoji-😀', 'z'];
    // Added in a different order than written: the spill maps record index → slot.
    for (const i of [3, 0, 4, 2, 1]) spill.add(i, ids[i] as string, vectorFor(i, dims));
    const order = [4, 1, 0, 3, 2];
    const rows: VectorRowRef[] = order.map((i) => ({ recordIndex: i, id: ids[i] as string }));
    const outPath = path.join(dir, 'chunks.arrow');
    const result = await writeArrowTarget({ spill, rows, outPath, batchRows: 2 });

    const bytes = readFileSync(outPath);
    expect(result.rows).toBe(5);
    expect(result.size).toBe(bytes.length);
    expect(result.sha256).toBe(createHash('sha256').update(bytes).digest('hex'));
    expect(result.crc32).toBe(crc32(bytes)); // the ZIP entry's checksum, computed while writing
    expect(bytes.subarray(0, 8).toString('latin1')).toBe('ARROW1\0\0');
    expect(bytes.subarray(bytes.length - 6).toString('latin1')).toBe('ARROW1');

    const table = tableFromIPC(bytes);
    expect(table.numRows).toBe(5);
    expect(table.batches).toHaveLength(3); // batchRows 2 → 2 + 2 + 1
    const [recordId, vector] = table.schema.fields;
    expect(table.schema.fields.map((f) => f.name)).toEqual(['record_id', 'vector']);
    expect(recordId?.type.typeId).toBe(Type.Utf8);
    expect(recordId?.nullable).toBe(false);
    expect(vector?.type.typeId).toBe(Type.FixedSizeList);
    expect(vector?.nullable).toBe(false);
    const listType = vector?.type as FixedSizeList<Float32>;
    expect(listType.listSize).toBe(dims);
    const child = listType.children[0];
    expect(child?.name).toBe('item');
    expect(child?.type.typeId).toBe(Type.Float);
    expect(String(child?.type)).toBe('Float32');
    expect(child?.nullable).toBe(false);

    const idColumn = table.getChild('record_id');
    const vecColumn = table.getChild('vector');
    expect(idColumn?.nullCount).toBe(0);
    expect(vecColumn?.nullCount).toBe(0);
    expect(idColumn?.toArray()).toEqual(order.map((i) => ids[i]));
    // Bit-for-bit: compare the raw float32 words of every row.
    order.forEach((recordIndex, row) => {
      const got = vecColumn?.get(row) as { toArray(): Float32Array } | null;
      const arr = got?.toArray() ?? new Float32Array(0);
      expect(new Uint32Array(Float32Array.from(arr).buffer)).toEqual(new Uint32Array(vectorFor(recordIndex, dims).buffer));
    });
  });

  it('has a schema message first, no body compression, and a footer that matches the body', async () => {
    const dims = 3;
    const spill = newSpill(dims);
    for (let i = 0; i < 7; i++) spill.add(i, `id-${i}`, vectorFor(i, dims));
    const outPath = path.join(dir, 'events.arrow');
    await writeArrowTarget({ spill, rows: Array.from({ length: 7 }, (_, i) => ({ recordIndex: i, id: `id-${i}` })), outPath, batchRows: 3 });
    const bytes = new Uint8Array(readFileSync(outPath));

    // 1. Independent hand-written flatbuffer walk (what the reference validator checks).
    const walk = walkArrowFile(bytes);
    expect(walk.messages.map((m) => m.headerType)).toEqual([HEADER.Schema, HEADER.RecordBatch, HEADER.RecordBatch, HEADER.RecordBatch]);
    expect(walk.messages.every((m) => !m.compressed)).toBe(true);
    const batches = walk.messages.filter((m) => m.headerType === HEADER.RecordBatch);
    expect(walk.footerBlocks).toEqual(batches.map((m) => ({ offset: m.offset, metaDataLength: m.metadataSize + 8, bodyLength: m.bodyLength })));

    // 2. apache-arrow's own message reader over the body: compression is null on every batch.
    const footerStart = walk.footerStart;
    const reader = new MessageReader(bytes.subarray(8, footerStart));
    const seen: number[] = [];
    for (let m = reader.readMessage(); m !== null; m = reader.readMessage()) {
      seen.push(m.headerType);
      if (m.isRecordBatch()) expect(m.header().compression).toBeNull();
      if (m.bodyLength > 0) reader.readMessageBody(m.bodyLength);
    }
    expect(seen).toEqual([MessageHeader.Schema, MessageHeader.RecordBatch, MessageHeader.RecordBatch, MessageHeader.RecordBatch]);

    // 3. The file reader agrees on the batch count.
    const fileReader = RecordBatchReader.from(bytes);
    fileReader.open();
    expect(fileReader.isFile()).toBe(true);
    expect(fileReader.numRecordBatches).toBe(3);
  });

  it('detects a compressed batch with the same walker (the check is real)', async () => {
    // Flip the test around: a file written with LZ4 body compression must be flagged by both
    // the hand-written walk and apache-arrow's message reader.
    const fake = { encode: (b: Uint8Array) => Uint8Array.of(4, 34, 77, 24, 0x40, 0, 0, ...b), decode: (b: Uint8Array) => b };
    compressionRegistry.set(CompressionType.LZ4_FRAME, fake);
    try {
      class SchemaFirst extends RecordBatchFileWriter {
        protected override _writeSchema(schema: Schema): this {
          super._writeSchema(schema);
          return this._writeMessage(Message.from(schema));
        }
      }
      const table = tableFromArrays({ x: Float32Array.of(1, 2, 3) });
      const compressed = new SchemaFirst({ compressionType: CompressionType.LZ4_FRAME }).writeAll(table).toUint8Array(true);
      const walk = walkArrowFile(compressed);
      expect(walk.messages.map((m) => [m.headerType, m.compressed])).toEqual([
        [HEADER.Schema, false],
        [HEADER.RecordBatch, true],
      ]);
      const reader = new MessageReader(compressed.subarray(8));
      reader.readMessage(); // schema
      const m = reader.readMessage();
      expect(m?.isRecordBatch()).toBe(true);
      if (m?.isRecordBatch()) expect(m.header().compression).not.toBeNull();
    } finally {
      compressionRegistry.set(CompressionType.LZ4_FRAME, null as unknown as Codec); // unregister (null is accepted at runtime)
    }
  });

  it('needs the schema-message fix: stock apache-arrow file output fails the reference walk', () => {
    const stock = RecordBatchFileWriter.writeAll(tableFromArrays({ x: Float32Array.of(1) })).toUint8Array(true);
    expect(() => walkArrowFile(stock)).toThrow(/schema message/);
  });

  it('writes a valid file with the schema when there are no rows', async () => {
    const spill = newSpill(4);
    const outPath = path.join(dir, 'entities.arrow');
    const result = await writeArrowTarget({ spill, rows: [], outPath });
    const bytes = readFileSync(outPath);
    expect(result).toEqual({ sha256: createHash('sha256').update(bytes).digest('hex'), size: bytes.length, crc32: crc32(bytes), rows: 0 });
    const walk = walkArrowFile(new Uint8Array(bytes));
    expect(walk.messages.map((m) => m.headerType)).toEqual([HEADER.Schema]);
    expect(walk.footerBlocks).toEqual([]);
    const table = tableFromIPC(bytes);
    expect(table.numRows).toBe(0);
    expect(table.schema.fields.map((f) => [f.name, f.nullable])).toEqual([
      ['record_id', false],
      ['vector', false],
    ]);
    expect((table.schema.fields[1]?.type as FixedSizeList).listSize).toBe(4);
  });

  it('is deterministic: the same input gives byte-identical files', async () => {
    const dims = 8;
    const make = async (name: string, addOrder: number[]): Promise<{ bytes: Buffer; sha: string }> => {
      const spill = newSpill(dims);
      for (const i of addOrder) spill.add(i, `r${i}`, vectorFor(i, dims));
      const outPath = path.join(dir, name);
      const r = await writeArrowTarget({ spill, rows: [0, 1, 2, 3, 4, 5].map((i) => ({ recordIndex: i, id: `r${i}` })), outPath, batchRows: 4 });
      return { bytes: readFileSync(outPath), sha: r.sha256 };
    };
    const a = await make('a.arrow', [0, 1, 2, 3, 4, 5]);
    const b = await make('b.arrow', [5, 3, 1, 0, 2, 4]); // spill order must not matter
    expect(b.bytes.equals(a.bytes)).toBe(true);
    expect(b.sha).toBe(a.sha);
  });

  it('accepts lazy sync and async row sources and batches larger than the input', async () => {
    const dims = 2;
    const spill = newSpill(dims);
    for (let i = 0; i < 20; i++) spill.add(i, `r${i}`, [i, -i]);
    function* syncRows(): Generator<VectorRowRef> {
      for (let i = 19; i >= 0; i--) yield { recordIndex: i, id: `r${i}` };
    }
    async function* asyncRows(): AsyncGenerator<VectorRowRef> {
      for (let i = 19; i >= 0; i--) yield { recordIndex: i, id: `r${i}` };
    }
    const a = await writeArrowTarget({ spill, rows: syncRows(), outPath: path.join(dir, 'a.arrow'), batchRows: 6 });
    const b = await writeArrowTarget({ spill, rows: asyncRows(), outPath: path.join(dir, 'b.arrow'), batchRows: 6 });
    expect(b.sha256).toBe(a.sha256);
    const t = tableFromIPC(readFileSync(path.join(dir, 'a.arrow')));
    expect(t.batches.map((x) => x.numRows)).toEqual([6, 6, 6, 2]);
    expect(t.getChild('record_id')?.get(0)).toBe('r19');
    expect(Array.from((t.getChild('vector')?.get(19) as { toArray(): Float32Array }).toArray())).toEqual([0, -0]);
    const big = await writeArrowTarget({ spill, rows: syncRows(), outPath: path.join(dir, 'c.arrow'), batchRows: 100 });
    expect(tableFromIPC(readFileSync(path.join(dir, 'c.arrow'))).batches).toHaveLength(1);
    expect(big.rows).toBe(20);
  });

  it('refuses rows without a vector, repeated rows, unlisted vectors and bad ids, and removes the partial file', async () => {
    const spill = newSpill(2);
    spill.add(0, 'a', [1, 2]);
    spill.add(1, 'b', [3, 4]);
    const outPath = path.join(dir, 'bad.arrow');
    const missing = await expectOctxError(
      writeArrowTarget({
        spill,
        rows: [
          { recordIndex: 0, id: 'a' },
          { recordIndex: 2, id: 'c' },
        ],
        outPath,
      }),
      'OCTX_VECTOR_COVERAGE',
    );
    expect(missing.issues[0]?.recordId).toBe('c');
    expect(existsSync(outPath)).toBe(false);
    const dup = await expectOctxError(
      writeArrowTarget({
        spill,
        rows: [
          { recordIndex: 0, id: 'a' },
          { recordIndex: 0, id: 'a' },
        ],
        outPath,
      }),
      'OCTX_VECTOR_RECORD_ID_DUPLICATE',
    );
    expect(dup.issues[0]?.recordId).toBe('a');
    await expectOctxError(writeArrowTarget({ spill, rows: [{ recordIndex: 0, id: 'a' }], outPath }), 'OCTX_VECTOR_COVERAGE');
    await expectOctxError(
      writeArrowTarget({
        spill,
        rows: [
          { recordIndex: 0, id: '\ud800' },
          { recordIndex: 1, id: 'b' },
        ],
        outPath,
      }),
      'OCTX_VECTOR_RECORD_ID_SCHEMA',
    );
    await expectOctxError(writeArrowTarget({ spill, rows: [], outPath, batchRows: 0 }), 'OCTX_OPTIONS_INVALID');
    expect(existsSync(outPath)).toBe(false);
  });

  it('passes an error of the row source through unchanged and removes the partial file', async () => {
    const spill = newSpill(1);
    for (let i = 0; i < 5; i++) spill.add(i, `r${i}`, [i]);
    const boom = new Error('source failed');
    function* rows(): Generator<VectorRowRef> {
      for (let i = 0; i < 5; i++) {
        if (i === 3) throw boom;
        yield { recordIndex: i, id: `r${i}` };
      }
    }
    const outPath = path.join(dir, 'source.arrow');
    await expect(writeArrowTarget({ spill, rows: rows(), outPath, batchRows: 2 })).rejects.toBe(boom);
    expect(existsSync(outPath)).toBe(false);
  });

  it('does not delete a file it did not create', async () => {
    const spill = newSpill(1);
    const outPath = path.join(dir, 'missing-dir', 'x.arrow');
    await expectOctxError(writeArrowTarget({ spill, rows: [], outPath }), 'OCTX_IO_ERROR');
    const keep = path.join(dir, 'keep.arrow');
    writeFileSync(keep, 'precious');
    await expectOctxError(writeArrowTarget({ spill, rows: [], outPath: keep, batchRows: -1 }), 'OCTX_OPTIONS_INVALID');
    expect(readFileSync(keep, 'utf8')).toBe('precious');
  });

  it('stops with OCTX_ABORTED and leaves no file', async () => {
    const spill = newSpill(2);
    for (let i = 0; i < 10; i++) spill.add(i, `r${i}`, [i, i]);
    const rows = Array.from({ length: 10 }, (_, i) => ({ recordIndex: i, id: `r${i}` }));
    const outPath = path.join(dir, 'aborted.arrow');
    const already = new AbortController();
    already.abort();
    await expectOctxError(writeArrowTarget({ spill, rows, outPath, signal: already.signal }), 'OCTX_ABORTED');
    expect(existsSync(outPath)).toBe(false);

    const mid = new AbortController();
    async function* slowRows(): AsyncGenerator<VectorRowRef> {
      for (const r of rows) {
        if (r.recordIndex === 5) mid.abort(new Error('user cancelled'));
        yield r;
      }
    }
    const e = await expectOctxError(writeArrowTarget({ spill, rows: slowRows(), outPath, batchRows: 2, signal: mid.signal }), 'OCTX_ABORTED');
    expect((e.cause as Error).message).toBe('user cancelled');
    expect(existsSync(outPath)).toBe(false);
  });

  it('streams a larger target in bounded batches', async () => {
    const dims = 64;
    const n = 20_000;
    const spill = newSpill(dims);
    const v = new Float32Array(dims);
    for (let i = 0; i < n; i++) {
      v.fill(i / n);
      spill.add(i, `rec-${i.toString().padStart(6, '0')}`, v);
    }
    const rows = Array.from({ length: n }, (_, i) => ({ recordIndex: i, id: `rec-${i.toString().padStart(6, '0')}` }));
    const outPath = path.join(dir, 'large.arrow');
    const r = await writeArrowTarget({ spill, rows, outPath, batchRows: 8192 });
    expect(r.rows).toBe(n);
    const t = tableFromIPC(readFileSync(outPath));
    expect(t.batches.map((b) => b.numRows)).toEqual([8192, 8192, 3616]);
    const col = t.getChild('vector');
    expect((col?.get(n - 1) as { toArray(): Float32Array }).toArray()[dims - 1]).toBe(Math.fround((n - 1) / n));
    expect(walkArrowFile(new Uint8Array(readFileSync(outPath))).footerBlocks).toHaveLength(3);
  });
});
