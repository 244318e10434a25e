/**
 * The exporter run: the same record stream as the baseline (bench/corpus.ts), fed to a
 * PackageBuilder, then `export()` — plan, Arrow materialisation, ZIP (deflate level 6 for text,
 * store for Arrow), the post-write verification (validatePackage of the temporary file), fsync
 * and the atomic rename.
 *
 *   node --expose-gc --import tsx bench/export.ts --size S --seed 1 --out FILE.octx --tmp DIR
 *        [--verify full|integrity] [--limits raised] [--collect-only] [--no-drain]
 *
 * The measured section starts before the first record is generated and ends when `export()`
 * resolves, so it holds generation + the builder's collection (validation, serialisation,
 * spilling) + the whole export.
 */
import { createHash } from 'node:crypto';
import { PackageBuilder } from 'octx-export';
import { corpusSpec, digestOfDigests, ensureDir, isMain, measure, parseArgs, parseSize, RAISED_LIMITS } from './common.js';
import { DIMENSIONS, generateCorpus, recordCount, vectorConfig, type CorpusSink, type CorpusSpec } from './corpus.js';

/** Fixed asset id and release, so repeated runs write identical packages. */
export const BENCH_ASSET_ID = '019b76da-a800-7000-8000-000000000001';
export const BENCH_CREATED_AT = '2026-01-01T00:00:00Z';

export interface ExportRunOptions {
  readonly corpus: CorpusSpec;
  readonly output: string;
  readonly tempDir: string;
  readonly level?: number;
  /** Stop after collecting (add* calls) and dispose the builder: isolates the per-record cost. */
  readonly collectOnly?: boolean;
  /** export({ verify }): the SDK default when absent (bench/run.ts always passes it). */
  readonly verify?: 'full' | 'integrity';
  /** Pass RAISED_LIMITS as export({ limits }). */
  readonly raisedLimits?: boolean;
  /**
   * `await builder.drain()` after each document (default true), as the baseline awaits its
   * streams' drain: a CPU-bound producer that yields. false measures a producer that never
   * yields until export().
   */
  readonly drain?: boolean;
}

export async function runExport(o: ExportRunOptions) {
  ensureDir(o.tempDir);
  const t0 = performance.now();
  const builder = new PackageBuilder({
    asset: { name: 'octx-export benchmark corpus', id: BENCH_ASSET_ID },
    release: { version: '1.0.0', createdAt: BENCH_CREATED_AT },
    tempDir: o.tempDir,
  });
  builder.setVectorConfig({ ...vectorConfig(o.corpus.dimensions ?? DIMENSIONS) });
  const sink: CorpusSink = {
    document: (d) => void builder.addDocument({ path: d.path, markdown: d.markdown }),
    chunk: (r) => void builder.addChunk(r),
    event: (r) => void builder.addEvent(r),
    entity: (r) => void builder.addEntity(r),
    chunkEvent: (l) => void builder.linkChunkEvent(l),
    eventEntity: (l) => void builder.linkEventEntity(l),
    vector: (t, id, v) => void builder.addVector(t, id, v),
    ...(o.drain === false ? {} : { endDocument: () => builder.drain() }),
  };
  const counts = await generateCorpus(o.corpus, sink);
  const collectMs = performance.now() - t0;
  const rssAfterCollectMB = process.memoryUsage.rss() / 2 ** 20;
  const maxRssAfterCollectMB = process.resourceUsage().maxRSS / 1024;
  const heapAfterCollectMB = process.memoryUsage().heapUsed / 2 ** 20;
  if (o.collectOnly) {
    await builder.dispose();
    return { counts, payloadBytes: 0, extra: { counts, phases: { collectMs }, memory: { rssAfterCollectMB, maxRssAfterCollectMB, heapAfterCollectMB } } };
  }

  // Peak RSS per export phase: sampled every 250 ms (the export phases are asynchronous, so the
  // timer runs), the phase taken from the builder's progress events.
  let phase = 'plan+arrow';
  const peakByPhase: Record<string, number> = {};
  const sample = (): void => {
    const rss = process.memoryUsage.rss() / 2 ** 20;
    if (rss > (peakByPhase[phase] ?? 0)) peakByPhase[phase] = rss;
  };
  const timer = setInterval(sample, 250);
  const t1 = performance.now();
  let result;
  try {
    result = await builder.export({
      output: o.output,
      overwrite: true,
      compressionLevel: o.level ?? 6,
      structure: 'require',
      ...(o.verify ? { verify: o.verify } : {}),
      ...(o.raisedLimits ? { limits: { ...RAISED_LIMITS } } : {}),
      onProgress: (e) => {
        if (e.phase !== 'write' && e.phase !== 'verify') return;
        // `integrity` verification runs until its last entry is checked; fsync and rename follow
        // ('publish'). (`full` reports its progress as phase 'validate', not sampled apart here.)
        const next = e.phase === 'write' ? 'zip' : e.completed < e.total ? 'verify' : 'publish';
        // Sampled when the phase changes, not at every entry's event: reading the RSS ~2,500
        // times (once per entry written and verified) cost the W export ~40 ms of its own time.
        if (next === phase) return;
        sample();
        phase = next;
      },
    });
  } catch (e) {
    // Still report what was measured (L can fail its own post-write verification on the
    // reader's default limits): the error, the time to failure and the memory per phase.
    clearInterval(timer);
    sample();
    const err = e as { code?: string; message?: string };
    return {
      counts,
      payloadBytes: 0,
      extra: {
        counts,
        error: { code: err.code ?? 'Error', message: String(err.message ?? e).slice(0, 1500), phase },
        phases: { collectMs, exportMs: performance.now() - t1 },
        memory: { rssAfterCollectMB, maxRssAfterCollectMB, heapAfterCollectMB, peakByPhase },
      },
    };
  } finally {
    clearInterval(timer);
    sample();
  }
  const exportMs = performance.now() - t1;

  const { report, manifest } = result;
  const files: Record<string, { size: number; sha256: string; compressed: number; method: string }> = {};
  const docPairs: [string, string][] = [];
  let payloadBytes = 0;
  for (const f of report.files) {
    payloadBytes += f.size;
    if (f.path.startsWith('knowledge/')) docPairs.push([f.path, f.sha256]);
    else files[f.path] = { size: f.size, sha256: f.sha256, compressed: f.compressedSize, method: f.method };
  }
  if (report.structure.status !== 'written' || report.vectors.status !== 'written') {
    throw new Error(`the structure/vectors were not written: ${report.structure.status}/${report.vectors.status} ${JSON.stringify(report.warnings).slice(0, 500)}`);
  }
  return {
    counts,
    payloadBytes,
    extra: {
      counts,
      phases: { collectMs, exportMs, ...report.timings },
      memory: { rssAfterCollectMB, maxRssAfterCollectMB, heapAfterCollectMB, peakByPhase },
      archiveBytes: report.archive.size,
      files,
      documents: { count: docPairs.length, digestOfDigests: digestOfDigests(docPairs) },
      packageDigest: result.packageDigest,
      manifestSha256: createHash('sha256').update(JSON.stringify(manifest)).digest('hex'),
      warnings: report.warnings.map((w) => w.code),
    },
  };
}

if (isMain(import.meta.url)) {
  const args = parseArgs(process.argv.slice(2));
  const size = parseSize(args.get('size'));
  const seed = Number(args.get('seed') ?? 1);
  const corpus = corpusSpec(size, seed, args.has('chunks') ? Number(args.get('chunks')) : undefined);
  const output = args.get('out');
  const tempDir = args.get('tmp');
  if (!output || !tempDir) throw new Error('--out FILE and --tmp DIR are required');
  const collectOnly = args.has('collect-only');
  const verify = args.get('verify') as 'full' | 'integrity' | undefined;
  if (verify !== undefined && verify !== 'full' && verify !== 'integrity') throw new Error('--verify must be full or integrity');
  const raisedLimits = args.get('limits') === 'raised';
  const drain = !args.has('no-drain');
  const mode = collectOnly ? 'collect' : verify === 'integrity' ? 'export-integrity' : 'export';
  await measure(mode, size, seed, async () => {
    const r = await runExport({ corpus, output, tempDir, level: Number(args.get('level') ?? 6), collectOnly, ...(verify ? { verify } : {}), raisedLimits, drain });
    return { records: recordCount(r.counts), payloadBytes: r.payloadBytes, extra: r.extra };
  });
}
