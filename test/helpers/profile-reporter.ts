/**
 * `npm run test:profile`: a vitest reporter (beside the default one) that prints where a run's
 * time went — the slowest files (time in tests and hooks, and in importing the module) and the
 * slowest tests — and the quick-lane files that grew too slow for the inner loop.
 *
 * OCTX_PROFILE_TOP  rows per table (default 25)
 * OCTX_PROFILE_JSON a path: also write every file and test with its lane, state and duration as
 *                   JSON (to compare two runs, or count the tests of each lane)
 *
 * The times are vitest's own per-file and per-test durations: on a shared machine they are
 * inflated by the load, but comparable between files of one run. The CPU time of each file
 * (test/per-file-setup.ts: its worker's, and that of the processes it started and waited for,
 * test/helpers/cpu-time.ts) is what the file costs whatever the load: its table ranks the files
 * by it. A resource the broker starts (test/helpers/shared-resources.ts) runs in vitest's main
 * process and is counted in no file.
 */
import { writeFileSync } from 'node:fs';
import type { Reporter, TestModule, Vitest } from 'vitest/node';
import type { CpuTime } from './cpu-time.js';
import { classifyTests, HEAVY_TAG, type LaneOfFile } from './lanes.js';

/** A quick-lane file slower than this (ms of tests and hooks) is listed as too heavy for the inner loop. */
export const QUICK_FILE_BUDGET_MS = 3_000;

/** One test of the profile. */
export interface ProfiledTest {
  /** The suites and the test's name, joined with ` > `. */
  readonly name: string;
  readonly state: 'passed' | 'failed' | 'skipped' | 'pending';
  readonly durationMs: number;
}

/** One test file of the profile. */
export interface ProfiledFile {
  /** Path from the repository root. */
  readonly file: string;
  readonly lane: LaneOfFile['lane'] | 'unknown';
  /** Tests and hooks. */
  readonly durationMs: number;
  /** Importing the module and collecting its tests. */
  readonly importMs: number;
  /** CPU time (worker and the processes it started), when the file's setup measured it. */
  readonly cpu?: CpuTime;
  readonly tests: readonly ProfiledTest[];
}

/** What OCTX_PROFILE_JSON receives. */
export interface Profile {
  readonly wallMs: number;
  readonly files: readonly ProfiledFile[];
}

const seconds = (ms: number): string => (ms / 1000).toFixed(1).padStart(7);

/** The profile of a finished run. */
export function profileOf(modules: ReadonlyArray<TestModule>, root: string, wallMs: number): Profile {
  const lanes = new Map(classifyTests(root).map((f) => [f.file, f.lane]));
  const files = modules.map((m): ProfiledFile => {
    const d = m.diagnostic();
    const file = m.relativeModuleId;
    const tests = [...m.children.allTests()].map((t): ProfiledTest => ({ name: t.fullName, state: t.result().state, durationMs: t.diagnostic()?.duration ?? 0 }));
    const cpu = m.meta().cpu;
    return { file, lane: lanes.get(file) ?? 'unknown', durationMs: d.duration, importMs: d.collectDuration, ...(cpu && { cpu }), tests };
  });
  return { wallMs, files };
}

/** The tables `npm run test:profile` prints. */
export function formatProfile(profile: Profile, top: number): string {
  const { files } = profile;
  const tests = files.flatMap((f) => f.tests.map((t) => ({ ...t, file: f.file })));
  const count = (state: ProfiledTest['state']): number => tests.filter((t) => t.state === state).length;
  const inTests = files.reduce((a, f) => a + f.durationMs, 0);
  const inImports = files.reduce((a, f) => a + f.importMs, 0);
  const out: string[] = [
    '',
    `Test profile: ${files.length} files, ${tests.length} tests (${count('passed')} passed, ${count('failed')} failed, ${count('skipped')} skipped), ${(profile.wallMs / 1000).toFixed(1)} s wall`,
    `  summed over files: ${(inTests / 1000).toFixed(1)} s in tests and hooks, ${(inImports / 1000).toFixed(1)} s importing`,
    '',
    `Slowest files (of ${files.length}):`,
    '   tests s  import s  tests  lane     file',
  ];
  for (const f of [...files].sort((a, b) => b.durationMs - a.durationMs).slice(0, top)) {
    out.push(`  ${seconds(f.durationMs)}  ${seconds(f.importMs)}  ${String(f.tests.length).padStart(5)}  ${f.lane.padEnd(7)}  ${f.file}`);
  }
  const measured = files.filter((f) => f.cpu !== undefined);
  if (measured.length > 0) {
    const cpuOf = (f: ProfiledFile): number => f.cpu!.ownMs + f.cpu!.childMs;
    const own = measured.reduce((a, f) => a + f.cpu!.ownMs, 0);
    const children = measured.reduce((a, f) => a + f.cpu!.childMs, 0);
    out.push(
      '',
      `Most CPU (of ${measured.length}; ${((own + children) / 1000).toFixed(1)} s: ${(own / 1000).toFixed(1)} s in the workers, ${(children / 1000).toFixed(1)} s in processes they started):`,
    );
    out.push('     cpu s  worker s  child s  lane     file');
    for (const f of [...measured].sort((a, b) => cpuOf(b) - cpuOf(a)).slice(0, top)) {
      out.push(`  ${seconds(cpuOf(f))}   ${seconds(f.cpu!.ownMs)}  ${seconds(f.cpu!.childMs)}  ${f.lane.padEnd(7)}  ${f.file}`);
    }
  }
  out.push('', `Slowest tests (of ${tests.length}):`);
  for (const t of [...tests].sort((a, b) => b.durationMs - a.durationMs).slice(0, top)) out.push(`  ${seconds(t.durationMs)} s  ${t.file} > ${t.name}`);
  const heavy = files.filter((f) => f.lane === 'quick' && f.durationMs > QUICK_FILE_BUDGET_MS);
  if (heavy.length > 0) {
    out.push('', `Quick-lane files over ${QUICK_FILE_BUDGET_MS / 1000} s (make them faster, or declare \`// @module-tag ${HEAVY_TAG}\` to leave the quick lane):`);
    for (const f of heavy) out.push(`  ${seconds(f.durationMs)} s  ${f.file}`);
  }
  return `${out.join('\n')}\n`;
}

/** The reporter (`--reporter=./test/helpers/profile-reporter.ts`). */
export default class ProfileReporter implements Reporter {
  private ctx: Vitest | undefined;
  private started = performance.now();

  onInit(ctx: Vitest): void {
    this.ctx = ctx;
  }

  onTestRunStart(): void {
    this.started = performance.now();
  }

  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const root = this.ctx?.config.root ?? process.cwd();
    const profile = profileOf(modules, root, performance.now() - this.started);
    const top = Number(process.env.OCTX_PROFILE_TOP ?? 25);
    this.ctx?.logger.log(formatProfile(profile, Number.isSafeInteger(top) && top > 0 ? top : 25));
    const json = process.env.OCTX_PROFILE_JSON;
    if (json) writeFileSync(json, `${JSON.stringify(profile, null, 1)}\n`);
  }
}
