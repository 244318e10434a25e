/**
 * Many small pages: a plain folder of N pages of 40 bytes each (default 100,000), built, validated
 * and diffed against itself by the CLI, each step in a fresh process.
 *
 *   npm run bench -- --pages 100000 [--runs N] [--cli dist|src] [--keep]
 *   node --import tsx bench/pages-memory.ts --pages 20000
 *
 * 1. The folder is written here: N pages (`# Page i`, a line of text, padded to 40 bytes) in
 *    folders of 100 pages, no frontmatter (the builder adds type, title and a document id).
 * 2. Per run: the CLI loaded and nothing done (`--version`: the same-run baseline every other
 *    step's memory is counted over), `build DIR -o PKG --max-entries <N + 1000>`,
 *    `validate PKG` and `diff PKG PKG` with the same limit.
 * 3. Peak RSS and CPU time are the child's own, at exit (bench/maxrss-hook.mjs), as in
 *    bench/workdir-memory.ts; wall time is spawn to exit. Medians over the runs. KB/page is
 *    (peak RSS − the baseline's peak RSS) / N, in KiB.
 *
 * The goals: at most 2 KiB of peak memory per page over start-up for each step, a build within
 * 20 s and validate and diff within 10 s (wall, at 100,000 pages). Wall time on a loaded machine
 * says little: the load average is printed with the table, and CPU time beside the wall time.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { BENCH_TMP, ensureDir, isMain, parseArgs } from './common.js';
import type { StepResult } from './common.js';
import { cliOption, measureSteps, median } from './workdir-memory.js';

/** Bytes of each page. */
export const PAGE_BYTES = 40;
/** The goals of the case, per step (peak KiB per page over start-up, wall seconds at 100,000 pages). */
export const GOALS = { kibPerPage: 2, buildS: 20, validateS: 10, diffS: 10 } as const;

type Step = 'startup' | 'build' | 'validate' | 'diff';
const STEPS: readonly Step[] = ['startup', 'build', 'validate', 'diff'];

/** Writes the folder of `n` pages; returns its byte count. */
export function writePages(dir: string, n: number): number {
  let bytes = 0;
  for (let i = 0; i < n; i++) {
    const folder = join(dir, `part-${String(Math.floor(i / 100)).padStart(4, '0')}`);
    if (i % 100 === 0) mkdirSync(folder, { recursive: true });
    const text = `# Page ${i}\n\nA small page.\n`.padEnd(PAGE_BYTES - 1, '.') + '\n';
    writeFileSync(join(folder, `page-${i}.md`), text);
    bytes += Buffer.byteLength(text);
  }
  return bytes;
}

/** The case; prints its report and returns the process exit code. */
export async function runPagesMemory(args: ReadonlyMap<string, string>): Promise<number> {
  const given = args.get('pages');
  const pages = given === undefined || given === 'true' ? 100_000 : Number(given);
  if (!Number.isInteger(pages) || pages < 1) throw new Error(`--pages takes a page count (got ${given})`);
  const runs = Math.max(1, Number(args.get('runs') ?? 1));
  const keep = args.has('keep');
  const log = (s: string): void => void process.stdout.write(`${s}\n`);
  const cli = cliOption(args, log);
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const root = ensureDir(join(BENCH_TMP, `pages-${pages}-${stamp}`));
  const dir = join(root, 'pages');
  const g0 = performance.now();
  const bytes = writePages(dir, pages);
  log(
    `octx-export many small pages: ${pages} pages of ${PAGE_BYTES} bytes (${(bytes / 2 ** 20).toFixed(1)} MiB) written in ${((performance.now() - g0) / 1000).toFixed(1)} s; ${runs} run(s), CLI from ${cli}; scratch ${root}`,
  );

  const limit = String(pages + 1000);
  const { results, failures } = await measureSteps(
    cli,
    STEPS,
    (pkg): Record<Step, string[]> => ({
      startup: ['--version'],
      build: [
        'build',
        dir,
        '-o',
        pkg,
        '--name',
        'pages bench',
        '--asset-id',
        '019b76da-a800-7000-8000-000000000003',
        '--created-at',
        '2026-01-01T00:00:00Z',
        '--max-entries',
        limit,
        '--overwrite',
      ],
      validate: ['validate', pkg, '--max-entries', limit],
      diff: ['diff', pkg, pkg, '--max-entries', limit],
    }),
    { runs, root, keep, log },
  );

  const of = (step: Step): StepResult<Step>[] => results.filter((r) => r.step === step);
  const fmt = (x: number, d = 0): string => (Number.isFinite(x) ? x.toFixed(d) : '—');
  const baseline = median(of('startup').map((r) => r.maxRssMiB));
  const out: string[] = [
    '',
    `many small pages: ${pages} pages of ${PAGE_BYTES} bytes (medians of ${runs} run(s); MiB = 2^20 bytes, KiB/page over the \`--version\` baseline of this run)`,
    '',
  ];
  out.push('| command | peak RSS MiB | KiB/page over start-up | wall s | CPU s | goal | status |');
  out.push('|---|---|---|---|---|---|---|');
  const verdict: Record<string, string> = {};
  const wallGoal: Record<Step, number | undefined> = { startup: undefined, build: GOALS.buildS, validate: GOALS.validateS, diff: GOALS.diffS };
  for (const step of STEPS) {
    const rs = of(step);
    const rss = median(rs.map((r) => r.maxRssMiB));
    const wall = median(rs.map((r) => r.wallMs)) / 1000;
    const perPage = ((rss - baseline) * 1024) / pages;
    const goalWall = wallGoal[step];
    let status = '—';
    if (goalWall !== undefined && rs.length > 0) {
      const memory = perPage <= GOALS.kibPerPage;
      const time = pages !== 100_000 || wall <= goalWall;
      status = memory && time ? 'MET' : `MISSED (${[memory ? '' : 'memory', time ? '' : 'time'].filter(Boolean).join(', ')})`;
      verdict[step] = status;
    }
    const label = step === 'startup' ? 'CLI loaded, no work (`--version`): the baseline' : `\`${step}\``;
    const goal = goalWall === undefined ? '—' : `≤ ${GOALS.kibPerPage} KiB/page${pages === 100_000 ? `, ≤ ${goalWall} s` : ''}`;
    out.push(
      `| ${label} | **${fmt(rss)}** | ${step === 'startup' ? '—' : fmt(perPage, 2)} | ${fmt(wall, 2)} | ${fmt(median(rs.map((r) => r.cpuMs)) / 1000, 2)} | ${goal} | ${status} |`,
    );
  }
  out.push('');
  if (pages !== 100_000) out.push('The time goals are for 100,000 pages: at another size only the memory goal is checked.');
  out.push(
    `machine: ${cpus().length} × ${cpus()[0]?.model ?? '?'}, Node ${process.version}, load average ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')} at the end`,
  );
  if (failures.length > 0) out.push('', 'failures:', ...failures.map((f) => `  ${f}`));
  if (keep) out.push(`outputs kept in ${root}`);
  else rmSync(root, { recursive: true, force: true });
  const saved = join(ensureDir(BENCH_TMP), `results-pages-${pages}-${stamp}.json`);
  writeFileSync(saved, JSON.stringify({ pages, pageBytes: PAGE_BYTES, runs, cli, goals: GOALS, baselineMiB: baseline, verdict, results, failures, loadavg: loadavg() }, null, 2));
  log(`${out.join('\n')}\n\nraw results: ${saved}`);
  return failures.length > 0 ? 1 : 0;
}

if (isMain(import.meta.url)) {
  process.exitCode = await runPagesMemory(parseArgs(process.argv.slice(2)));
}
