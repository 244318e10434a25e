/**
 * Issue 24, item 9: Arrow files written by apache-arrow's own file writer were refused. Its
 * `RecordBatchFileWriter` (and so `tableToIPC(table, 'file')`) writes the schema only in the
 * footer, with no schema message before the first batch; the IPC *file* format (what vectors/0.1
 * requires) allows that, and pyarrow reads such files. The reader now takes the schema from the
 * footer when the file has no schema message.
 */
import { RecordBatchFileWriter, tableFromIPC, tableToIPC } from 'apache-arrow';
import { afterAll, describe, expect, it } from 'vitest';
import { openPackage, validatePackage } from '../../src/read/index.js';
import { cleanupTempDirs, entriesOf, genStructure, rowsFor, vectorPackage, writeDir, writeZip, arrowFile, type Structure } from './helpers.js';

afterAll(cleanupTempDirs);

const DIM = 4;
const MAGIC = Buffer.from('ARROW1\0\0', 'latin1');

/** The chunks target written by apache-arrow's RecordBatchFileWriter, in batches of `batchSize`. */
function writerFile(s: Structure, batchSize?: number): Buffer {
  const ids = s.chunks.map((c) => c.id as string);
  return arrowFile(rowsFor(ids, DIM), { dim: DIM, footerOnlySchema: true, ...(batchSize ? { batchSize } : {}) });
}

/** Whether the first message after the magic is a schema (message header type 1). */
function startsWithSchemaMessage(file: Buffer): boolean {
  expect(file.subarray(0, 8).equals(MAGIC)).toBe(true);
  const meta = tableFromIPC(file); // decodable at all
  expect(meta.numRows).toBeGreaterThan(0);
  // apache-arrow's file writer goes straight to the first record batch: its metadata is at 16.
  const length = file.readInt32LE(12);
  const body = file.subarray(16, 16 + length);
  // flatbuffers Message: root table offset, then header_type at its vtable's slot 1 (byte).
  const table = body.readUInt32LE(0);
  const vtable = table - body.readInt32LE(table);
  const slot = body.readUInt16LE(vtable + 6);
  return slot !== 0 && body.readUInt8(table + slot) === 1;
}

describe("Arrow files from apache-arrow's own file writer", () => {
  const s = genStructure({ docs: 2, chunksPerDoc: 5 });

  it('RecordBatchFileWriter output (no schema message, schema in the footer) validates, directory and ZIP', async () => {
    const file = writerFile(s);
    expect(startsWithSchemaMessage(file)).toBe(false);
    const entries = entriesOf(vectorPackage(s, { dim: DIM, arrow: { chunks: file } }));
    for (const target of [await writeDir(entries), await writeZip(entries, { store: true }), await writeZip(entries)]) {
      const r = await validatePackage(target);
      expect(r.issues).toEqual([]);
      expect(r.valid).toBe(true);
      expect(r.capabilities.vectors?.valid).toBe(true);
    }
  });

  it("tableToIPC(table, 'file') output validates, in several batches, and openPackage reads its rows", async () => {
    const table = tableFromIPC(writerFile(s, 3));
    expect(table.batches.length).toBe(4);
    const file = Buffer.from(tableToIPC(table, 'file'));
    expect(startsWithSchemaMessage(file)).toBe(false);
    const dir = await writeDir(entriesOf(vectorPackage(s, { dim: DIM, arrow: { chunks: file } })));
    const r = await validatePackage(dir);
    expect(r.issues).toEqual([]);
    expect(r.valid).toBe(true);
    const pkg = await openPackage(dir);
    try {
      const rows: { recordId: string; vector: number[] }[] = [];
      for await (const row of pkg.vectors('chunks')) rows.push({ recordId: row.recordId, vector: [...row.vector] });
      const expected = rowsFor(
        s.chunks.map((c) => c.id as string),
        DIM,
      );
      expect(rows.map((x) => x.recordId)).toEqual(expected.map((x) => x.id));
      expect(rows[7]!.vector).toEqual([...Float32Array.from(expected[7]!.vector!)]);
    } finally {
      await pkg.close();
    }
  });

  it('a footer larger than the first tail read (3,000 one-row batches: 72 KB of block entries) is read whole', async () => {
    const big = genStructure({ docs: 1, chunksPerDoc: 3000 });
    const file = writerFile(big, 1);
    const footerLength = file.readInt32LE(file.length - 10);
    expect(footerLength).toBeGreaterThan(64 * 1024);
    const r = await validatePackage(await writeDir(entriesOf(vectorPackage(big, { dim: DIM, arrow: { chunks: file } }))));
    expect(r.issues).toEqual([]);
    expect(r.valid).toBe(true);
  }, 60_000);

  it('a schema-first file (what this SDK writes) still validates, and a schema message after a batch is refused', async () => {
    const ids = s.chunks.map((c) => c.id as string);
    const schemaFirst = arrowFile(rowsFor(ids, DIM), { dim: DIM });
    expect(startsWithSchemaMessage(schemaFirst)).toBe(true);
    expect((await validatePackage(await writeDir(entriesOf(vectorPackage(s, { dim: DIM, arrow: { chunks: schemaFirst } }))))).valid).toBe(true);

    // A writer that emits the schema message late: batches first, then a schema message.
    const table = tableFromIPC(writerFile(s, 5));
    const w = new RecordBatchFileWriter();
    w.write(table.batches[0]);
    const late = Buffer.from(w.finish().toUint8Array(true));
    const schemaMsg = schemaFirst.subarray(8, 8 + 8 + schemaFirst.readInt32LE(12));
    // magic | batch… | schema message | EOS + footer: splice the schema message before the EOS marker.
    const eos = late.lastIndexOf(Buffer.from([0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0]));
    const spliced = Buffer.concat([late.subarray(0, eos), schemaMsg, late.subarray(eos)]);
    const r = await validatePackage(await writeDir(entriesOf(vectorPackage(s, { dim: DIM, arrow: { chunks: spliced } }))));
    expect(r.capabilities.vectors?.valid).toBe(false);
    expect(r.capabilities.vectors?.issues.map((i) => i.code)).toContain('OCTX_VECTOR_ARROW_INVALID');
  });

  it('a file without a schema message and with a broken footer is OCTX_VECTOR_ARROW_INVALID', async () => {
    const file = Buffer.from(writerFile(s));
    // Corrupt the footer length: the footer schema cannot be found.
    file.writeInt32LE(file.length * 2, file.length - 10);
    const r = await validatePackage(await writeDir(entriesOf(vectorPackage(s, { dim: DIM, arrow: { chunks: file } }))));
    expect(r.capabilities.vectors?.valid).toBe(false);
    expect(r.capabilities.vectors?.issues.map((i) => [i.code, i.path])).toEqual([['OCTX_VECTOR_ARROW_INVALID', 'vectors/chunks.arrow']]);
    expect(r.capabilities.vectors?.issues[0]?.message).toMatch(/footer/);
  });
});
