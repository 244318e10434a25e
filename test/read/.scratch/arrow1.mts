import { Field, FixedSizeList, Float32, Schema, Utf8, makeData, RecordBatch, Struct, RecordBatchFileWriter, tableToIPC, Table } from 'apache-arrow';
import { Readable } from 'node:stream';
import { ByteReader, readArrowVectorFile } from '../../../src/read/arrow-file.ts';
import { DEFAULT_ARCHIVE_LIMITS } from '../../../src/read/limits.ts';

function batch(ids: string[], dim: number) {
  const item = new Field('item', new Float32(), false);
  const vt = new FixedSizeList(dim, item);
  const schema = new Schema([new Field('record_id', new Utf8(), false), new Field('vector', vt, false)]);
  const flat = new Float32Array(ids.length * dim).map((_, i) => i / 10);
  const child = makeData({ type: new Float32(), length: ids.length * dim, nullCount: 0, data: flat });
  const vec = makeData({ type: vt, length: ids.length, nullCount: 0, child });
  const enc = Buffer.from(ids.join(''));
  const offs = new Int32Array(ids.length + 1); let o = 0; ids.forEach((s, i) => { o += Buffer.byteLength(s); offs[i + 1] = o; });
  const idd = makeData({ type: new Utf8(), length: ids.length, nullCount: 0, valueOffsets: offs, data: enc });
  return new RecordBatch(schema, makeData({ type: new Struct(schema.fields), length: ids.length, nullCount: 0, children: [idd, vec] }));
}
const b1 = batch(['a', 'b', 'c'], 4), b2 = batch(['d', 'e'], 4);
const w = new RecordBatchFileWriter();
w.write(b1); w.write(b2);
const bytes = Buffer.from(await w.finish().toUint8Array());
console.log('size', bytes.length, bytes.subarray(0, 8), bytes.subarray(-10));
const it = Readable.from([bytes.subarray(0, 100), bytes.subarray(100)])[Symbol.asyncIterator]();
const r = new ByteReader(it as AsyncIterator<Buffer>, 'v.arrow');
const sum = await readArrowVectorFile(r, { path: 'v.arrow', size: bytes.length, limits: DEFAULT_ARCHIVE_LIMITS, expectedDimension: 4 }, (b) => console.log(b.length, b.recordIds, b.values.slice(0, 5)));
console.log(sum);
const stream = Buffer.from(tableToIPC(new Table([b1, b2]), 'stream'));
try { await readArrowVectorFile(new ByteReader(Readable.from([stream])[Symbol.asyncIterator]() as AsyncIterator<Buffer>, 'x'), { path: 'x', size: stream.length, limits: DEFAULT_ARCHIVE_LIMITS }, () => {}); } catch (e) { console.log((e as any).code, (e as Error).message); }
