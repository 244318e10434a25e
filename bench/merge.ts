/**
 * mergePackages over shards made in the bench, paired with an export of the same content from
 * scratch (the baseline), each in its own child process so peak RSS is its own.
 *
 *   npm run bench -- --merge [--docs 4000] [--shards 4] [--dim 384] [--runs 3]
 *
 * The content: `docs` documents of 5 chunks each (~600 characters a chunk, so ~3.2 KB of
 * Markdown a document), one event per chunk, an entity per 10 documents plus one shared entity
 * that every event names, and a `dim`-d vector per chunk (`--dim 0`: none). Ids are fixed
 * UUIDv7s computed from indexes, so the shards agree without a ledger. Document `d` is in shard
 * `d % shards` with its chunks, events and links; an entity is in every shard that names it
 * (the shared one in all of them), identical.
 *
 * The baseline adds the whole content to one PackageBuilder, each kind in key order, and exports
 * it; the merge merges the shards. Both write with the default settings, so the two packages are
 * expected to be byte-identical (reported as `identical`). A third child validates the shards
 * (validatePackage of each), the part of the merge that reads them.
 *
 * Child modes (run by the series): `--mode generate|export|merge|validate --dir DIR --docs N --shards S --dim D`.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { mergePackages, PackageBuilder, validatePackage } from 'octx-export';
import { isMain, measure, parseArgs, runBenchChild, type ChildResult } from './common.js';

const CHUNKS_PER_DOCUMENT = 5;
const DOCUMENTS_PER_ENTITY = 10;
const CREATED_AT = '2026-07-14T09:00:00Z';
const ASSET = { name: 'merge bench', id: '019c0000-0000-7000-8000-0000000000c1' } as const;

/** A fixed UUIDv7 per kind and index: kinds differ in the first group, indexes in the last. */
const uuid = (kind: number, n: number) => `019c000${kind}-0000-7000-8000-${n.toString(16).padStart(12, '0')}`;
const ids = {
  document: (d: number) => uuid(1, d),
  chunk: (c: number) => uuid(2, c),
  event: (c: number) => uuid(3, c),
  /** Entity 0 is the shared one; document d's entity is 1 + d / 10. */
  entity: (e: number) => uuid(4, e),
};

/** The content, computed from indexes so the shards and the baseline agree without reading each other. */
const corpus = {
  chunkText(c: number): string {
    const words: string[] = [];
    let x = (c * 2_654_435_761) >>> 0;
    for (let i = 0; i < 90; i++) {
      x = (x * 1_103_515_245 + 12_345) >>> 0;
      words.push(VOCABULARY[x % VOCABULARY.length]!);
    }
    return `Passage ${c}: ${words.join(' ')}.`;
  },
  markdown(d: number): string {
    const chunks = Array.from({ length: CHUNKS_PER_DOCUMENT }, (_, i) => corpus.chunkText(d * CHUNKS_PER_DOCUMENT + i));
    return `---\ntype: "Document"\ntitle: "Document ${d}"\noctx:\n  document_id: "${ids.document(d)}"\n---\n\n# Document ${d}\n\n${chunks.join('\n\n')}\n`;
  },
  vector(c: number, dim: number): Float32Array {
    const v = new Float32Array(dim);
    let s = 0;
    for (let i = 0; i < dim; i++) {
      v[i] = Math.sin(c * 0.618 + i * 1.3);
      s += v[i]! * v[i]!;
    }
    const n = Math.sqrt(s);
    for (let i = 0; i < dim; i++) v[i] = v[i]! / n;
    return v;
  },
};
const VOCABULARY = (
  'the a of archive record signal relay analyst agent site report shift log room silent filed ' +
  'north harbour council ledger river bridge market winter grain tax envoy treaty garrison ' +
  'letter courier seal minister province survey census canal mill workshop guild charter'
).split(' ');

/** Adds documents `ds` (ascending) with their chunks, events, links and entities, each kind in key order. */
function fill(b: PackageBuilder, ds: readonly number[], dim: number): number {
  if (dim > 0) b.setVectorConfig({ model: 'bench-synthetic', dimensions: dim, normalized: true });
  b.addEntity({ id: ids.entity(0), name: 'Shared Site', type: 'place', description: 'Named by every event.' });
  let lastEntity = 0;
  let records = 1;
  for (const d of ds) {
    b.addDocument({ path: `documents/doc-${String(d).padStart(6, '0')}.md`, markdown: corpus.markdown(d) });
    const entity = 1 + Math.floor(d / DOCUMENTS_PER_ENTITY);
    if (entity !== lastEntity) {
      b.addEntity({
        id: ids.entity(entity),
        name: `Person ${entity}`,
        type: 'person',
        description: `Named in documents ${(entity - 1) * DOCUMENTS_PER_ENTITY}–${entity * DOCUMENTS_PER_ENTITY - 1}.`,
      });
      lastEntity = entity;
      records++;
    }
    for (let i = 0; i < CHUNKS_PER_DOCUMENT; i++) {
      const c = d * CHUNKS_PER_DOCUMENT + i;
      b.addChunk({ id: ids.chunk(c), document_id: ids.document(d), ordinal: i, text: corpus.chunkText(c) });
      b.addEvent({ id: ids.event(c), title: `Event of passage ${c}`, content: `Person ${entity} at the shared site, passage ${c}.`, category: 'meeting' });
      b.linkChunkEvent({ chunk_id: ids.chunk(c), event_id: ids.event(c) });
      // Key order of a relation is its pair: the shared entity (index 0) sorts first.
      b.linkEventEntity({ event_id: ids.event(c), entity_id: ids.entity(0), description: 'place' });
      b.linkEventEntity({ event_id: ids.event(c), entity_id: ids.entity(entity), description: 'participant' });
      if (dim > 0) b.addVector('chunks', ids.chunk(c), corpus.vector(c, dim));
      records += 5;
    }
    records++;
  }
  return records;
}

const shardFile = (dir: string, s: number) => join(dir, `shard-${s}.octx`);
const builder = () => new PackageBuilder({ asset: ASSET, release: { version: '1.0.0', createdAt: CREATED_AT } });

async function child(args: Map<string, string>): Promise<void> {
  const dir = args.get('dir')!;
  const docs = Number(args.get('docs'));
  const shards = Number(args.get('shards'));
  const dim = Number(args.get('dim'));
  const mode = args.get('mode')!;
  const all = Array.from({ length: docs }, (_, d) => d);
  if (mode === 'generate') {
    for (let s = 0; s < shards; s++) {
      const b = builder();
      fill(
        b,
        all.filter((d) => d % shards === s),
        dim,
      );
      await b.export({ output: shardFile(dir, s), overwrite: true });
    }
    return;
  }
  const out = join(dir, `${mode}.octx`);
  await measure(mode, 'S', 1, async () => {
    if (mode === 'export') {
      const b = builder();
      const records = fill(b, all, dim);
      await b.export({ output: out, overwrite: true });
      return { records, payloadBytes: 0 };
    }
    if (mode === 'validate') {
      // What the merge spends reading its shards once, checked: validatePackage of each.
      let valid = 0;
      for (let s = 0; s < shards; s++) if ((await validatePackage(shardFile(dir, s))).valid) valid++;
      return { records: valid, payloadBytes: 0 };
    }
    // Shards in reverse order: the result must not depend on it.
    const inputs = Array.from({ length: shards }, (_, s) => shardFile(dir, shards - 1 - s));
    const r = await mergePackages(inputs, { output: out, overwrite: true });
    return { records: r.report.structure.counts?.chunks ?? 0, payloadBytes: 0, extra: { shared: r.shared } };
  });
}

const sha256 = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

/** The series: generate the shards once, then export and merge alternately, `runs` times each. */
export async function mergeSeries(argv: readonly string[]): Promise<void> {
  const args = parseArgs(argv);
  const docs = Number(args.get('docs') ?? 4000);
  const shards = Number(args.get('shards') ?? 4);
  const dim = Number(args.get('dim') ?? 384);
  const runs = Number(args.get('runs') ?? 3);
  const dir = mkdtempSync(join(tmpdir(), 'octx-bench-merge-'));
  try {
    mkdirSync(dir, { recursive: true });
    const common = ['--dir', dir, '--docs', String(docs), '--shards', String(shards), '--dim', String(dim)];
    const t0 = performance.now();
    await runBenchChild(import.meta.url, ['--mode', 'generate', ...common]);
    const shardBytes = Array.from({ length: shards }, (_, s) => statSync(shardFile(dir, s)).size).reduce((a, b) => a + b, 0);
    console.log(
      `generated ${shards} shards of ${docs.toLocaleString('en-US')} documents in all (${docs * CHUNKS_PER_DOCUMENT} chunks, ${dim}-d vectors; ${(shardBytes / 2 ** 20).toFixed(1)} MiB) in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
    );
    const load = [loadavg()[0]!];
    const rows: ChildResult[] = [];
    for (let i = 0; i < runs; i++) {
      for (const mode of ['export', 'merge', 'validate']) {
        rows.push((await runBenchChild(import.meta.url, ['--mode', mode, ...common]))!);
        load.push(loadavg()[0]!);
      }
    }
    const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const of = (mode: string) => rows.filter((r) => r.mode === mode);
    console.log('| mode | wall s | CPU s | peak RSS MiB |\n| --- | --- | --- | --- |');
    for (const mode of ['export', 'merge', 'validate']) {
      const rs = of(mode);
      console.log(
        `| ${mode} | ${(median(rs.map((r) => r.wallMs)) / 1000).toFixed(2)} | ${(median(rs.map((r) => r.cpuUserMs + r.cpuSystemMs)) / 1000).toFixed(2)} | ${Math.round(median(rs.map((r) => r.maxRssMB)))} |`,
      );
    }
    // Per run, merge over the export just before it: the pair saw the same load.
    const ratios = of('merge').map((m, i) => m.wallMs / of('export')[i]!.wallMs);
    const cpu = (r: ChildResult): number => r.cpuUserMs + r.cpuSystemMs;
    const cpuRatios = of('merge').map((m, i) => cpu(m) / cpu(of('export')[i]!));
    const identical = sha256(join(dir, 'merge.octx')) === sha256(join(dir, 'export.octx'));
    console.log(
      `ratio merge / export (wall, median of ${runs} paired runs): ${median(ratios).toFixed(2)}× (runs: ${ratios.map((r) => r.toFixed(2)).join(', ')}; goal ≤ 0.5×); CPU ${median(cpuRatios).toFixed(2)}×; ` +
        `validating the shards alone: ${median(of('validate').map((v, i) => v.wallMs / of('export')[i]!.wallMs)).toFixed(2)}× the export; byte-identical: ${identical}; load average (1 min) ${Math.min(...load).toFixed(2)}–${Math.max(...load).toFixed(2)}; shared: ${JSON.stringify(of('merge')[0]?.extra.shared)}`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (isMain(import.meta.url)) {
  const args = parseArgs(process.argv.slice(2));
  if (args.has('mode')) await child(args);
  else await mergeSeries(process.argv.slice(2));
}
