import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { Field, FixedSizeList, Float32, Int32, Message, RecordBatch, RecordBatchFileWriter, Schema, Struct, Utf8, makeData, tableFromIPC, type DataType } from 'apache-arrow';
import { afterAll, describe, expect, it } from 'vitest';
import { HashingTextEmbedder, PackageBuilder, computePackageDigest, loadWorkdir, openPackage, validatePackage, type Embedder } from '../../src/index.js';
import { INPUT_HASH_DECLARATION, inputHashDeclaration, inputSha256, normalizeEmbeddingInput, withInputHash } from '../../src/vectors/input-digest.js';
import { failure, failureAsync } from '../helpers/errors.js';
import { cleanupTempDirs, tempDir, writeDir, type FileMap } from './helpers.js';

afterAll(cleanupTempDirs);

const id = (n: number): string => `019c0000-0000-7000-8000-${n.toString(16).padStart(12, '0')}`;
const sha = (s: string): string => createHash('sha256').update(s, 'utf8').digest('hex');
const DOC = id(0x100);

/** Chunk texts: one with CRLF and a decomposed é, so the normalisation shows in the digest. */
const CHUNKS = [
  { id: id(1), text: 'Alpha beta.' },
  { id: id(2), text: 'Cafe\u0301 line one\r\nline two\rline three' },
  { id: id(3), text: 'Gamma delta.' },
];
const EVENTS = [{ id: id(0x21), title: 'Meeting', content: 'Alpha met beta.' }];
const ENTITIES = [{ id: id(0x31), name: 'Beta', type: 'thing' }];

function graph(): PackageBuilder {
  const b = new PackageBuilder({ asset: { id: id(0xa), name: 'Digests' }, release: { version: '1.0.0', createdAt: '2026-07-12T10:00:00Z' } });
  b.addDocument({ path: 'a.md', markdown: `---\ntype: Note\noctx:\n  document_id: ${DOC}\n---\n# A\n\nAlpha beta.\n` });
  CHUNKS.forEach((c, i) => b.addChunk({ id: c.id, document_id: DOC, ordinal: i, text: c.text }));
  for (const e of EVENTS) b.addEvent(e);
  for (const e of ENTITIES) b.addEntity(e);
  for (const c of CHUNKS) b.linkChunkEvent({ chunk_id: c.id, event_id: EVENTS[0]!.id });
  b.linkEventEntity({ event_id: EVENTS[0]!.id, entity_id: ENTITIES[0]!.id, weight: 1 });
  return b;
}

/** An embedder that records every text it is given (and delegates to the hashing embedder). */
class Recording implements Embedder {
  readonly inner = new HashingTextEmbedder({ dimensions: 8 });
  readonly texts: string[] = [];
  get config() {
    return this.inner.config;
  }
  embed(texts: string[]): Promise<Float32Array[]> {
    this.texts.push(...texts);
    return this.inner.embed(texts);
  }
}

async function buildSource(dir: string): Promise<string> {
  const out = join(dir, 'source.octx');
  const b = graph();
  const e = new HashingTextEmbedder({ dimensions: 8 });
  await b.embed('chunks', e);
  await b.embed('events', e);
  await b.embed('entities', e);
  await b.export({ output: out });
  return out;
}

async function arrowTable(pkgPath: string, target: string) {
  const pkg = await openPackage(pkgPath);
  try {
    return tableFromIPC(await pkg.readFile(`vectors/${target}.arrow`));
  } finally {
    await pkg.close();
  }
}

/** Every listed file of a package, plus its parsed manifest. */
async function unpack(pkgPath: string): Promise<{ files: Map<string, Buffer>; manifest: any }> {
  const pkg = await openPackage(pkgPath);
  try {
    const files = new Map<string, Buffer>();
    for (const f of pkg.listedFiles()) files.set(f.path, await pkg.readFile(f.path));
    return { files, manifest: structuredClone(pkg.manifest) };
  } finally {
    await pkg.close();
  }
}

/** Writes a folder package with `changes` applied and the manifest digests (file and package) fixed. */
async function repackWith(pkgPath: string, changes: Record<string, Buffer>): Promise<string> {
  const { files, manifest } = await unpack(pkgPath);
  for (const [p, bytes] of Object.entries(changes)) files.set(p, bytes);
  for (const f of manifest.files) {
    const bytes = files.get(f.path)!;
    f.sha256 = createHash('sha256').update(bytes).digest('hex');
    f.size = bytes.length;
  }
  manifest.release.package_digest = computePackageDigest(manifest);
  const map: FileMap = { 'manifest.json': `${JSON.stringify(manifest, null, 2)}\n` };
  for (const [p, b] of files) map[p] = b;
  return writeDir(map);
}

/** The chunks JSONL with one record's text replaced. */
function editChunk(jsonl: Buffer, recordId: string, text: string): Buffer {
  const lines = jsonl
    .toString('utf8')
    .split('\n')
    .map((line) => {
      if (line === '') return line;
      const r = JSON.parse(line) as { id: string; text: string };
      return r.id === recordId ? JSON.stringify({ ...r, text }) : line;
    });
  return Buffer.from(lines.join('\n'), 'utf8');
}

/** Schema-first Arrow file (as the reference requires) with an `input_sha256` column of the given shape. */
class SchemaFirst extends RecordBatchFileWriter {
  protected override _writeSchema(schema: Schema): this {
    super._writeSchema(schema);
    return this._writeMessage(Message.from(schema));
  }
}
function digestArrow(rows: { id: string; vector: Float32Array; digest: string | null }[], o: { type?: 'utf8' | 'int32'; nullable?: boolean } = {}): Buffer {
  const n = rows.length;
  const dim = rows[0]!.vector.length;
  const utf8 = (values: (string | null)[]) => {
    const enc = values.map((v) => Buffer.from(v ?? '', 'utf8'));
    const offsets = new Int32Array(n + 1);
    enc.forEach((b, i) => (offsets[i + 1] = offsets[i]! + b.length));
    const nulls = values.filter((v) => v === null).length;
    const bitmap = new Uint8Array(Math.ceil(n / 8) || 1);
    values.forEach((v, i) => {
      if (v !== null) bitmap[i >> 3]! |= 1 << (i & 7);
    });
    return makeData({ type: new Utf8(), length: n, nullCount: nulls, ...(nulls > 0 ? { nullBitmap: bitmap } : {}), valueOffsets: offsets, data: Buffer.concat(enc) });
  };
  const vecType = new FixedSizeList(dim, new Field('item', new Float32(), false));
  const flat = new Float32Array(n * dim);
  rows.forEach((r, i) => flat.set(r.vector, i * dim));
  const digestType: DataType = o.type === 'int32' ? new Int32() : new Utf8();
  const schema = new Schema([new Field('record_id', new Utf8(), false), new Field('vector', vecType, false), new Field('input_sha256', digestType, o.nullable ?? false)]);
  const vec = makeData({ type: vecType, length: n, nullCount: 0, child: makeData({ type: new Float32(), length: n * dim, nullCount: 0, data: flat }) });
  const digests = o.type === 'int32' ? makeData({ type: new Int32(), length: n, nullCount: 0, data: new Int32Array(n) }) : utf8(rows.map((r) => r.digest));
  const batch = new RecordBatch(schema, makeData({ type: new Struct(schema.fields), length: n, nullCount: 0, children: [utf8(rows.map((r) => r.id)), vec, digests as never] }));
  const w = new SchemaFirst();
  w.write(batch);
  return Buffer.from(w.finish().toUint8Array(true));
}

async function vectorRows(pkgPath: string, target: 'chunks' | 'events' | 'entities') {
  const pkg = await openPackage(pkgPath);
  try {
    const out: { id: string; vector: Float32Array; digest: string | null }[] = [];
    for await (const r of pkg.vectors(target)) out.push({ id: r.recordId, vector: r.vector.slice(), digest: r.inputSha256 ?? null });
    return out;
  } finally {
    await pkg.close();
  }
}

describe('input digests: the recipe', () => {
  it('normalises CRLF/CR to LF and to NFC, without trimming, and hashes the UTF-8 bytes', () => {
    expect(normalizeEmbeddingInput(' a\r\nb\rc\u0065\u0301 ')).toBe(' a\nb\nc\u00e9 ');
    expect(inputSha256('x\r\ny')).toBe(sha('x\ny'));
  });

  it('is declared in the config as input_hash, whose keys pass the forbidden-key rules', () => {
    const e = new HashingTextEmbedder({ dimensions: 8 });
    const c = withInputHash(e.config);
    expect(c.input_hash).toEqual(INPUT_HASH_DECLARATION);
    expect(inputHashDeclaration(c)).toBe('supported');
    expect(inputHashDeclaration(e.config)).toBe('absent');
    expect(inputHashDeclaration({ input_hash: { algorithm: 'md5' } })).toBe('unknown');
    expect(failure(() => withInputHash({ ...e.config, input_hash: { algorithm: 'sha1' } })).code).toBe('OCTX_VECTOR_CONFIG_INVALID');
    // prepareVectorConfig runs the forbidden-key rules: it must accept the declaration.
    const b = graph();
    expect(() => b.setVectorConfig(c)).not.toThrow();
    void b.dispose();
  });
});

describe('embed() writes input_sha256', () => {
  it('in every target, each equal to SHA-256 of the rendered, normalised text (read with apache-arrow)', async () => {
    const dir = await tempDir();
    const out = await buildSource(dir);
    const chunks = await arrowTable(out, 'chunks');
    expect(chunks.schema.fields.map((f) => f.name)).toEqual(['record_id', 'vector', 'input_sha256']);
    const field = chunks.schema.fields[2]!;
    expect(String(field.type)).toBe('Utf8');
    expect(field.nullable).toBe(false);
    const got = new Map<string, string>();
    for (let i = 0; i < chunks.numRows; i++) got.set(String(chunks.getChild('record_id')!.get(i)), String(chunks.getChild('input_sha256')!.get(i)));
    // The hashing embedder's template for chunks is {text}.
    expect(got.get(id(1))).toBe(sha('Alpha beta.'));
    expect(got.get(id(2))).toBe(sha('Caf\u00e9 line one\nline two\nline three'));
    expect(got.get(id(3))).toBe(sha('Gamma delta.'));
    const events = await arrowTable(out, 'events');
    expect(String(events.getChild('input_sha256')!.get(0))).toBe(sha('Meeting\n\nAlpha met beta.'));
    const entities = await arrowTable(out, 'entities');
    expect(String(entities.getChild('input_sha256')!.get(0))).toBe(sha('Beta'));

    const pkg = await openPackage(out);
    const config = await pkg.vectorConfig();
    await pkg.close();
    expect(config?.input_hash).toEqual({ algorithm: 'sha256', unicode_form: 'NFC', newline: 'LF' });
    const report = await validatePackage(out);
    expect(report.issues).toEqual([]);
    expect(report.fullyValidated).toBe(true);
  });

  it('hands the embedder the normalised text', async () => {
    const b = graph();
    const r = new Recording();
    await b.embed('chunks', r);
    expect(r.texts[1]).toBe('Caf\u00e9 line one\nline two\nline three');
    await b.dispose();
  });
});

describe('validatePackage recomputes input digests', () => {
  it('reports exactly the chunk whose text was edited; documents and structure stay valid', async () => {
    const dir = await tempDir();
    const out = await buildSource(dir);
    const { files } = await unpack(out);
    const edited = await repackWith(out, { 'data/chunks.jsonl': editChunk(files.get('data/chunks.jsonl')!, id(3), 'Gamma delta, edited.') });
    const report = await validatePackage(edited);
    expect(report.format.valid).toBe(true);
    expect(report.capabilities['sag-structured']?.valid).toBe(true);
    expect(report.capabilities.vectors?.valid).toBe(false);
    expect(report.valid).toBe(false);
    expect(report.issues.map((i) => [i.code, i.recordId, i.path, i.field])).toEqual([['OCTX_VECTOR_INPUT_MISMATCH', id(3), 'vectors/chunks.arrow', 'input_sha256']]);
  });

  it('recomputes them in the structure pass: the JSONL is not parsed a second time (issue 23)', async () => {
    const dir = await tempDir();
    const out = await buildSource(dir);
    const { files } = await unpack(out);
    const edited = await repackWith(out, {
      'data/chunks.jsonl': editChunk(files.get('data/chunks.jsonl')!, id(2), 'Other text.'),
      'data/events.jsonl': Buffer.from(files.get('data/events.jsonl')!.toString('utf8').replace('Alpha met beta.', 'Alpha met gamma.')),
    });
    const pkg = await openPackage(edited);
    try {
      const reads: string[] = [];
      for (const name of ['chunks', 'events', 'entities'] as const) {
        (pkg as unknown as Record<string, unknown>)[name] = () => {
          reads.push(name);
          throw new Error(`${name}() must not be called by validatePackage`);
        };
      }
      const report = await validatePackage(pkg);
      expect(reads).toEqual([]);
      expect(report.capabilities['sag-structured']?.valid).toBe(true);
      expect(report.issues.map((i) => [i.code, i.recordId, i.path])).toEqual([
        ['OCTX_VECTOR_INPUT_MISMATCH', id(2), 'vectors/chunks.arrow'],
        ['OCTX_VECTOR_INPUT_MISMATCH', EVENTS[0]!.id, 'vectors/events.arrow'],
      ]);
      expect(report.issues[0]!.message).toContain('data/chunks.jsonl line 2');
      expect(report.issues[0]!.message).toContain(sha('Other text.'));
    } finally {
      await pkg.close();
    }
  });

  it('streams the JSONL again, with the same report, when the config is too large to read ahead', async () => {
    const dir = await tempDir();
    const out = await buildSource(dir);
    const { files } = await unpack(out);
    const edits = {
      'data/chunks.jsonl': editChunk(files.get('data/chunks.jsonl')!, id(2), 'Other text.'),
      'data/events.jsonl': Buffer.from(files.get('data/events.jsonl')!.toString('utf8').replace('Alpha met beta.', 'Alpha met gamma.')),
    };
    const config = files.get('vectors/config.json')!.toString('utf8');
    // Insignificant whitespace: the same config, but above the 1 MiB read-ahead bound.
    const padded = Buffer.from(`{${' '.repeat(1100 * 1024)}${config.slice(config.indexOf('{') + 1)}`, 'utf8');
    const inPass = await validatePackage(await repackWith(out, edits));
    const pkg = await openPackage(await repackWith(out, { ...edits, 'vectors/config.json': padded }));
    try {
      // The validator streams a target's records again through pkg.records(kind).
      const reads: string[] = [];
      const original = pkg.records.bind(pkg);
      (pkg as unknown as Record<string, unknown>).records = (kind: Parameters<typeof original>[0]) => {
        reads.push(kind);
        return original(kind);
      };
      const streamed = await validatePackage(pkg);
      expect(reads).toEqual(['chunk', 'event', 'entity']);
      expect(streamed.issues).toEqual(inPass.issues);
      expect(inPass.issues.map((i) => i.code)).toEqual(['OCTX_VECTOR_INPUT_MISMATCH', 'OCTX_VECTOR_INPUT_MISMATCH']);
    } finally {
      await pkg.close();
    }
  });

  it('reports a record whose text can no longer be rendered', async () => {
    const dir = await tempDir();
    const out = await buildSource(dir);
    const { files } = await unpack(out);
    // The event template needs {title} and {content}: a changed content is a mismatch too.
    const events = files.get('data/events.jsonl')!.toString('utf8').replace('Alpha met beta.', 'Alpha met gamma.');
    const report = await validatePackage(await repackWith(out, { 'data/events.jsonl': Buffer.from(events) }));
    expect(report.issues.map((i) => [i.code, i.recordId])).toEqual([['OCTX_VECTOR_INPUT_MISMATCH', EVENTS[0]!.id]]);
  });

  it('checks the column for form only when the config has no input_template', async () => {
    const dir = await tempDir();
    const out = join(dir, 'p.octx');
    const b = graph().setVectorConfig({ model: 'm', dimensions: 2, normalized: false, input_hash: { ...INPUT_HASH_DECLARATION } });
    for (const c of CHUNKS) b.addVector('chunks', c.id, [1, 0], { input: c.text });
    await b.export({ output: out });
    const { files } = await unpack(out);
    const edited = await repackWith(out, { 'data/chunks.jsonl': editChunk(files.get('data/chunks.jsonl')!, id(1), 'changed') });
    expect((await validatePackage(edited)).issues).toEqual([]);

    // A malformed value, a null, a wrong type and a nullable field are each OCTX_VECTOR_INPUT_SHA256_INVALID.
    const rows = (await vectorRows(out, 'chunks')).map((r) => ({ ...r }));
    const cases: [string, Buffer, string | undefined][] = [
      ['upper-case', digestArrow(rows.map((r, i) => (i === 1 ? { ...r, digest: r.digest!.toUpperCase() } : r))), id(2)],
      ['short', digestArrow(rows.map((r, i) => (i === 0 ? { ...r, digest: 'abc' } : r))), id(1)],
      [
        'null',
        digestArrow(
          rows.map((r, i) => (i === 2 ? { ...r, digest: null } : r)),
          { nullable: true },
        ),
        undefined,
      ],
      ['int32', digestArrow(rows, { type: 'int32' }), undefined],
    ];
    for (const [name, bytes, recordId] of cases) {
      const report = await validatePackage(await repackWith(out, { 'vectors/chunks.arrow': bytes }));
      const bad = report.issues.filter((i) => i.code === 'OCTX_VECTOR_INPUT_SHA256_INVALID');
      expect(bad.length, name).toBeGreaterThan(0);
      if (recordId !== undefined)
        expect(
          bad.map((i) => i.recordId),
          name,
        ).toEqual([recordId]);
      expect(report.capabilities.vectors?.valid, name).toBe(false);
      expect(report.capabilities['sag-structured']?.valid, name).toBe(true);
    }
  });
});

describe('addVector input digests', () => {
  it('hashes { input }, takes { inputSha256 }, and refuses malformed, mixed and undeclared digests', async () => {
    const withHash = { model: 'm', dimensions: 2, normalized: false, input_hash: { ...INPUT_HASH_DECLARATION } };
    const b = graph().setVectorConfig(withHash);
    b.addVector('chunks', id(1), [1, 0], { input: 'Alpha beta.' });
    const bad = failure(() => b.addVector('chunks', id(2), [1, 0], { inputSha256: 'ABC' }));
    expect([bad.code, bad.issues[0]?.recordId, bad.issues[0]?.field]).toEqual(['OCTX_VECTOR_INPUT_SHA256_INVALID', id(2), 'input_sha256']);
    const mixed = failure(() => b.addVector('chunks', id(2), [1, 0]));
    expect([mixed.code, mixed.issues[0]?.recordId]).toEqual(['OCTX_VECTOR_INPUT_SHA256_INVALID', id(2)]);
    expect(failure(() => b.addVector('chunks', id(2), [1, 0], { input: 'x', inputSha256: sha('x') })).code).toBe('OCTX_OPTIONS_INVALID');
    b.addVector('chunks', id(2), [1, 0], { inputSha256: sha('Caf\u00e9 line one\nline two\nline three') });
    b.addVector('chunks', id(3), [1, 0], { input: 'Gamma delta.' });
    // The other way round: a target without digests refuses one with a digest.
    b.addVector('events', EVENTS[0]!.id, [0, 1]);
    await b.dispose();
    const c = graph().setVectorConfig(withHash).addVector('events', EVENTS[0]!.id, [0, 1]);
    expect(failure(() => c.addVector('events', EVENTS[0]!.id, [0, 1], { input: 'x' })).code).toBe('OCTX_VECTOR_INPUT_SHA256_INVALID');
    await c.dispose();
    const d = graph().setVectorConfig({ model: 'm', dimensions: 2, normalized: false });
    const undeclared = failure(() => d.addVector('chunks', id(1), [1, 0], { input: 'x' }));
    expect([undeclared.code, undeclared.issues[0]?.field]).toEqual(['OCTX_VECTOR_CONFIG_INVALID', 'input_hash']);
    await d.dispose();
  });
});

describe("embed({ only: 'missing' | 'stale' })", () => {
  it("derive → add 3 chunks → embed only 'missing' → export: complete targets, old vectors byte-identical", async () => {
    const dir = await tempDir();
    const source = await buildSource(dir);
    const before = await vectorRows(source, 'chunks');
    const b = await PackageBuilder.derive(source, { asset: { name: 'Derived' } });
    const added = [id(0x41), id(0x42), id(0x43)];
    added.forEach((c, i) => b.addChunk({ id: c, document_id: DOC, ordinal: 10 + i, text: `New chunk ${i}.` }));
    const newEvent = id(0x44);
    b.addEvent({ id: newEvent, title: 'Later', content: 'Something new happened.' });
    for (const c of added) b.linkChunkEvent({ chunk_id: c, event_id: newEvent });
    b.linkEventEntity({ event_id: newEvent, entity_id: ENTITIES[0]!.id, weight: 1 });

    // Without `only` the carried vectors collide, as before.
    const r = new Recording();
    expect((await failureAsync(b.embed('chunks', r))).code).toBe('OCTX_VECTOR_RECORD_ID_DUPLICATE');
    const r2 = new Recording();
    await b.embed('chunks', r2, { only: 'missing' });
    expect(r2.texts).toEqual(['New chunk 0.', 'New chunk 1.', 'New chunk 2.']);
    const r3 = new Recording();
    await b.embed('events', r3, { only: 'missing' });
    expect(r3.texts).toEqual(['Later\n\nSomething new happened.']);
    await b.embed('entities', new Recording(), { only: 'missing' });
    const out = join(dir, 'derived.octx');
    const result = await b.export({ output: out });
    expect(result.report.vectors.targets.chunks.status).toBe('written');
    expect(result.report.vectors.targets.events.status).toBe('written');
    const report = await validatePackage(out);
    expect(report.issues).toEqual([]);
    expect(report.fullyValidated).toBe(true);

    const after = await vectorRows(out, 'chunks');
    expect(after.map((x) => x.id)).toEqual([...CHUNKS.map((c) => c.id), ...added]);
    for (const old of before) {
      const now = after.find((x) => x.id === old.id)!;
      expect(
        Buffer.from(now.vector.buffer, now.vector.byteOffset, now.vector.byteLength).equals(Buffer.from(old.vector.buffer, old.vector.byteOffset, old.vector.byteLength)),
      ).toBe(true);
      expect(now.digest).toBe(old.digest);
    }
    expect(after.slice(3).map((x) => x.digest)).toEqual(added.map((_, i) => sha(`New chunk ${i}.`)));
  });

  it("'stale' re-embeds only the record whose text changed and replaces its vector", async () => {
    const dir = await tempDir();
    const source = await buildSource(dir);
    const before = await vectorRows(source, 'chunks');
    // A derive flow by hand: the source's records and vectors (with their digests) carried into a
    // new builder, one chunk's text edited on the way.
    const pkg = await openPackage(source);
    const b = new PackageBuilder({ asset: { name: 'Edited' } });
    try {
      for await (const d of pkg.documents()) b.addDocument({ path: d.path.slice('knowledge/'.length), markdown: d.bytes });
      for await (const { record } of pkg.chunks()) b.addChunk(record.id === id(2) ? { ...record, text: 'Rewritten text.' } : record);
      for await (const { record } of pkg.events()) b.addEvent(record);
      for await (const { record } of pkg.entities()) b.addEntity(record);
      for await (const { record } of pkg.chunkEvents()) b.linkChunkEvent(record);
      for await (const { record } of pkg.eventEntities()) b.linkEventEntity(record);
      b.setVectorConfig((await pkg.vectorConfig()) as never);
      for await (const row of pkg.vectors('chunks')) b.addVector('chunks', row.recordId, row.vector, { inputSha256: row.inputSha256! });
    } finally {
      await pkg.close();
    }
    const r = new Recording();
    await b.embed('chunks', r, { only: 'stale' });
    expect(r.texts).toEqual(['Rewritten text.']);
    const out = join(dir, 'edited.octx');
    await b.export({ output: out });
    expect((await validatePackage(out)).issues).toEqual([]);
    const after = await vectorRows(out, 'chunks');
    expect(after.map((x) => x.id)).toEqual(before.map((x) => x.id));
    expect(after[1]!.digest).toBe(sha('Rewritten text.'));
    expect(Array.from(after[1]!.vector)).toEqual(Array.from(new HashingTextEmbedder({ dimensions: 8 }).embedText('Rewritten text.')));
    for (const i of [0, 2]) expect(Array.from(after[i]!.vector)).toEqual(Array.from(before[i]!.vector));
  });

  it("refuses 'stale' where digests are missing, and a bad `only`", async () => {
    const b = graph().setVectorConfig(new HashingTextEmbedder({ dimensions: 8 }).config);
    // The embedder's config without input_hash was set first: vectors get no digests, 'missing' still works.
    b.addVector('chunks', id(1), new HashingTextEmbedder({ dimensions: 8 }).embedText('Alpha beta.'));
    const stale = await failureAsync(b.embed('chunks', new Recording(), { only: 'stale' }));
    expect([stale.code, stale.issues[0]?.field]).toEqual(['OCTX_OPTIONS_INVALID', 'only']);
    const r = new Recording();
    await b.embed('chunks', r, { only: 'missing' });
    expect(r.texts).toHaveLength(2);
    expect((await failureAsync(b.embed('events', r, { only: 'all' as never }))).code).toBe('OCTX_OPTIONS_INVALID');
    await b.dispose();
  });
});

describe('loadWorkdir carries input digests', () => {
  it('from an Arrow column and from JSONL vector lines', async () => {
    const dir = await tempDir();
    const source = await buildSource(dir);
    const { files } = await unpack(source);
    const rows = await vectorRows(source, 'events');
    const map: FileMap = {};
    for (const [p, b] of files) if (p !== 'vectors/events.arrow') map[p] = b;
    map['vectors/events.jsonl'] = rows.map((r) => JSON.stringify({ record_id: r.id, vector: Array.from(r.vector), input_sha256: r.digest })).join('\n') + '\n';
    const folder = await writeDir(map);
    const b = new PackageBuilder({ asset: { name: 'From a folder' } });
    await loadWorkdir(b, folder);
    const out = join(dir, 'folder.octx');
    await b.export({ output: out });
    expect((await validatePackage(out)).issues).toEqual([]);
    expect((await vectorRows(out, 'chunks')).map((r) => r.digest)).toEqual((await vectorRows(source, 'chunks')).map((r) => r.digest));
    expect((await vectorRows(out, 'events')).map((r) => r.digest)).toEqual(rows.map((r) => r.digest));
  });
});
