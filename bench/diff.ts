/**
 * The diff benchmark: two releases of the synthetic corpus (bench/corpus.ts) whose differences
 * are known by construction, then `diffPackages` over them, timed, with its peak RSS.
 *
 *   node --import tsx bench/diff.ts generate [--chunks 200000] [--dir .bench-tmp/diff]
 *   /usr/bin/time -v node --import tsx bench/diff.ts diff [--dir .bench-tmp/diff]
 *
 * `generate` writes `a.octx` (1.0.0) and `b.octx` (1.1.0) from the same seed. In b: every 20th
 * document's Markdown gains a line (changed documents); every 50th chunk's text is edited and its
 * vector kept (changed chunks, stale vectors); every 100th chunk's vector is re-embedded (changed
 * vectors); every 200th event-entity link gets a weight (changed links). `diff` runs one diff in
 * its own process (so the peak RSS is the diff's alone), checks the counts against those rules
 * and prints the time, the peak RSS and the counts.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { diffPackages, PackageBuilder } from 'octx-export';
import { BENCH_TMP, ensureDir, parseArgs } from './common.js';
import { generateCorpus, VECTOR_CONFIG, type CorpusSink } from './corpus.js';

const args = parseArgs(process.argv.slice(3));
const mode = process.argv[2];
const dir = ensureDir(args.get('dir') ?? join(BENCH_TMP, 'diff'));
const chunks = Number(args.get('chunks') ?? 200_000);

/** Writes one release; `edited` applies the 1.1.0 edits. Returns the expected change counts. */
async function release(output: string, version: string, edited: boolean) {
  const builder = new PackageBuilder({
    asset: { name: 'diff benchmark', id: '019b76da-a800-7000-8000-0000000000d1' },
    release: { version, createdAt: '2026-01-01T00:00:00Z' },
    tempDir: ensureDir(join(dir, 'tmp')),
  });
  builder.setVectorConfig({ ...VECTOR_CONFIG });
  const n = { documents: 0, chunks: 0, links: 0 };
  const expected = { documents: 0, chunks: 0, stale: 0, vectors: 0, links: 0, allDocuments: 0 };
  const editedChunks = new Set<string>();
  const sink: CorpusSink = {
    document: (d) => {
      const edit = edited && n.documents % 20 === 0;
      n.documents++;
      expected.allDocuments++;
      if (edit) expected.documents++;
      builder.addDocument({ path: d.path, markdown: edit ? `${d.markdown}\nEdited in 1.1.0.\n` : d.markdown });
    },
    chunk: (r) => {
      const i = n.chunks++;
      const edit = edited && i % 50 === 0;
      if (edit) {
        expected.chunks++;
        editedChunks.add(r.id);
      }
      builder.addChunk(edit ? { ...r, text: `${r.text} (edited)` } : r);
    },
    event: (r) => void builder.addEvent(r),
    entity: (r) => void builder.addEntity(r),
    chunkEvent: (l) => void builder.linkChunkEvent(l),
    eventEntity: (l) => {
      const edit = edited && n.links++ % 200 === 0;
      if (edit) expected.links++;
      builder.linkEventEntity(edit ? { ...l, weight: 0.5 } : l);
    },
    vector: (t, id, v) => {
      // The re-embedded ones are chosen by id: stable, and independent of the edited chunks.
      const reembed = edited && t === 'chunks' && parseInt(id.slice(-4), 16) % 100 === 0;
      if (reembed) expected.vectors++;
      else if (edited && editedChunks.has(id)) expected.stale++;
      if (reembed) {
        const copy = Float32Array.from(v);
        copy[0] = copy[0]! + 0.001;
        builder.addVector(t, id, copy);
      } else builder.addVector(t, id, v);
    },
    endDocument: () => builder.drain(),
  };
  await generateCorpus({ chunks, seed: 1 }, sink);
  await builder.export({ output, overwrite: true, structure: 'require' });
  return expected;
}

if (mode === 'generate') {
  const t0 = performance.now();
  await release(join(dir, 'a.octx'), '1.0.0', false);
  const expected = await release(join(dir, 'b.octx'), '1.1.0', true);
  writeFileSync(join(dir, 'expected.json'), JSON.stringify(expected));
  console.log(JSON.stringify({ generated: dir, chunks, seconds: (performance.now() - t0) / 1000, edits: expected }));
} else if (mode === 'diff') {
  const t0 = performance.now();
  let peak = 0;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 200);
  const d = await diffPackages(join(dir, 'a.octx'), join(dir, 'b.octx'));
  clearInterval(timer);
  const seconds = (performance.now() - t0) / 1000;
  const want = JSON.parse(readFileSync(join(dir, 'expected.json'), 'utf8')) as Record<string, number>;
  const got = { documents: d.documents.changed.length, chunks: d.records.chunks.changed, links: d.records.event_entities.changed };
  const exact =
    got.documents === want.documents &&
    got.chunks === want.chunks &&
    got.links === want.links &&
    d.vectors.chunks.changed === want.vectors &&
    d.vectors.chunks.stale === want.stale &&
    d.documents.unchanged + got.documents === want.allDocuments;
  console.log(
    JSON.stringify(
      {
        seconds: Number(seconds.toFixed(1)),
        maxRssMiB: Math.round(process.resourceUsage().maxRSS / 1024),
        sampledPeakRssMiB: Math.round(peak / 2 ** 20),
        sizesMiB: { old: Math.round(d.old.size / 2 ** 20), new: Math.round(d.new.size / 2 ** 20) },
        hasChanges: d.hasChanges,
        expected: want,
        exact,
        documents: { changed: d.documents.changed.length, unchanged: d.documents.unchanged, added: d.documents.added.length, removed: d.documents.removed.length },
        records: d.records,
        vectors: d.vectors,
      },
      null,
      1,
    ),
  );
} else {
  console.error('usage: node --import tsx bench/diff.ts generate|diff [--chunks N] [--dir DIR]');
  process.exitCode = 2;
}
