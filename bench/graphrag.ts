/**
 * from-graphrag on a synthetic GraphRAG 3.x index, paired with a PackageBuilder build of the same
 * records given directly (the baseline), each in its own child process so peak RSS is its own.
 *
 *   npm run bench -- --graphrag [--units 1000000] [--dim 384] [--runs 1]
 *
 * The index: documents of 10 text units each (text units of ~330 bytes), one entity per 10 text
 * units plus a shared one, one relationship per text unit (so every text unit has an event), and
 * the text-unit embeddings as an `embeddings.text_unit_text.parquet` snapshot (`dim` doubles per
 * row), written in row groups of 10,000 with hyparquet-writer (bench/parquet-writer.ts). The baseline adds the same
 * documents, chunks, entities, events, links and vectors to a PackageBuilder.
 *
 * Child modes (run by the series): `--mode generate|graphrag|builder --dir DIR --units N --dim D`.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PackageBuilder } from 'octx-export';
import { fromGraphRag } from 'octx-export/adapters/graphrag';
import { openParquetFile } from './parquet-writer.js';
import { isMain, measure, parseArgs, RAISED_LIMITS, runBenchChild, type ChildResult } from './common.js';

const UNITS_PER_DOCUMENT = 10;
const GROUP = 10_000;
const CREATED_AT = '2026-07-14T09:00:00Z';

/** The synthetic corpus, computed from indexes so the generator and the baseline agree without reading each other. */
const corpus = {
  unitText: (u: number) =>
    `Text unit ${u} of document ${Math.floor(u / UNITS_PER_DOCUMENT)}. Agent ${u % 97} met analyst ${u % 89} near site ${u % 83}; the logs of shift ${u % 7} record signals ${(u * 7919) % 100_003} and ${(u * 104_729) % 99_991}, repeated across the relay until the room fell silent and the report was filed.`,
  documentTitle: (d: number) => `document-${d}.txt`,
  entityTitle: (e: number) => `ENTITY ${e}`,
  entityOf: (u: number) => Math.floor(u / UNITS_PER_DOCUMENT),
  /** Entity -1 is the shared one every relationship's target. */
  shared: 'SHARED SITE',
  vector(u: number, dim: number): number[] {
    const v = new Array<number>(dim);
    let s = 0;
    for (let i = 0; i < dim; i++) {
      v[i] = Math.sin(u * 0.618 + i * 1.3);
      s += v[i]! * v[i]!;
    }
    const n = Math.sqrt(s);
    for (let i = 0; i < dim; i++) v[i] = v[i]! / n;
    return v;
  },
};
const unitId = (u: number) => `tu-${u}`;
const documentId = (d: number) => `doc-${d}`;
const entityId = (e: number) => `ent-${e}`;

async function generate(dir: string, units: number, dim: number): Promise<void> {
  mkdirSync(dir, { recursive: true });
  const docs = Math.ceil(units / UNITS_PER_DOCUMENT);
  const entities = docs;
  const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => from + i);
  const documents = openParquetFile(join(dir, 'documents.parquet'), [
    { name: 'id', kind: 'string' },
    { name: 'title', kind: 'string' },
    { name: 'text', kind: 'string' },
    { name: 'text_unit_ids', kind: 'list<string>' },
  ]);
  for (let d0 = 0; d0 < docs; d0 += GROUP / UNITS_PER_DOCUMENT) {
    const ds = range(d0, Math.min(docs, d0 + GROUP / UNITS_PER_DOCUMENT));
    const unitsOf = (d: number) => range(d * UNITS_PER_DOCUMENT, Math.min(units, (d + 1) * UNITS_PER_DOCUMENT));
    await documents.write({
      id: ds.map(documentId),
      title: ds.map(corpus.documentTitle),
      text: ds.map((d) => unitsOf(d).map(corpus.unitText).join('\n')),
      text_unit_ids: ds.map((d) => unitsOf(d).map(unitId)),
    });
  }
  await documents.finish();
  const textUnits = openParquetFile(join(dir, 'text_units.parquet'), [
    { name: 'id', kind: 'string' },
    { name: 'text', kind: 'string' },
    { name: 'document_id', kind: 'string' },
  ]);
  const snapshot = openParquetFile(join(dir, 'embeddings.text_unit_text.parquet'), [
    { name: 'id', kind: 'string' },
    { name: 'embedding', kind: 'list<double>' },
  ]);
  const relationships = openParquetFile(join(dir, 'relationships.parquet'), [
    { name: 'id', kind: 'string' },
    { name: 'source', kind: 'string' },
    { name: 'target', kind: 'string' },
    { name: 'description', kind: 'string' },
    { name: 'weight', kind: 'double' },
    { name: 'text_unit_ids', kind: 'list<string>' },
  ]);
  for (let u0 = 0; u0 < units; u0 += GROUP) {
    const us = range(u0, Math.min(units, u0 + GROUP));
    await textUnits.write({ id: us.map(unitId), text: us.map(corpus.unitText), document_id: us.map((u) => documentId(Math.floor(u / UNITS_PER_DOCUMENT))) });
    await snapshot.write({ id: us.map(unitId), embedding: us.map((u) => corpus.vector(u, dim)) });
    await relationships.write({
      id: us.map((u) => `rel-${u}`),
      source: us.map((u) => corpus.entityTitle(corpus.entityOf(u))),
      target: us.map(() => corpus.shared),
      description: us.map((u) => `Unit ${u} ties ${corpus.entityTitle(corpus.entityOf(u))} to the site.`),
      weight: us.map(() => 1),
      text_unit_ids: us.map((u) => [unitId(u)]),
    });
  }
  await textUnits.finish();
  await snapshot.finish();
  await relationships.finish();
  const ents = openParquetFile(join(dir, 'entities.parquet'), [
    { name: 'id', kind: 'string' },
    { name: 'title', kind: 'string' },
    { name: 'type', kind: 'string' },
    { name: 'description', kind: 'string' },
    { name: 'text_unit_ids', kind: 'list<string>' },
  ]);
  for (let e0 = 0; e0 <= entities; e0 += GROUP) {
    const es = range(e0, Math.min(entities + 1, e0 + GROUP));
    const last = (e: number) => e === entities;
    await ents.write({
      id: es.map((e) => (last(e) ? 'ent-shared' : entityId(e))),
      title: es.map((e) => (last(e) ? corpus.shared : corpus.entityTitle(e))),
      type: es.map((e) => (last(e) ? 'GEO' : 'PERSON')),
      description: es.map((e) => (last(e) ? 'The site.' : `Entity ${e}.`)),
      text_unit_ids: es.map((e) => (last(e) ? [] : range(e * UNITS_PER_DOCUMENT, Math.min(units, (e + 1) * UNITS_PER_DOCUMENT)).map(unitId))),
    });
  }
  await ents.finish();
  writeFileSync(join(dir, '..', 'settings.yaml'), 'models:\n  default_embedding_model:\n    model: synthetic-384\nembed_text:\n  model_id: default_embedding_model\n');
}

/** The baseline: the same records given straight to a PackageBuilder. */
async function buildDirect(units: number, dim: number, out: string): Promise<number> {
  const b = new PackageBuilder({ asset: { name: 'synthetic', id: '019c0000-0000-7000-8000-0000000000b1' }, release: { version: '1.0.0', createdAt: CREATED_AT } });
  const docs = Math.ceil(units / UNITS_PER_DOCUMENT);
  b.setVectorConfig({ model: 'synthetic-384', dimensions: dim, normalized: true });
  const shared = b.ids.entity('shared');
  b.addEntity({ id: shared, name: corpus.shared, type: 'GEO', description: 'The site.' });
  for (let d = 0; d < docs; d++) {
    const unitsOf = Array.from({ length: Math.min(units, (d + 1) * UNITS_PER_DOCUMENT) - d * UNITS_PER_DOCUMENT }, (_, i) => d * UNITS_PER_DOCUMENT + i);
    const docId = b.ids.document(`d${d}`);
    const title = corpus.documentTitle(d);
    b.addDocument({
      path: `documents/${title.replace('.txt', '')}.md`,
      markdown: `---\ntype: "Document"\ntitle: "${title}"\noctx:\n  document_id: "${docId}"\n---\n\n${unitsOf.map(corpus.unitText).join('\n')}`,
    });
    const entity = b.ids.entity(`e${d}`);
    b.addEntity({ id: entity, name: corpus.entityTitle(d), type: 'PERSON', description: `Entity ${d}.` });
    unitsOf.forEach((u, ordinal) => {
      const chunk = b.ids.chunk(`u${u}`);
      b.addChunk({ id: chunk, document_id: docId, ordinal, text: corpus.unitText(u) });
      const event = b.ids.event(`r${u}`);
      b.addEvent({ id: event, title: `${corpus.entityTitle(d)} → ${corpus.shared}`, content: `Unit ${u} ties ${corpus.entityTitle(d)} to the site.`, category: 'relationship' });
      b.linkChunkEvent({ chunk_id: chunk, event_id: event });
      b.linkEventEntity({ event_id: event, entity_id: entity, description: 'source' });
      b.linkEventEntity({ event_id: event, entity_id: shared, description: 'target' });
      b.addVector('chunks', chunk, corpus.vector(u, dim));
    });
  }
  const r = await b.export({ output: out, overwrite: true, limits: { ...RAISED_LIMITS } });
  return r.report.structure.counts?.chunks ?? 0;
}

async function child(args: Map<string, string>): Promise<void> {
  const dir = args.get('dir')!;
  const units = Number(args.get('units'));
  const dim = Number(args.get('dim'));
  const mode = args.get('mode')!;
  if (mode === 'generate') return generate(join(dir, 'output'), units, dim);
  const out = join(dir, `${mode}.octx`);
  await measure(mode, 'W', 1, async () => {
    if (mode === 'builder') return { records: await buildDirect(units, dim, out), payloadBytes: 0 };
    const b = new PackageBuilder({ asset: { name: 'synthetic', id: '019c0000-0000-7000-8000-0000000000b1' }, release: { version: '1.0.0', createdAt: CREATED_AT } });
    const r = await fromGraphRag(b, join(dir, 'output'), {});
    await b.export({ output: out, overwrite: true, limits: { ...RAISED_LIMITS } });
    return { records: r.chunks.count, payloadBytes: 0, extra: { events: r.events.count, entities: r.entities.count, vectors: r.vectors.status, structure: r.structure.expected } };
  });
}

/** The series: generate once, then builder and graphrag alternately, `runs` times each. */
export async function graphRagSeries(argv: readonly string[]): Promise<void> {
  const args = parseArgs(argv);
  const units = Number(args.get('units') ?? 1_000_000);
  const dim = Number(args.get('dim') ?? 384);
  const runs = Number(args.get('runs') ?? 1);
  const dir = mkdtempSync(join(tmpdir(), 'octx-bench-graphrag-'));
  try {
    const common = ['--dir', dir, '--units', String(units), '--dim', String(dim)];
    const t0 = performance.now();
    await runBenchChild(import.meta.url, ['--mode', 'generate', ...common]);
    console.log(`generated ${units.toLocaleString('en-US')} text units (${dim}-d snapshot) in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    const rows: ChildResult[] = [];
    for (let i = 0; i < runs; i++) for (const mode of ['builder', 'graphrag']) rows.push((await runBenchChild(import.meta.url, ['--mode', mode, ...common]))!);
    const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const of = (mode: string) => rows.filter((r) => r.mode === mode);
    console.log('| mode | wall s | CPU s | text units/s | peak RSS MiB |\n| --- | --- | --- | --- | --- |');
    for (const mode of ['builder', 'graphrag']) {
      const rs = of(mode);
      const wall = median(rs.map((r) => r.wallMs)) / 1000;
      console.log(
        `| ${mode} | ${wall.toFixed(1)} | ${(median(rs.map((r) => r.cpuUserMs + r.cpuSystemMs)) / 1000).toFixed(1)} | ${Math.round(units / wall).toLocaleString('en-US')} | ${Math.round(median(rs.map((r) => r.maxRssMB)))} |`,
      );
    }
    const ratio = median(of('graphrag').map((r) => r.wallMs)) / median(of('builder').map((r) => r.wallMs));
    console.log(`ratio graphrag / builder (wall): ${ratio.toFixed(2)}× (goal ≤ 1.5×); extra: ${JSON.stringify(of('graphrag')[0]?.extra)}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (isMain(import.meta.url)) {
  const args = parseArgs(process.argv.slice(2));
  if (args.has('mode')) await child(args);
  else await graphRagSeries(process.argv.slice(2));
}
