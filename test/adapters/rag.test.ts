import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isUuidV7, openPackage, PackageBuilder, validatePackage } from 'octx-export';
import { chunkOverlap, fromRag, loadRagFiles, ragDocumentsFolder, type RagAdapterReport } from 'octx-export/adapters/rag';
import { ROOT, tempDir } from '../helpers/temp.js';
import { failureAsync as rejects } from '../helpers/errors.js';
import { readPackageText as read } from '../helpers/package-files.js';

const FIX = join(ROOT, 'fixtures/rag');
const readJsonl = (file: string) =>
  readFileSync(join(FIX, file), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, any>);
const CHUNKS = readJsonl('chunks.jsonl');
const VECTORS = readJsonl('vectors.jsonl');
const STALE = readJsonl('vectors-stale.jsonl');
const DOC_A = '7e3c2c09-4a12-4d8e-9b3f-5c1d2e3f4a5b';
const DOC_B = 'b1c2d3e4-f5a6-4b7c-8d9e-0f1a2b3c4d5e';
const DOC_C = 'e6f7a8b9-2a3b-4c4d-95e6-f7a8b9c0d1e2';

const builder = (state?: string) =>
  new PackageBuilder({ asset: { name: 'Company docs' }, release: { version: '1.0.0', createdAt: '2026-07-14T09:00:00Z' }, ...(state ? { state } : {}) });
const clone = <T>(v: T): T => structuredClone(v);

/** What a caller's real extraction run would add: one event per chunk, one entity, linked. */
function addExtraction(b: PackageBuilder, report: RagAdapterReport): void {
  const entity = b.ids.entity('test:company');
  b.addEntity({ id: entity, name: 'The company', type: 'org' });
  for (const c of CHUNKS) {
    const event = b.ids.event(`test:${c.chunk_id}`);
    b.addEvent({ id: event, title: `Statement from ${c.doc_meta.doc_name}`, content: c.chunk_text });
    b.linkChunkEvent({ chunk_id: report.chunkIds[c.chunk_id]!, event_id: event });
    b.linkEventEntity({ event_id: event, entity_id: entity });
  }
}

describe('fromRag', () => {
  it('maps chunks under x-rag, documents from originals or rebuilt, and fresh vectors as the chunks target', async () => {
    const out = join(tempDir(), 'rag.octx');
    const b = builder();
    const report = await fromRag(b, {
      chunks: CHUNKS,
      vectors: VECTORS,
      documents: await ragDocumentsFolder(join(FIX, 'documents')),
      normalized: true,
      vectorConfig: { revision: '2026-06-01' },
      rebuildDocuments: true,
    });
    expect(report.kbIds).toEqual(['kb_company_docs']);
    expect(report.documents).toMatchObject({ count: 3, fromOriginals: 2, rebuilt: 1 });
    expect(report.structure.status).toBe('documents-only');
    expect(report.scrubbedKeys).toEqual(['x-rag.extend.api_token']);
    expect(report.vectors).toMatchObject({ status: 'complete', added: true, target: 'chunks', rows: 8, model: 'bge-m3-demo-16', dimensions: 16, normalized: true });
    for (const id of Object.values(report.chunkIds)) expect(isUuidV7(id)).toBe(true);

    // With a real extraction run linked to the chunks, the full structure and the vectors ship.
    addExtraction(b, report);
    const result = await b.export({ output: out, structure: 'require' });
    expect(result.report.vectors.targets.chunks).toEqual({ status: 'written', rows: 8 });
    const v = await validatePackage(out);
    expect(v.valid && v.fullyValidated).toBe(true);

    const chunks = (await read(out, 'data/chunks.jsonl'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, any>);
    const first = chunks.find((c) => c['x-rag'].chunk_id === CHUNKS[0]!.chunk_id)!;
    expect(first.id).toBe(report.chunkIds[CHUNKS[0]!.chunk_id]);
    expect(first.document_id).toBe(report.documents.byDocId[DOC_A]!.documentId);
    expect(first.ordinal).toBe(0);
    expect(first.text).toBe(CHUNKS[0]!.chunk_text);
    const { chunk_text: _t, ...rest } = CHUNKS[0]!;
    expect(first['x-rag']).toEqual({ ...rest, extend: { source_system: 'sharepoint' } }); // every RAG field, secrets scrubbed
    expect(first['x-rag']).toMatchObject({ tenant_id: 'tenant_001', kb_id: 'kb_company_docs', create_time: 1718980000000, permission: { user_group: ['finance', 'manager'] } });

    const config = JSON.parse(await read(out, 'vectors/config.json')) as Record<string, unknown>;
    expect(config).toMatchObject({ model: 'bge-m3-demo-16', revision: '2026-06-01', dimensions: 16, normalized: true });
    const pkg = await openPackage(out);
    try {
      const rows = new Map<string, Float32Array>();
      for await (const row of pkg.vectors('chunks')) rows.set(row.recordId, Float32Array.from(row.vector));
      expect(rows.size).toBe(8);
      const given = Float32Array.from(VECTORS[0]!.embedding as number[]);
      expect(rows.get(report.chunkIds[VECTORS[0]!.vector_id]!)).toEqual(given);
    } finally {
      await pkg.close();
    }

    // Documents: the original keeps its own keys; the rebuilt one says so in its frontmatter.
    const handbook = await read(out, report.documents.byDocId[DOC_B]!.path);
    expect(handbook).toMatch(/^---\ntype: "Handbook"\n/);
    expect(handbook).toContain('  doc_name: "employee-handbook.docx"\n  doc_type: "word"\n  body: "original"');
    const rebuilt = await read(out, report.documents.byDocId[DOC_C]!.path);
    expect(report.documents.byDocId[DOC_C]!.path).toBe('knowledge/产品常见问题.md');
    expect(rebuilt).toContain('  body: "rebuilt-from-chunks"\n  rebuilt_from_chunks:\n    chunks: 3\n    order: "chunk_index"\n    separator: "\\n\\n"');
    expect(rebuilt).toContain(
      `---\n\n${CHUNKS.slice(5)
        .map((c) => c.chunk_text)
        .join('\n\n')}\n`,
    );
    expect(rebuilt).toContain('title: "产品常见问题"');
  });

  it('omits stale, inactive or missing vectors as a whole target and says which', async () => {
    const report = await fromRag(builder(), {
      chunks: CHUNKS,
      vectors: STALE,
      documents: await ragDocumentsFolder(join(FIX, 'documents')),
      normalized: false,
      rebuildDocuments: true,
    });
    expect(report.vectors).toMatchObject({
      status: 'omitted',
      reason: 'incomplete',
      given: 8,
      fresh: 6,
      stale: { count: 1, sample: [CHUNKS[1]!.chunk_id] },
      inactive: { count: 1, sample: [CHUNKS[4]!.chunk_id] },
      missing: { count: 0 },
    });
    const partial = await fromRag(builder(), {
      chunks: CHUNKS,
      vectors: VECTORS.slice(1),
      documents: await ragDocumentsFolder(join(FIX, 'documents')),
      normalized: true,
      rebuildDocuments: true,
    });
    expect(partial.vectors).toMatchObject({ status: 'omitted', missing: { count: 1, sample: [CHUNKS[0]!.chunk_id] } });
    const mixed = clone(VECTORS);
    mixed[2]!.vector_meta.embedding_model = 'text-embedding-3-small';
    const m = await fromRag(builder(), { chunks: CHUNKS, vectors: mixed, documents: await ragDocumentsFolder(join(FIX, 'documents')), normalized: true, rebuildDocuments: true });
    expect(m.vectors).toMatchObject({ status: 'omitted', reason: 'mixed-pipelines' });
  });

  it('refuses to guess normalized, and refuses Retrieval Result objects', async () => {
    const docs = await ragDocumentsFolder(join(FIX, 'documents'));
    const e = await rejects(fromRag(builder(), { chunks: CHUNKS, vectors: VECTORS, documents: docs, rebuildDocuments: true }));
    expect(e.code).toBe('OCTX_ADAPTER_INPUT_INVALID');
    expect(e.issues[0]).toMatchObject({ field: 'normalized' });
    expect(e.message).toMatch(/never guessed/);
    const retrieval = JSON.parse(readFileSync(join(FIX, 'retrieval-result.json'), 'utf8')) as unknown;
    const r = await rejects(fromRag(builder(), { chunks: [...CHUNKS, retrieval], documents: docs, rebuildDocuments: true }));
    expect(r.code).toBe('OCTX_ADAPTER_INPUT_INVALID');
    expect(r.issues[0]!.message).toMatch(/Retrieval Result .*query output, not publishable knowledge/);
    const files = await rejects(loadRagFiles([join(FIX, 'chunks.jsonl'), join(FIX, 'retrieval-result.json')]));
    expect(files.issues[0]).toMatchObject({ path: join(FIX, 'retrieval-result.json'), line: 1, field: 'retrieval_id' });
  });

  it('needs an original for every document unless rebuilding is opted in, and refuses unsafe rebuilds', async () => {
    const docs = await ragDocumentsFolder(join(FIX, 'documents'));
    const missing = await rejects(fromRag(builder(), { chunks: CHUNKS, documents: docs }));
    expect(missing.issues.map((i) => i.recordId)).toEqual([DOC_C]);
    expect(missing.issues[0]!.message).toMatch(/no original document for doc_id .*产品常见问题\.md/);

    const docC = CHUNKS.filter((c) => c.doc_id === DOC_C);
    const overlapping = clone(docC);
    overlapping[1]!.chunk_text = `${docC[0]!.chunk_text.slice(-20)}${docC[1]!.chunk_text}`;
    const gap = clone(docC).filter((c) => c.chunk_meta.chunk_index !== 1);
    const hierarchical = clone(docC);
    hierarchical[2]!.parent_chunk_id = docC[0]!.chunk_id;
    for (const [chunks, reason] of [
      [overlapping, /chunks 0 and 1 overlap by 20 characters/],
      [gap, /chunk_index 1 is missing/],
      [hierarchical, /is hierarchical/],
    ] as const) {
      const e = await rejects(fromRag(builder(), { chunks, rebuildDocuments: true }));
      expect(e.issues[0]!.field).toBe('rebuildDocuments');
      expect(e.issues[0]!.message).toMatch(reason);
    }
    expect(chunkOverlap('abcdefghijklmnop', 'ghijklmnopqrstu')).toBe(0); // 10 characters: below the 12-character threshold
    expect(chunkOverlap('…the fleet was chained together', 'the fleet was chained together and burned')).toBe(30);
  });

  it('refuses bad chunks with their file and line: empty text, duplicate ids and indexes, missing fields', async () => {
    const input = await loadRagFiles([join(FIX, 'chunks.jsonl')]);
    const chunks = clone(input.chunks) as Record<string, any>[];
    chunks[1]!.chunk_text = '  ';
    chunks[3]!.chunk_id = chunks[2]!.chunk_id;
    chunks[6]!.chunk_meta.chunk_index = 0;
    delete chunks[7]!.doc_meta;
    const e = await rejects(fromRag(builder(), { chunks, locate: input.locate, rebuildDocuments: true }));
    expect(e.code).toBe('OCTX_ADAPTER_INPUT_INVALID');
    const byLine = Object.fromEntries(e.issues.map((i) => [i.line, i]));
    expect(byLine[2]).toMatchObject({ path: join(FIX, 'chunks.jsonl'), field: 'chunk_text' });
    expect(byLine[4]).toMatchObject({ field: 'chunk_id' });
    expect(byLine[7]).toMatchObject({ field: 'chunk_meta.chunk_index' });
    expect(byLine[8]).toMatchObject({ field: 'doc_meta' });
  });

  it('keeps chunk and document ids stable across runs with a state file', async () => {
    const dir = tempDir();
    const state = join(dir, 'state.json');
    const run = async (n: number) => {
      const b = new PackageBuilder({ asset: { name: 'Company docs' }, state });
      const report = await fromRag(b, { chunks: CHUNKS, documents: await ragDocumentsFolder(join(FIX, 'documents')), rebuildDocuments: true });
      await b.export({ output: join(dir, `${n}.octx`), documentsOnly: true });
      return report;
    };
    const a = await run(1);
    const b = await run(2);
    expect(b.chunkIds).toEqual(a.chunkIds);
    expect(Object.values(b.documents.byDocId).map((d) => d.documentId)).toEqual(Object.values(a.documents.byDocId).map((d) => d.documentId));
  });
});
