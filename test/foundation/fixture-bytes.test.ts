/**
 * Byte-level pins: every fixture workflow is exported deterministically (fixed asset id, fixed
 * release version and time, no freshly minted record ids) and the SHA-256 of the whole `.octx`
 * file plus the package digest are compared with values recorded before the architecture
 * refactor. A refactor that changes any written byte — an entry's content, its compression, the
 * entry order, a ZIP header — fails here.
 *
 * Whole-file hashes of deflated entries also depend on the zlib that Node bundles; the stored
 * (`compressionLevel: 0`) package and the package digests do not.
 */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HashingTextEmbedder, loadWorkdir, PackageBuilder, repackPackage, type ExportResult, type PackageBuilderOptions } from 'octx-export';
import { eventsFromFile, fromIngest, loadIngestFiles } from 'octx-export/adapters/ingest';
import { fromRag, loadRagFiles, ragDocumentsFolder, type RagChunk } from 'octx-export/adapters/rag';
import { fromSagDatabase } from 'octx-export/adapters/sag';
import { createSagDatabase, SAG } from '../adapters/sag-fixture.js';
import { inspectZip } from '../helpers/zip-inspect.js';
import { ROOT, tempDir } from '../helpers/temp.js';

// Generated from the code before the architecture refactor (issue 11); a changed value means the
// SDK now writes different bytes — never update them to make a refactor pass.
// Every `file` value changed deliberately in issue 23: the Arrow files are written straight into
// the archive, so the physical entry order is now Arrow files, other payloads, manifest.json
// (test 8 pins it); the central directory order, every entry's local header fields and data, and
// every package digest are unchanged (checked entry by entry with Python's zipfile against the
// previous layout, and the `digest` values below did not change).
const GOLDEN = {
  // Changed deliberately by issue 14: embed() now writes an input_sha256 column into every
  // target and input_hash into vectors/config.json (and so a new fingerprint).
  workdirWithVectors: {
    file: 'a727d5971c1e1e4cd456d16a76887a117232956db6aca194d8876d3b720ecbfb',
    digest: 'sha256:1d9786aeedf9fa5aa1c1c21315011e82e0ab0f6ba36876cb9ec5d792165ed5e8',
  },
  workdirDocumentsOnly: {
    file: '54bbd78203508f2240bf7fa9e5a31c32f6ad3834b32fd28ebcfd4cf4cc5824e0',
    digest: 'sha256:e6591d2f1d558c1631d3b58dbb386cc109e3d1ec983d90263a40fd385375b679',
  },
  rag: {
    file: 'd438e72eec452b9a9b84852f655a8b2e1b24312f7ec16b03e41e4c2e16eb8b4f',
    digest: 'sha256:571212e25101fbd17f61ac4e52a34be7140ff6b97734a340ae4e8d9937374bf0',
  },
  ingest: {
    file: 'b5b3a858e91facc4a26504dd0d95aba26a1620dcfb96229525cad21a68190365',
    digest: 'sha256:a2d1c83a78867f146a209982454fce93903de8e16e0581c9bbb106d36fc3f1c1',
  },
  // Re-pinned in issue 17 for new fixture DATA only (the fixture now follows the real zleap-sag
  // 0.7.1 schema: NOT NULL summaries and weights, end times); the code gives the old pin on the old fixture.
  sagDatabase: {
    file: 'bfa87cc4c4617d6daa414e36dfc75eecd352ab3668372ec059faa0347c080130',
    digest: 'sha256:a668516e0130cda3b057d7db90916f2696ee15b23d064db1f504d6e2bac90a78',
  },
  fluent: {
    file: '45fb3de81cd652d0255b0ce98cf82357f020999c83d8bfa7e7acc89dd69b12d6',
    digest: 'sha256:5f0a41f10c518f1b3d1cd0d69e24fa55d89ef2162de7e5e3dc9d19f651d7bb18',
  },
  fluentStored: {
    file: '7af786382c181122cb70ac154a743bd68a7454793853cf50ac6e6c89b69b2b56',
    digest: 'sha256:5f0a41f10c518f1b3d1cd0d69e24fa55d89ef2162de7e5e3dc9d19f651d7bb18',
  },
  // Changed with workdirWithVectors (issue 14: input_sha256 + input_hash).
  repackOfWorkdirWithVectors: {
    file: 'b402a9e06baae479fe0b429d3d22262b07715eb623edc043a28a385dc8bb8ac0',
    digest: 'sha256:1d9786aeedf9fa5aa1c1c21315011e82e0ab0f6ba36876cb9ec5d792165ed5e8',
  },
} as const;

const FIXTURES = join(ROOT, 'fixtures');
const RELEASE = { version: '1.0.0', createdAt: '2026-07-14T09:00:00Z' } as const;

/** SHA-256 (hex) of the whole written file. */
const fileSha256 = (path: string): string => createHash('sha256').update(readFileSync(path)).digest('hex');

/** The two pinned values of one written package. */
const pinned = (result: { output: string; packageDigest: string }) => ({ file: fileSha256(result.output), digest: result.packageDigest });

/** A canonical UUIDv7 derived from a seed: the same seed always gives the same id. */
function fixedId(seed: string): string {
  const h = createHash('sha256').update(seed).digest('hex');
  return `019f3000-0000-7${h.slice(0, 3)}-${'89ab'[parseInt(h[3]!, 16) & 3]}${h.slice(4, 7)}-${h.slice(7, 19)}`;
}

/**
 * The adapters take record ids from the builder's id ledger (`builder.ids`), which mints fresh
 * UUIDv7s unless the producer state file already knows the key — as it does on every release of a
 * pipeline after its first. This writes such a state file: a dry run on a scratch builder learns
 * which keys `load` asks for, and each key gets a fixed id derived from it.
 */
async function stateWithFixedIds(dir: string, load: (builder: PackageBuilder) => Promise<unknown>): Promise<string> {
  const scratch = new PackageBuilder({ asset: { name: 'dry run' } });
  let keys;
  try {
    await load(scratch);
    keys = scratch.ids.toJSON();
  } finally {
    await scratch.dispose();
  }
  const ids = Object.fromEntries(Object.entries(keys).map(([kind, byKey]) => [kind, Object.fromEntries(Object.keys(byKey).map((key) => [key, fixedId(`${kind}:${key}`)]))]));
  const path = join(dir, 'producer-state.json');
  writeFileSync(path, `${JSON.stringify({ format: 'octx-export/producer-state', version: 1, releases: {}, documents: {}, ids }, null, 2)}\n`);
  return path;
}

/** Workflow 1 (and 2 with `documentsOnly`): the three-kingdoms working folder, as examples/demo.ts exports it. */
async function exportThreeKingdoms(output: string, options: { documentsOnly?: boolean } = {}): Promise<ExportResult> {
  const builder = new PackageBuilder({ asset: { id: '019f2000-0000-7000-8000-0000000d3e00', name: 'Romance of the Three Kingdoms — reader’s knowledge base' }, release: RELEASE });
  await loadWorkdir(builder, join(FIXTURES, 'kb-three-kingdoms'));
  const embedder = new HashingTextEmbedder({ dimensions: 256 });
  for (const target of ['chunks', 'events', 'entities'] as const) {
    await builder.embed(target, embedder, { batchSize: 16, concurrency: 2 });
  }
  return builder.export({ output, structure: 'require', ...options });
}

describe('the bytes written for every fixture workflow are unchanged', () => {
  it('1. a working folder with vectors embedded for chunks, events and entities', async () => {
    const result = await exportThreeKingdoms(join(tempDir(), 'three-kingdoms.octx'));
    expect(result.report.capabilities).toEqual(['sag-structured', 'vectors']);
    expect(pinned(result)).toEqual(GOLDEN.workdirWithVectors);
  });

  it('2. the same working folder, documents only', async () => {
    const result = await exportThreeKingdoms(join(tempDir(), 'three-kingdoms-documents.octx'), { documentsOnly: true });
    expect(result.report.capabilities).toEqual([]);
    expect(pinned(result)).toEqual(GOLDEN.workdirDocumentsOnly);
  });

  it('3. the RAG adapter on fixtures/rag, with a caller’s extraction run linked to its chunks', async () => {
    const rag = (p: string) => join(FIXTURES, 'rag', p);
    const input = await loadRagFiles([rag('chunks.jsonl'), rag('vectors.jsonl')]);
    const load = async (builder: PackageBuilder) => {
      const report = await fromRag(builder, {
        chunks: input.chunks,
        vectors: input.vectors,
        locate: input.locate,
        documents: await ragDocumentsFolder(rag('documents')),
        rebuildDocuments: true,
        normalized: true,
        vectorConfig: { revision: '2026-06-01', pooling: 'cls' },
      });
      // Seed 002 has no events: one event per chunk and one entity, as an extraction run would add.
      const company = builder.ids.entity('extraction:company');
      builder.addEntity({ id: company, name: 'The company', type: 'org' });
      for (const chunk of input.chunks as RagChunk[]) {
        const event = builder.ids.event(`extraction:${chunk.chunk_id}`);
        builder.addEvent({ id: event, title: `Statement from ${chunk.doc_meta.doc_name}`, content: chunk.chunk_text });
        builder.linkChunkEvent({ chunk_id: report.chunkIds[chunk.chunk_id]!, event_id: event });
        builder.linkEventEntity({ event_id: event, entity_id: company });
      }
    };
    const dir = tempDir();
    const builder = new PackageBuilder({
      asset: { id: '019f2000-0000-7000-8000-000000000300', name: 'Company documents' },
      release: RELEASE,
      state: await stateWithFixedIds(dir, load),
    });
    await load(builder);
    const result = await builder.export({ output: join(dir, 'rag.octx'), structure: 'require' });
    expect(result.report.capabilities).toEqual(['sag-structured', 'vectors']);
    expect(pinned(result)).toEqual(GOLDEN.rag);
  });

  it('4. the ingest adapter on fixtures/ingest, with recorded extractor output', async () => {
    const ingest = (p: string) => join(FIXTURES, 'ingest', p);
    const input = await loadIngestFiles([ingest('envelopes.jsonl')]);
    const extractEvents = await eventsFromFile(ingest('events.jsonl'));
    const load = (builder: PackageBuilder) => fromIngest(builder, input.envelopes, { sourceRoot: ingest('sources'), locate: input.locate, extractEvents });
    const dir = tempDir();
    const builder = new PackageBuilder({ asset: { id: '019f2000-0000-7000-8000-000000000100', name: 'LLM wiki' }, release: RELEASE, state: await stateWithFixedIds(dir, load) });
    await load(builder);
    const result = await builder.export({ output: join(dir, 'wiki.octx'), structure: 'require' });
    expect(result.report.capabilities).toEqual(['sag-structured']);
    expect(pinned(result)).toEqual(GOLDEN.ingest);
  });

  it('5. the SAG database adapter with SAG-compatible ids (no ledger ids needed)', async () => {
    const dir = tempDir('octx-sag-');
    const database = join(dir, 'sag.db');
    createSagDatabase(database, 1);
    const builder = new PackageBuilder({ asset: { id: '019f2000-0000-7000-8000-000000000500', name: '三国演义读书会' }, release: RELEASE });
    const report = await fromSagDatabase(builder, database, { sourceId: SAG.source, idMode: 'sag-compatible' });
    expect(report.ids.ledger).toBe(0);
    const result = await builder.export({ output: join(dir, 'sag.octx'), structure: 'require' });
    expect(result.report.capabilities).toEqual(['sag-structured']);
    expect(pinned(result)).toEqual(GOLDEN.sagDatabase);
  });

  describe('6. a small package built through the fluent API', () => {
    const id = (n: number) => `019f2000-0000-7000-8000-${n.toString(16).padStart(12, '0')}`;
    const DOC = id(0xd0);
    const options = (extra: Partial<PackageBuilderOptions> = {}): PackageBuilderOptions => ({ asset: { id: id(0x600), name: 'Fluent' }, release: RELEASE, ...extra });
    const build = (builder: PackageBuilder) =>
      builder
        .addDocument({ path: 'guide.md', markdown: `---\ntype: Guide\ntitle: Oath\noctx:\n  document_id: ${DOC}\n---\n\n# Oath\n\nThree men swore an oath in a peach garden.\n` })
        .addDocument({ path: 'index.md', markdown: '# Index\n\n* [Oath](guide.md)\n' })
        .addChunk({ id: id(0x11), document_id: DOC, ordinal: 0, text: 'Three men swore an oath in a peach garden.' })
        .addEvent({ id: id(0x21), title: 'The oath', content: 'Liu Bei, Guan Yu and Zhang Fei swore brotherhood.' })
        .addEvent({ id: id(0x22), title: 'The vow', content: 'They vowed to die on the same day.', parent_id: id(0x21), level: 1 })
        .addEntity({ id: id(0x31), name: 'Liu Bei', type: 'person', description: 'The eldest brother.' })
        .linkChunkEvent({ chunk_id: id(0x11), event_id: id(0x21) })
        .linkChunkEvent({ chunk_id: id(0x11), event_id: id(0x22) })
        .linkEventEntity({ event_id: id(0x21), entity_id: id(0x31), weight: 1, description: 'sworn brother' })
        .linkEventEntity({ event_id: id(0x22), entity_id: id(0x31), weight: 0.5 })
        .setVectorConfig({ model: 'example/model', revision: 'r1', dimensions: 4, normalized: true })
        .addVector('chunks', id(0x11), [1, 0, 0, 0])
        .addVector('entities', id(0x31), [0, 0.6, 0.8, 0]);

    it('at the default compression level', async () => {
      const result = await build(new PackageBuilder(options())).export({ output: join(tempDir(), 'fluent.octx'), structure: 'require' });
      expect(result.report.capabilities).toEqual(['sag-structured', 'vectors']);
      expect(pinned(result)).toEqual(GOLDEN.fluent);
    });

    it('with compressionLevel 0 (every entry stored): same digest, different file', async () => {
      const result = await build(new PackageBuilder(options({ compressionLevel: 0 }))).export({ output: join(tempDir(), 'fluent-stored.octx'), structure: 'require' });
      expect(pinned(result)).toEqual(GOLDEN.fluentStored);
      expect(GOLDEN.fluentStored.digest).toBe(GOLDEN.fluent.digest);
    });
  });

  it('8. entry layout: Arrow files first (written into the archive), then the other payloads in UTF-8 path order, manifest.json last; the central directory lists manifest.json first, then every payload in path order', async () => {
    const result = await exportThreeKingdoms(join(tempDir(), 'layout.octx'));
    const entries = inspectZip(result.output);
    const paths = result.manifest.files.map((f) => f.path);
    expect(entries.map((e) => e.name)).toEqual(['manifest.json', ...paths]);
    const arrow = paths.filter((p) => p.endsWith('.arrow'));
    expect(arrow).toEqual(['vectors/chunks.arrow', 'vectors/entities.arrow', 'vectors/events.arrow']);
    const physical = [...entries].sort((a, b) => a.localHeaderOffset - b.localHeaderOffset).map((e) => e.name);
    expect(physical).toEqual([...arrow, ...paths.filter((p) => !p.endsWith('.arrow')), 'manifest.json']);
    expect(entries.find((e) => e.name === 'vectors/chunks.arrow')!.localHeaderOffset).toBe(0);
    // Each Arrow entry holds the bytes the manifest lists, stored, with its real CRC and sizes in its local header.
    const bytes = readFileSync(result.output);
    for (const e of entries.filter((x) => x.name.endsWith('.arrow'))) {
      expect(e.method).toBe(0);
      expect(createHash('sha256').update(e.data).digest('hex')).toBe(result.manifest.files.find((f) => f.path === e.name)!.sha256);
      expect(bytes.readUInt32LE(e.localHeaderOffset + 14)).toBe(e.crc32 >>> 0);
      expect(bytes.readUInt32LE(e.localHeaderOffset + 18)).toBe(e.size);
      expect(bytes.readUInt32LE(e.localHeaderOffset + 22)).toBe(e.size);
    }
  });

  it('7. repackPackage of the working-folder package keeps its digest', async () => {
    const dir = tempDir();
    const source = await exportThreeKingdoms(join(dir, 'three-kingdoms.octx'));
    const result = await repackPackage(source.output, join(dir, 'repacked.octx'));
    expect(result.dropped).toEqual([]);
    expect(pinned(result)).toEqual(GOLDEN.repackOfWorkdirWithVectors);
    expect(result.packageDigest).toBe(GOLDEN.workdirWithVectors.digest);
  });
});
