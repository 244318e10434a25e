/**
 * Peak RSS of `octx-export build` and `octx-export validate` on issue 23's working folder, against
 * the Python reference exporter's figures quoted in the issue.
 *
 *   npm run bench -- --workdir 2000 [--runs N] [--cli dist|src] [--keep]
 *   node --import tsx bench/workdir-memory.ts --workdir 2000
 *
 * 1. bench/workdir-gen.mjs (the issue reporter's script) writes the working folder: N documents
 *    (default 2,000) with 10 chunks and 10 events each, an entity per 10 events, complete links,
 *    no vectors (2,000 documents: 20k chunks, 20k events, 2k entities).
 * 2. Per run, each in a fresh process: the CLI loaded and nothing done (`--version`: the floor of
 *    any command), `build DIR -o PKG --require-structure`, and `validate PKG`.
 * 3. Peak RSS is the child's own `process.resourceUsage().maxRSS` at exit, written by
 *    bench/maxrss-hook.mjs (preloaded with `--import`), so it covers the whole process like
 *    `/usr/bin/time -v` does. Medians over the runs.
 *
 * `--cli dist` (default) runs `node dist/cli/main.js`, as the installed CLI runs: run
 * `npm run build` first after changing src/ (a warning says when dist/ is older than src/).
 * `--cli src` runs src/cli/main.ts through tsx, which adds the loader's ~50 MiB to every figure.
 *
 * The Python reference exporter (REF) is measured too when an install of it is named
 * (`OCTX_REF_PYTHONPATH`, see bench/reference.ts): after each run, its `create_octx` and
 * `validate_octx` in fresh interpreters, and the table gives REF time / ours per run against
 * issue 38's targets (build ≥ 10×, validate ≥ 15×, peak RSS ≤ REF + 64 MiB). Without it the bench
 * says "REF not found", and the memory table keeps issue 23's quoted REF peaks.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { BENCH_TMP, ensureDir, isMain, newest, parseArgs, REPO_ROOT, type StepResult } from './common.js';
import { measureReference, probeReference, type ReferenceStep } from './reference.js';

/** Issue 23's figures for the 2,000-document folder (quoted, MiB): the Python reference, and the SDK as measured in the issue. */
export const QUOTED = {
  python: { build: 66, validate: 64 },
  sdkInIssue: { build: '160–184', validate: '125' },
} as const;
/** Issue 23's target: peak RSS within 64 MiB of the Python reference, for build and validate. */
export const MARGIN_MIB = 64;

type Step = 'startup' | 'build' | 'validate';
const STEPS: readonly Step[] = ['startup', 'build', 'validate'];

/** Total bytes of the files under `dir`. */
function folderBytes(dir: string): number {
  let n = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    n += e.isDirectory() ? folderBytes(p) : statSync(p).size;
  }
  return n;
}

/** Runs one CLI command in a fresh process with the RSS hook; resolves with what it measured. */
export function measureCli<S extends string>(cli: 'dist' | 'src', cliArgs: readonly string[], step: S, run: number, scratch: string): Promise<StepResult<S> & { output: string }> {
  const rssFile = join(scratch, `rss-${step}-${run}.json`);
  rmSync(rssFile, { force: true });
  const hook = pathToFileURL(join(REPO_ROOT, 'bench', 'maxrss-hook.mjs')).href;
  const entry = cli === 'dist' ? ['--import', hook, join(REPO_ROOT, 'dist', 'cli', 'main.js')] : ['--import', 'tsx', '--import', hook, join(REPO_ROOT, 'src', 'cli', 'main.ts')];
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const p = spawn(process.execPath, [...entry, ...cliArgs], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, BENCH_MAXRSS_FILE: rssFile } });
    let output = '';
    const keep = (d: Buffer): void => {
      output = (output + d.toString()).slice(-20_000);
    };
    p.stdout.on('data', keep);
    p.stderr.on('data', keep);
    p.once('error', reject);
    p.once('close', (code) => {
      const wallMs = performance.now() - t0;
      if (!existsSync(rssFile)) return reject(new Error(`${step}: exit ${code} without an RSS record\n${output.slice(-2000)}`));
      const r = JSON.parse(readFileSync(rssFile, 'utf8')) as { maxRssKiB: number; userMs: number; systemMs: number };
      resolve({ step, run, exitCode: code, wallMs, cpuMs: r.userMs + r.systemMs, maxRssMiB: r.maxRssKiB / 1024, output });
    });
  });
}

export const median = (xs: readonly number[]): number => {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

/** The `--cli` option (`dist` by default), checked: a missing dist/ fails, a stale one is a warning. */
export function cliOption(args: ReadonlyMap<string, string>, log: (s: string) => void): 'dist' | 'src' {
  const cli = (args.get('cli') ?? 'dist') as 'dist' | 'src';
  if (cli !== 'dist' && cli !== 'src') throw new Error('--cli must be dist or src');
  if (cli === 'dist') {
    const main = join(REPO_ROOT, 'dist', 'cli', 'main.js');
    if (!existsSync(main)) throw new Error('dist/cli/main.js is missing: run `npm run build` first, or pass --cli src');
    if (newest(join(REPO_ROOT, 'src')) > statSync(main).mtimeMs) log('WARNING: src/ has files newer than dist/cli/main.js: run `npm run build` first to measure the current code.');
  }
  return cli;
}

/**
 * Runs each step's CLI command `runs` times (a fresh package path per run), logging each
 * measurement; a run stops at its first failing step, which is returned with its output's tail.
 * @param commands the CLI arguments of every step, given the run's package path
 */
export async function measureSteps<S extends string>(
  cli: 'dist' | 'src',
  steps: readonly S[],
  commands: (pkg: string) => Record<S, string[]>,
  opts: { runs: number; root: string; keep: boolean; log: (s: string) => void; afterRun?: (run: number) => Promise<void> },
): Promise<{ results: StepResult<S>[]; failures: string[] }> {
  const results: StepResult<S>[] = [];
  const failures: string[] = [];
  for (let run = 1; run <= opts.runs; run++) {
    const pkg = join(opts.root, `run-${run}.octx`);
    const args = commands(pkg);
    for (const step of steps) {
      const r = await measureCli(cli, args[step], step, run, opts.root);
      const { output, ...rest } = r;
      opts.log(
        `  run ${run} ${step.padEnd(8)} ${(r.wallMs / 1000).toFixed(2).padStart(7)} s wall ${(r.cpuMs / 1000).toFixed(2).padStart(7)} s cpu ${r.maxRssMiB.toFixed(0).padStart(5)} MiB peak RSS (load ${loadavg()[0]!.toFixed(2)})`,
      );
      if (r.exitCode !== 0) {
        failures.push(`run ${run} ${step}: exit ${r.exitCode}: ${output.trim().split('\n').slice(-8).join(' | ').slice(0, 1200)}`);
        break;
      }
      results.push(rest);
    }
    if (!opts.keep) rmSync(pkg, { force: true });
    await opts.afterRun?.(run);
  }
  return { results, failures };
}

/** Issue 38's speed targets against REF on the 2,000-document folder: REF time / ours at least this. */
export const REF_SPEED_TARGETS = { build: 10, validate: 15 } as const;
/** REF's times quoted in issue 38 (s; the filer's machine, not this one), for when REF is not installed. */
export const QUOTED_REF_SECONDS = { build: [22, 28], validate: [22, 23] } as const;

/**
 * The speed and memory comparison with REF: measured pairs (REF time / ours, per run, median) when
 * REF ran; else, marked indicative, ours against the times issue 38 quotes from another machine.
 */
function referenceTable(docs: number, ours: readonly StepResult<Step>[], refs: readonly StepResult<ReferenceStep>[], notFound: string | undefined): string[] {
  const fmt = (x: number, d = 2): string => (Number.isFinite(x) ? x.toFixed(d) : '—');
  const lines = [`against the Python reference (REF), ${docs}-document working folder:`, ''];
  if (notFound !== undefined) {
    lines.push(`REF not found (${notFound}).`);
    if (docs !== 2000) return lines;
    lines.push(`Indicative only: ours measured here against REF's times quoted in issue 38 (another machine):`, '');
    lines.push('| command | ours wall s | REF quoted s | quoted / ours | target |', '|---|---|---|---|---|');
    for (const step of ['build', 'validate'] as const) {
      const w = median(ours.filter((r) => r.step === step).map((r) => r.wallMs)) / 1000;
      const [lo, hi] = QUOTED_REF_SECONDS[step];
      lines.push(`| \`${step}\` | ${fmt(w)} | ${lo}–${hi} | ${fmt(lo / w, 1)}–${fmt(hi / w, 1)}× | ≥ ${REF_SPEED_TARGETS[step]}× |`);
    }
    return [...lines, ''];
  }
  lines.push(
    '| command | ours wall s | REF wall s | REF / ours (per run) | target | ours peak MiB | REF peak MiB | peak target | status |',
    '|---|---|---|---|---|---|---|---|---|',
  );
  for (const step of ['build', 'validate'] as const) {
    const mine = ours.filter((r) => r.step === step);
    const theirs = refs.filter((r) => r.step === `ref-${step}`);
    const ratios = theirs.flatMap((t) => {
      const o = mine.find((m) => m.run === t.run);
      return o ? [t.wallMs / o.wallMs] : [];
    });
    const ratio = median(ratios);
    const peak = median(mine.map((r) => r.maxRssMiB));
    const refPeak = median(theirs.map((r) => r.maxRssMiB));
    const speed = !Number.isFinite(ratio) ? 'n/a' : ratio >= REF_SPEED_TARGETS[step] ? 'MET' : 'MISSED';
    const memory = !Number.isFinite(peak) || !Number.isFinite(refPeak) ? 'n/a' : peak <= refPeak + MARGIN_MIB ? 'MET' : 'MISSED';
    lines.push(
      `| \`${step}\` | ${fmt(median(mine.map((r) => r.wallMs)) / 1000)} | ${fmt(median(theirs.map((r) => r.wallMs)) / 1000)} | **${fmt(ratio, 1)}×** (${ratios.map((x) => fmt(x, 1)).join(', ')}) | ≥ ${REF_SPEED_TARGETS[step]}× | ${fmt(peak, 0)} | ${fmt(refPeak, 0)} | ≤ REF + ${MARGIN_MIB} | speed ${speed}, memory ${memory} |`,
    );
  }
  return [...lines, ''];
}

/** The memory comparison; prints its report and returns the process exit code. */
export async function runWorkdirMemory(args: ReadonlyMap<string, string>): Promise<number> {
  const given = args.get('workdir');
  const docs = given === undefined || given === 'true' ? 2000 : Number(given);
  if (!Number.isInteger(docs) || docs < 1) throw new Error(`--workdir takes a document count (got ${given})`);
  const runs = Math.max(1, Number(args.get('runs') ?? 3));
  const keep = args.has('keep');
  const log = (s: string): void => void process.stdout.write(`${s}\n`);
  const cli = cliOption(args, log);
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const root = ensureDir(join(BENCH_TMP, `workdir-${docs}-${stamp}`));
  const dir = join(root, 'workdir');
  log(`octx-export workdir memory: ${docs} documents, ${runs} run(s), CLI from ${cli}; scratch ${root}`);

  const g0 = performance.now();
  const gen = spawnSync(process.execPath, [join(REPO_ROOT, 'bench', 'workdir-gen.mjs'), dir, String(docs)], { cwd: REPO_ROOT, stdio: ['ignore', 'inherit', 'inherit'] });
  if (gen.status !== 0) throw new Error(`workdir-gen.mjs failed (exit ${gen.status})`);
  const lines = (p: string): number => readFileSync(join(dir, p), 'utf8').split('\n').length - 1;
  const shape = {
    documents: docs,
    chunks: lines('data/chunks.jsonl'),
    events: lines('data/events.jsonl'),
    entities: lines('data/entities.jsonl'),
    links: lines('relations/chunk-events.jsonl') + lines('relations/event-entities.jsonl'),
    bytes: folderBytes(dir),
  };
  log(
    `working folder written in ${((performance.now() - g0) / 1000).toFixed(1)} s: ${shape.documents} documents, ${shape.chunks} chunks, ${shape.events} events, ${shape.entities} entities, ${shape.links} links, ${(shape.bytes / 2 ** 20).toFixed(1)} MiB`,
  );

  const ref = probeReference();
  log(ref.found ? `REF: the Python reference \`octx\` ${ref.install.version} (${ref.install.python}), measured after each run` : `REF not found: ${ref.reason}`);
  const refResults: StepResult<ReferenceStep>[] = [];
  const refFailures: string[] = [];
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
        'workdir memory bench',
        '--asset-id',
        '019b76da-a800-7000-8000-000000000002',
        '--created-at',
        '2026-01-01T00:00:00Z',
        '--require-structure',
        '--overwrite',
      ],
      validate: ['validate', pkg],
    }),
    {
      runs,
      root,
      keep,
      log,
      afterRun: async (run) => {
        if (!ref.found) return;
        const r = await measureReference(ref.install, dir, run, root, log);
        refResults.push(...r.results);
        refFailures.push(...r.failures);
      },
    },
  );

  const of = (step: Step): StepResult<Step>[] => results.filter((r) => r.step === step);
  const fmt = (x: number, d = 0): string => (Number.isFinite(x) ? x.toFixed(d) : '—');
  const out: string[] = ['', `peak RSS, ${docs}-document working folder (medians of ${runs} run(s); MiB = 2^20 bytes)`, ''];
  out.push('| command | peak RSS MiB | runs | wall s | CPU s | Python reference (quoted) | target | status |');
  out.push('|---|---|---|---|---|---|---|---|');
  const verdict: Record<string, string> = {};
  // The quoted figures are for the 2,000-document folder: another size has no reference.
  const comparable = docs === 2000;
  for (const step of STEPS) {
    const rs = of(step);
    const rss = median(rs.map((r) => r.maxRssMiB));
    const ref = step === 'startup' ? undefined : QUOTED.python[step];
    const limit = ref === undefined ? undefined : ref + MARGIN_MIB;
    const status = limit === undefined || rs.length === 0 ? '—' : !comparable ? 'n/a (reference is for 2,000 documents)' : rss <= limit ? 'MET' : 'MISSED';
    if (limit !== undefined) verdict[step] = status;
    const label = step === 'startup' ? 'CLI loaded, no work (`--version`)' : `\`${step}\``;
    out.push(
      `| ${label} | **${fmt(rss)}** | ${rs.map((r) => fmt(r.maxRssMiB)).join(', ')} | ${fmt(median(rs.map((r) => r.wallMs)) / 1000, 2)} | ${fmt(median(rs.map((r) => r.cpuMs)) / 1000, 2)} | ${ref === undefined ? '—' : `${ref} MiB`} | ${limit === undefined ? '—' : `≤ ${limit} MiB`} | ${status} |`,
    );
  }
  out.push('');
  out.push(
    `Python reference figures in this table are quoted from issue 23 (REF measured in this run, if any, is in the next table). The issue measured the SDK at ${QUOTED.sdkInIssue.build} MiB (build) and ${QUOTED.sdkInIssue.validate} MiB (validate) on the 2,000-document folder.`,
  );
  out.push('', ...referenceTable(docs, results, refResults, ref.found ? undefined : ref.reason));
  out.push(
    `machine: ${cpus().length} × ${cpus()[0]?.model ?? '?'}, Node ${process.version}, load average ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')} at the end`,
  );
  if (failures.length + refFailures.length > 0) out.push('', 'failures:', ...[...failures, ...refFailures].map((f) => `  ${f}`));
  if (keep) out.push(`outputs kept in ${root}`);
  else rmSync(root, { recursive: true, force: true });
  const saved = join(ensureDir(BENCH_TMP), `results-workdir-${docs}-${stamp}.json`);
  writeFileSync(
    saved,
    JSON.stringify(
      {
        docs,
        runs,
        cli,
        shape,
        quoted: QUOTED,
        marginMiB: MARGIN_MIB,
        verdict,
        results,
        failures,
        reference: ref.found ? { version: ref.install.version, results: refResults, failures: refFailures } : { notFound: ref.reason },
        loadavg: loadavg(),
      },
      null,
      2,
    ),
  );
  log(`${out.join('\n')}\n\nraw results: ${saved}`);
  return failures.length > 0 ? 1 : 0;
}

if (isMain(import.meta.url)) {
  process.exitCode = await runWorkdirMemory(parseArgs(process.argv.slice(2)));
}
