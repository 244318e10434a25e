/**
 * Issue 16, item 8: the reader refuses Arrow record batch metadata the builder would never write
 * — a buffer that reaches beyond the message body, a negative buffer length or offset, a null
 * count above its node's length, a negative batch length — with `OCTX_VECTOR_ARROW_INVALID` on
 * the target's path. (A negative batch length used to be reported as missing coverage.)
 *
 * The files are made valid by apache-arrow, then one int64 of the record batch's metadata
 * flatbuffer is patched in place (found by its decoded value), so the rest stays byte-valid.
 */
import { Message, MessageHeader } from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import { validatePackage } from '../../src/read/index.js';
import { arrowFile, entriesOf, genStructure, rowsFor, vectorPackage, writeDir } from './helpers.js';

const DIM = 4;

interface RecordBatchHeader {
  readonly length: number;
  readonly nodes: readonly { length: number; nullCount: number }[];
  readonly buffers: readonly { offset: number; length: number }[];
}

/** The first record batch message of an Arrow file: where its metadata lies, and its header. */
function firstRecordBatch(file: Buffer): { metaStart: number; meta: Buffer; header: RecordBatchHeader } {
  let pos = 8;
  for (;;) {
    if (file.readInt32LE(pos) !== -1) throw new Error('no record batch');
    const metaLength = file.readInt32LE(pos + 4);
    const meta = file.subarray(pos + 8, pos + 8 + metaLength);
    const message = Message.decode(meta);
    if (message.headerType === MessageHeader.RecordBatch) return { metaStart: pos + 8, meta, header: message.header() as unknown as RecordBatchHeader };
    pos += 8 + metaLength + message.bodyLength;
  }
}

const int64 = (...values: number[]): Buffer => {
  const b = Buffer.alloc(8 * values.length);
  values.forEach((v, i) => b.writeBigInt64LE(BigInt(v), 8 * i));
  return b;
};

/** Where the flatbuffer holds the struct vector whose int64 pairs are `pairs`. */
function vectorAt(meta: Buffer, pairs: readonly [number, number][]): number {
  const at = meta.indexOf(int64(...pairs.flat()));
  if (at < 0 || meta.indexOf(int64(...pairs.flat()), at + 1) >= 0) throw new Error('struct vector not found exactly once');
  return at;
}

type Edit = (h: RecordBatchHeader, meta: Buffer) => { at: number; value: number };

/** The file with one int64 of its first record batch's metadata replaced. */
function patched(file: Buffer, edit: Edit): Buffer {
  const out = Buffer.from(file);
  const { metaStart, meta, header } = firstRecordBatch(out);
  const { at, value } = edit(header, meta);
  out.writeBigInt64LE(BigInt(value), metaStart + at);
  return out;
}

const buffersAt = (h: RecordBatchHeader, meta: Buffer): number =>
  vectorAt(
    meta,
    h.buffers.map((b) => [b.offset, b.length]),
  );
const nodesAt = (h: RecordBatchHeader, meta: Buffer): number =>
  vectorAt(
    meta,
    h.nodes.map((n) => [n.length, n.nullCount]),
  );

/** The batch's own `length` field: the int64 equal to the row count that decodes as it when patched. */
function batchLengthAt(h: RecordBatchHeader, meta: Buffer): number {
  const hits: number[] = [];
  for (let at = meta.indexOf(int64(h.length)); at >= 0; at = meta.indexOf(int64(h.length), at + 1)) {
    const copy = Buffer.from(meta);
    copy.writeBigInt64LE(-7n, at);
    if ((Message.decode(copy).header() as unknown as RecordBatchHeader).length === -7) hits.push(at);
  }
  if (hits.length !== 1) throw new Error(`batch length found ${hits.length} times`);
  return hits[0]!;
}

describe('malformed Arrow record batch metadata (item 8)', () => {
  const s = genStructure({ docs: 2, chunksPerDoc: 3 });
  const good = arrowFile(
    rowsFor(
      s.chunks.map((c) => c.id as string),
      DIM,
    ),
    { dim: DIM },
  );
  const bodyOf = (file: Buffer): number => Message.decode(firstRecordBatch(file).meta).bodyLength;
  // The vector values buffer: the last one (validity, offsets, data of record_id; validity of
  // the list; validity, data of the floats).
  const last = (h: RecordBatchHeader): number => h.buffers.length - 1;

  const cases: [string, Edit, RegExp][] = [
    ['a buffer length beyond the body', (h, m) => ({ at: buffersAt(h, m) + 16 * last(h) + 8, value: bodyOf(good) + 64 }), /buffer .* beyond the .*body/],
    ['a negative buffer length', (h, m) => ({ at: buffersAt(h, m) + 16 * last(h) + 8, value: -8 }), /negative/],
    ['a negative buffer offset', (h, m) => ({ at: buffersAt(h, m) + 16 * last(h), value: -8 }), /negative/],
    ['a null count above the row count', (h, m) => ({ at: nodesAt(h, m) + 8, value: h.length + 1 }), /null count/],
    ['a negative null count', (h, m) => ({ at: nodesAt(h, m) + 8, value: -1 }), /null count/],
    ['a negative batch length', (h, m) => ({ at: batchLengthAt(h, m), value: -1 }), /negative .*length|length -1/],
  ];
  for (const [what, edit, message] of cases) {
    it(`refuses ${what} with OCTX_VECTOR_ARROW_INVALID on the target`, async () => {
      const bytes = patched(good, edit);
      const report = await validatePackage(await writeDir(entriesOf(vectorPackage(s, { arrow: { chunks: bytes } }))));
      expect(report.format.valid).toBe(true);
      expect(report.capabilities['sag-structured']!.valid).toBe(true);
      expect(report.capabilities.vectors!.valid).toBe(false);
      const issues = report.capabilities.vectors!.issues;
      expect(issues.map((i) => [i.code, i.path])).toEqual([['OCTX_VECTOR_ARROW_INVALID', 'vectors/chunks.arrow']]);
      expect(issues[0]!.message).toMatch(message);
    });
  }

  it('the unpatched file is valid (the patching itself breaks nothing)', async () => {
    const report = await validatePackage(await writeDir(entriesOf(vectorPackage(s, { arrow: { chunks: good } }))));
    expect(report.issues).toEqual([]);
  });
});
