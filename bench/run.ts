/**
 * octx-export benchmark (`npm run bench`): the exporter and validatePackage against the floor cost
 * of their bytes, and peak RSS of the CLI on a working folder.
 *
 *   npm run bench                                    # floor series, M (200k chunks), 3 runs
 *   npm run bench -- --size W                        # issue 23's export workload (50k chunks, 169 MB)
 *   npm run bench -- --size W-low                    # W's shape, text of 15 words: the SDK share on a low bytes floor
 *   npm run bench -- --size S                        # quick
 *   npm run bench -- --workdir 2000 [--runs N]       # peak RSS of build/validate on the 2,000-document folder (and REF: OCTX_REF_PYTHONPATH, bench/reference.ts)
 *   npm run bench -- --pages 100000 [--runs N]       # many small pages: build/validate/diff time, peak RSS, KiB/page (bench/pages-memory.ts)
 *   npm run bench -- --report [--size W|L] [--runs N] # renderReport time and peak RSS, paired with validate (bench/report-series.ts)
 *   npm run bench -- --graphrag [--units N] [--dim D] # from-graphrag on a synthetic index vs PackageBuilder (bench/graphrag.ts)
 *   npm run bench -- --merge [--docs N] [--shards S]  # mergePackages of S shards vs an export of the same content (bench/merge.ts)
 *
 * Without --workdir: bench/series.ts (every flag is documented there). With --workdir N:
 * bench/workdir-memory.ts.
 */
import { parseArgs } from './common.js';

const args = parseArgs(process.argv.slice(2));
if (args.has('merge')) {
  const { mergeSeries } = await import('./merge.js');
  await mergeSeries(process.argv.slice(2));
} else if (args.has('graphrag')) {
  const { graphRagSeries } = await import('./graphrag.js');
  await graphRagSeries(process.argv.slice(2));
} else if (args.has('report')) {
  // The report series runs as its module body (it reads process.argv itself).
  await import('./report-series.js');
} else if (args.has('pages')) {
  const { runPagesMemory } = await import('./pages-memory.js');
  process.exitCode = await runPagesMemory(args);
} else if (args.has('workdir')) {
  const { runWorkdirMemory } = await import('./workdir-memory.js');
  process.exitCode = await runWorkdirMemory(args);
} else {
  // The series runs as its module body (it reads process.argv itself).
  await import('./series.js');
}
