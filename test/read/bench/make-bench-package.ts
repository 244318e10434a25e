/**
 * Generates a large package for measuring the validator (not a test; run with tsx):
 *   npx tsx test/read/bench/make-bench-package.ts <outDir> [chunks=200000] [events=60000] [entities=20000] [dim=384]
 * Writes <outDir>/pkg (folder form) and <outDir>/pkg.octx (STORE ZIP of the same files).
 */
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Field, FixedSizeList, Float32, Message, RecordBatch, RecordBatchFileWriter, Schema, Struct, Utf8, makeData } from 'apache-arrow';
import ZipStream from 'zip-stream';
import { computePackageDigest } from '../../../src/package/digest.js';

const [outDir = '/tmp/octx-bench', nc = '200000', ne = '60000', nt = '20000', nd = '384'] = process.argv.slice(2);
const N_CHUNKS = Number(nc);
const N_EVENTS = Number(ne);
const N_ENTITIES = Number(nt);
const DIM = Number(nd);
const N_DOCS = 200;

let counter = 0;
const id = (): string => {
  counter += 1;
  return `019c${(counter >>> 16).toString(16).padStart(4, '0')}-${(counter & 0xffff).toString(16).padStart(4, '0')}-7000-8000-${counter.toString(16).padStart(12, '0')}`;
};

const root = join(outDir, 'pkg');
const hashes: { path: string; sha256: string }[] = [];

async function writeLines(path: string, n: number, line: (i: number) => string): Promise<void> {
  const p = join(root, path);
  await mkdir(join(p, '..'), { recursive: true });
  const out = createWriteStream(p);
  const hash = createHash('sha256');
  let buf: string[] = [];
  for (let i = 0; i < n; i++) {
    buf.push(line(i));
    if (buf.length === 5000 || i === n - 1) {
      const chunk = buf.join('\n') + '\n';
      hash.update(chunk);
      if (!out.write(chunk)) await new Promise<void>((r) => out.once('drain', () => r()));
      buf = [];
    }
  }
  await new Promise<void>((r, j) => out.end((e?: Error | null) => (e ? j(e) : r())));
  hashes.push({ path, sha256: hash.digest('hex') });
}

class SchemaFirstFileWriter extends RecordBatchFileWriter {
  protected override _writeSchema(schema: Schema): this {
    super._writeSchema(schema);
    return this._writeMessage(Message.from(schema));
  }
}

async function writeArrow(path: string, ids: string[]): Promise<void> {
  const p = join(root, path);
  await mkdir(join(p, '..'), { recursive: true });
  const vecType = new FixedSizeList(DIM, new Field('item', new Float32(), false));
  const schema = new Schema([new Field('record_id', new Utf8(), false), new Field('vector', vecType, false)]);
  const w = new SchemaFirstFileWriter();
  const out = createWriteStream(p);
  const hash = createHash('sha256');
  const node = w.toNodeStream();
  node.on('data', (c: Buffer) => hash.update(c));
  const done = pipeline(node, out);
  for (let start = 0; start < ids.length; start += 8192) {
    const part = ids.slice(start, start + 8192);
    const n = part.length;
    const flat = new Float32Array(n * DIM);
    for (let i = 0; i < flat.length; i++) flat[i] = Math.sin(i + start);
    const enc = Buffer.from(part.join(''));
    const offs = new Int32Array(n + 1).map((_, i) => i * 36);
    const idd = makeData({ type: new Utf8(), length: n, nullCount: 0, valueOffsets: offs, data: enc });
    const child = makeData({ type: new Float32(), length: n * DIM, nullCount: 0, data: flat });
    const vec = makeData({ type: vecType, length: n, nullCount: 0, child });
    w.write(new RecordBatch(schema, makeData({ type: new Struct(schema.fields), length: n, nullCount: 0, children: [idd, vec] })));
    await new Promise((r) => setImmediate(r));
  }
  w.finish();
  await done;
  hashes.push({ path, sha256: hash.digest('hex') });
}

const docIds = Array.from({ length: N_DOCS }, id);
const chunkIds = Array.from({ length: N_CHUNKS }, id);
const eventIds = Array.from({ length: N_EVENTS }, id);
const entityIds = Array.from({ length: N_ENTITIES }, id);
await mkdir(join(root, 'knowledge'), { recursive: true });
for (let d = 0; d < N_DOCS; d++) {
  const md = `---\ntype: Reference\ntitle: Doc ${d}\noctx:\n  document_id: ${docIds[d]}\n---\n\n# Doc ${d}\n\n${'Lorem ipsum dolor sit amet. '.repeat(40)}\n`;
  const path = `knowledge/doc-${d}.md`;
  await writeFile(join(root, path), md);
  hashes.push({ path, sha256: createHash('sha256').update(md).digest('hex') });
}
const text = 'Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et dolore magna aliqua. '.repeat(3);
await writeLines('data/chunks.jsonl', N_CHUNKS, (i) =>
  JSON.stringify({ id: chunkIds[i], document_id: docIds[i % N_DOCS], ordinal: Math.floor(i / N_DOCS), text: `${i}: ${text}` }),
);
await writeLines('data/events.jsonl', N_EVENTS, (i) =>
  JSON.stringify({ id: eventIds[i], title: `Event ${i}`, content: `Event number ${i} happened and is described here in full.`, category: 'bench' }),
);
await writeLines('data/entities.jsonl', N_ENTITIES, (i) => JSON.stringify({ id: entityIds[i], name: `Entity ${i}`, type: 'thing' }));
// Every chunk → one event (round robin); every event → its entity and one more.
await writeLines('relations/chunk-events.jsonl', N_CHUNKS, (i) => JSON.stringify({ chunk_id: chunkIds[i], event_id: eventIds[i % N_EVENTS] }));
await writeLines('relations/event-entities.jsonl', N_EVENTS * 2, (i) =>
  JSON.stringify({ event_id: eventIds[i >> 1], entity_id: entityIds[((i >> 1) + (i & 1) * 7) % N_ENTITIES], weight: 0.5 }),
);
const fingerprintInput = { dimensions: DIM, model: 'bench/model', normalized: false };
const canon = `{"dimensions":${DIM},"model":"bench/model","normalized":false}`;
const config = `${JSON.stringify({ ...fingerprintInput, fingerprint: `sha256:${createHash('sha256').update(canon).digest('hex')}` }, null, 2)}\n`;
await mkdir(join(root, 'vectors'), { recursive: true });
await writeFile(join(root, 'vectors/config.json'), config);
hashes.push({ path: 'vectors/config.json', sha256: createHash('sha256').update(config).digest('hex') });
await writeArrow('vectors/chunks.arrow', chunkIds);
await writeArrow('vectors/events.arrow', eventIds);
await writeArrow('vectors/entities.arrow', entityIds);

const manifest: Record<string, unknown> = {
  format: 'octx',
  format_version: '0.1',
  asset: { id: id(), name: 'Bench' },
  release: { version: '1.0.0', created_at: '2026-07-12T10:00:00Z', package_digest: '' },
  capabilities: { 'sag-structured': { version: '0.1' }, vectors: { version: '0.1' } },
  files: hashes.sort((a, b) => Buffer.compare(Buffer.from(a.path), Buffer.from(b.path))),
};
(manifest.release as Record<string, unknown>).package_digest = computePackageDigest(manifest);
await writeFile(join(root, 'manifest.json'), `${JSON.stringify(manifest, null, 2)}\n`);

const zip = new ZipStream({ store: true });
const zipDone = pipeline(zip as unknown as NodeJS.ReadableStream, createWriteStream(join(outDir, 'pkg.octx')));
for (const path of ['manifest.json', ...hashes.map((h) => h.path)]) {
  await new Promise<void>((res, rej) =>
    zip.entry(createReadStream(join(root, path)), { name: path, store: true, date: new Date('1980-01-01T00:00:00Z'), mode: 0o644 }, (e) => (e ? rej(e) : res())),
  );
}
zip.finalize();
await zipDone;
console.log(`wrote ${root} and ${join(outDir, 'pkg.octx')}`);
