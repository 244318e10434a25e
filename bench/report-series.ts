/**
 * The report benchmark (`npm run bench -- --report [--size W|L|S] [--runs N] [--package FILE]`):
 * render time and peak RSS of `renderReport` on the synthetic corpus (bench/corpus.ts, vectors
 * for every target), paired with `validatePackage` on the same package in the same run — the
 * report runs the validator and then streams the package once more per layer, so
 * report / validate is its cost in units of a validation on this machine, now.
 *
 * The package is exported once (bench/export.ts) into .bench-tmp/report-<size>/ and reused by
 * later runs (delete the folder to regenerate it); L (1M chunks, ~3.6 GB) takes several minutes.
 * Every measurement runs in a fresh child process. Peak RSS target: ≤ 512 MiB at 1M chunks.
 */
import { spawn } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { BENCH_TMP, ensureDir, parseArgs, parseSdkBuild, parseSize, REPO_ROOT, RESULT_MARKER, sdkEnv, staleDistWarning, type ChildResult } from './common.js';

const args = parseArgs(process.argv.slice(2));
const size = parseSize(args.get('size') ?? 'W');
const runs = Math.max(1, Number(args.get('runs') ?? 1));
const sdk = parseSdkBuild(args.get('sdk'));
const env = sdkEnv(sdk);
const limits = size === 'L' ? ['--limits', 'raised'] : [];

/** Runs one bench child and returns its result line. */
function child(script: string, childArgs: readonly string[]): Promise<ChildResult> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', join(REPO_ROOT, 'bench', script), ...childArgs], {
      cwd: REPO_ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    p.stdout.on('data', (d: Buffer) => (out += d.toString()));
    p.stderr.on('data', (d: Buffer) => (err = (err + d.toString()).slice(-20_000)));
    p.on('close', (code) => {
      const line = out.split('\n').find((l) => l.startsWith(RESULT_MARKER));
      if (code === 0 && line) resolve(JSON.parse(line.slice(RESULT_MARKER.length)) as ChildResult);
      else reject(new Error(`${script} exited ${code}: ${err.slice(-3000)}`));
    });
  });
}

if (sdk === 'dist') {
  const stale = staleDistWarning();
  if (stale !== undefined) console.log(stale);
}
const dir = ensureDir(join(BENCH_TMP, `report-${size}`));
const pkg = args.get('package') ?? join(dir, 'package.octx');
if (!existsSync(pkg)) {
  console.log(`exporting the ${size} corpus to ${pkg} (once; later runs reuse it)…`);
  const e = await child('export.ts', ['--size', size, '--out', pkg, '--tmp', join(dir, 'tmp'), ...limits]);
  console.log(`  exported in ${(e.wallMs / 1000).toFixed(1)} s, ${(statSync(pkg).size / 2 ** 20).toFixed(0)} MiB`);
}
const fmt = (r: ChildResult): string => `${(r.wallMs / 1000).toFixed(2)} s wall, ${((r.cpuUserMs + r.cpuSystemMs) / 1000).toFixed(2)} s CPU, peak RSS ${r.maxRssMB.toFixed(0)} MiB`;
for (let run = 1; run <= runs; run++) {
  // Alternate the order, to spread a noisy machine's drift over both.
  const order = run % 2 === 1 ? (['validate', 'report'] as const) : (['report', 'validate'] as const);
  const results: Partial<Record<'validate' | 'report', ChildResult>> = {};
  for (const m of order) {
    results[m] =
      m === 'validate'
        ? await child('validate.ts', ['--mode', 'validate', '--file', pkg, '--size', size, ...limits])
        : await child('report.ts', ['--file', pkg, '--out', join(dir, 'report.html'), '--size', size, ...limits]);
  }
  const r = results.report!;
  const v = results.validate!;
  console.log(`run ${run} (${size}, ${(statSync(pkg).size / 2 ** 20).toFixed(0)} MiB package):`);
  console.log(`  validate  ${fmt(v)}`);
  console.log(`  report    ${fmt(r)}; page ${((r.extra.htmlBytes as number) / 2 ** 20).toFixed(2)} MiB`);
  console.log(
    `  report / validate: ${(r.wallMs / v.wallMs).toFixed(2)}x wall; shows ${JSON.stringify({ documents: r.extra.documents, nodes: r.extra.nodes, edges: r.extra.edges, vectors: r.extra.vectors })}`,
  );
  console.log(`  peak RSS ≤ 512 MiB: ${r.maxRssMB <= 512 ? 'MET' : 'MISSED'}`);
}
