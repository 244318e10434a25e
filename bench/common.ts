/**
 * Shared pieces of the benchmark: corpus sizes, argument parsing, the measurement envelope every
 * child process uses, and the result line the orchestrator reads back.
 *
 * Every measured run happens in a fresh child process (see bench/run.ts) so that peak RSS
 * (`process.resourceUsage().maxRSS`) belongs to exactly one measurement.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CorpusSpec } from './corpus.js';

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/** Scratch folder (git-ignored). */
export const BENCH_TMP = join(REPO_ROOT, '.bench-tmp');

export type SizeName = 'S' | 'M' | 'L' | 'W' | 'W-low';
export const SIZE_NAMES: readonly SizeName[] = ['S', 'M', 'L', 'W', 'W-low'];

/** A named corpus: everything of {@link CorpusSpec} but the seed. */
export type SizeSpec = Omit<CorpusSpec, 'seed'>;

/**
 * The named corpora.
 * - S 10k, M 200k (default), L 1M (opt-in) chunks: 0.3 events and 0.1 entities per chunk,
 *   chunks of 200–1,500 characters, 384-d vectors (issue 7).
 * - W, the export workload of issue 23: 50k chunks, 16.7k events, 5k entities, 384-d vectors
 *   for all three targets and about 169 MB of payload, which needs shorter chunks (50–300
 *   characters) than S/M/L; the vectors are about two thirds of the bytes.
 * - W-low (issue 38): W's record counts, lengths and vectors, its text drawn from 15 English
 *   words. Deflate is cheap on such text, so the bytes floor is low and the SDK's per-record
 *   costs, which W's high-entropy text hides behind deflate, show.
 */
export const SIZE_SPECS: Readonly<Record<SizeName, SizeSpec>> = {
  S: { chunks: 10_000 },
  M: { chunks: 200_000 },
  L: { chunks: 1_000_000 },
  W: { chunks: 50_000, eventsPerChunk: 1 / 3, entitiesPerChunk: 0.1, dimensions: 384, chunkChars: { min: 50, max: 300 } },
  'W-low': { chunks: 50_000, eventsPerChunk: 1 / 3, entitiesPerChunk: 0.1, dimensions: 384, chunkChars: { min: 50, max: 300 }, vocabulary: 'low' },
};

/** Chunk counts of the named corpora. */
export const SIZES: Readonly<Record<SizeName, number>> = Object.fromEntries(SIZE_NAMES.map((n) => [n, SIZE_SPECS[n].chunks])) as Record<SizeName, number>;

/** The corpus of a size and seed; `chunks` overrides the size's chunk count (bench/profile.ts). */
export function corpusSpec(size: SizeName, seed: number, chunks?: number): CorpusSpec {
  return { ...SIZE_SPECS[size], seed, ...(chunks !== undefined && Number.isFinite(chunks) ? { chunks } : {}) };
}

/**
 * ArchiveLimits high enough for L: 1M chunks make ~25k entries, a 1.4 GiB chunks.jsonl, a
 * 1.5 GiB chunks.arrow, 1.2M chunk-event lines and 384M Arrow values — all above the reference
 * defaults (10k entries, 512 MiB per file, 4 GiB total, 1M JSONL lines, 100M Arrow values), so
 * with default limits the exporter refuses L before writing. `--limits raised` passes these to
 * `export({ limits })` and to `validatePackage(file, { limits })`.
 */
export const RAISED_LIMITS = {
  maxEntries: 1_000_000,
  maxFileSize: 64 * 2 ** 30,
  maxTotalUncompressed: 1024 * 2 ** 30,
  maxJsonlRecords: 100_000_000,
  maxArrowBatches: 10_000_000,
  maxArrowRows: 100_000_000,
  maxArrowValues: 100_000_000_000,
} as const;

/** Marker of the one JSON result line a child prints on stdout. */
export const RESULT_MARKER = '@@BENCH_RESULT ';

/** One measured step of a child-process bench (`--workdir`, `--pages`, the Python reference). */
export interface StepResult<S extends string> {
  readonly step: S;
  readonly run: number;
  readonly exitCode: number | null;
  /** Spawn to exit, as seen by this process (includes Node's start). */
  readonly wallMs: number;
  readonly cpuMs: number;
  readonly maxRssMiB: number;
}

/** What one child process measured. */
export interface ChildResult {
  readonly mode: string;
  readonly size: SizeName;
  readonly seed: number;
  /** Wall time of the measured section (ms). */
  readonly wallMs: number;
  /** process.cpuUsage() delta of the measured section (all threads, user + system; ms). */
  readonly cpuUserMs: number;
  readonly cpuSystemMs: number;
  /** Peak RSS of the whole child process (MB = 2^20 bytes), from resourceUsage().maxRSS. */
  readonly maxRssMB: number;
  /** RSS just before the clock started (module loading, tsx), for reference. */
  readonly startRssMB: number;
  /** Records handled: documents + every JSONL line (chunks, events, entities, both link files). */
  readonly records: number;
  /** Uncompressed payload bytes (Markdown + JSONL + Arrow + vector config). */
  readonly payloadBytes: number;
  /** Mode-specific details (phase timings, digests, sizes…). */
  readonly extra: Record<string, unknown>;
}

/** Minimal `--flag value` / `--flag` parser. */
export function parseArgs(argv: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (!a.startsWith('--')) continue;
    const eq = a.indexOf('=');
    if (eq > 0) {
      out.set(a.slice(2, eq), a.slice(eq + 1));
      continue;
    }
    const next = argv[i + 1];
    if (next !== undefined && !next.startsWith('--')) {
      out.set(a.slice(2), next);
      i++;
    } else out.set(a.slice(2), 'true');
  }
  return out;
}

/** The size named by `--size` (any letter case; default M). */
export function parseSize(v: string | undefined): SizeName {
  const s = (v ?? 'M').toUpperCase();
  const name = SIZE_NAMES.find((n) => n.toUpperCase() === s);
  if (name === undefined) throw new Error(`--size must be ${SIZE_NAMES.join(', ')} (got ${v})`);
  return name;
}

export function ensureDir(dir: string): string {
  mkdirSync(dir, { recursive: true });
  return dir;
}

const MB = 1024 * 1024;

/** Time of a section inside the measured body (ms), when only part of the body is the measurement. */
export interface SectionTime {
  readonly wallMs: number;
  readonly cpuUserMs: number;
  readonly cpuSystemMs: number;
}

/**
 * Adds up the wall and CPU time of many short synchronous sections (the bytes floor's hash and
 * deflate calls between the untimed generation of their input). process.cpuUsage() counts every
 * thread of the process, so V8's concurrent GC threads can add a little to the CPU of a section.
 */
export class SectionClock {
  #wall = 0;
  #user = 0;
  #system = 0;
  /** Runs `fn` synchronously and adds its wall and CPU time. */
  time<T>(fn: () => T): T {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    try {
      return fn();
    } finally {
      this.#wall += performance.now() - t0;
      const c = process.cpuUsage(c0);
      this.#user += c.user / 1000;
      this.#system += c.system / 1000;
    }
  }
  /** The sum so far. */
  get total(): SectionTime {
    return { wallMs: this.#wall, cpuUserMs: this.#user, cpuSystemMs: this.#system };
  }
}

/**
 * Runs `body` as the measured section of this child process and prints the result line.
 * The clock starts after every module is loaded and after a forced GC (the script runs with
 * --expose-gc), so module loading and tsx compilation are not counted. When the body returns a
 * `section` (the summed time of the work that is the measurement, e.g. the bytes floor's hashing
 * and deflate without the generation of their input), the result's wall/CPU are the section's
 * and the whole body's go to `extra.envelope`.
 */
export async function measure(
  mode: string,
  size: SizeName,
  seed: number,
  body: () => Promise<{ records: number; payloadBytes: number; extra?: Record<string, unknown>; section?: SectionTime }>,
): Promise<ChildResult> {
  (globalThis as { gc?: () => void }).gc?.();
  const startRssMB = process.memoryUsage.rss() / MB;
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const r = await body();
  const wallMs = performance.now() - t0;
  const cpu = process.cpuUsage(c0);
  const maxRssMB = process.resourceUsage().maxRSS / 1024; // maxRSS is in KiB
  const envelope = { wallMs, cpuUserMs: cpu.user / 1000, cpuSystemMs: cpu.system / 1000 };
  const result: ChildResult = {
    mode,
    size,
    seed,
    ...(r.section ?? envelope),
    maxRssMB,
    startRssMB,
    records: r.records,
    payloadBytes: r.payloadBytes,
    extra: { ...(r.extra ?? {}), ...(r.section ? { envelope } : {}) },
  };
  process.stdout.write(`${RESULT_MARKER}${JSON.stringify(result)}\n`);
  return result;
}

/** True when this module file is the process entry point. */
export function isMain(metaUrl: string): boolean {
  const entry = process.argv[1];
  return entry !== undefined && resolve(entry) === fileURLToPath(metaUrl);
}

/** The newest modification time of any file under `dir` (ms). */
export function newest(dir: string): number {
  let t = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    t = Math.max(t, e.isDirectory() ? newest(p) : statSync(p).mtimeMs);
  }
  return t;
}

/**
 * Which build of the SDK the bench children import as `octx-export`: `dist` (the compiled
 * package, as users run it) or `src` (the TypeScript sources through tsx, whose loader compiles
 * every module the run loads, apache-arrow's lazy import included: ~0.15 s inside the measured
 * window of a vectors export on the bench machine).
 */
export type SdkBuild = 'dist' | 'src';

/** Parses `--sdk` (default `dist`). */
export function parseSdkBuild(v: string | undefined): SdkBuild {
  if (v === undefined || v === 'dist') return 'dist';
  if (v === 'src') return 'src';
  throw new Error(`--sdk must be dist or src, not ${v}`);
}

/**
 * Environment for a bench child importing the `sdk` build. The children still run through tsx
 * (they are TypeScript); for `dist` tsx is pointed at a tsconfig without the `paths` that map
 * `octx-export` to `src/`, so the package's own `exports` (dist/) resolve it.
 */
export function sdkEnv(sdk: SdkBuild): NodeJS.ProcessEnv {
  if (sdk === 'src') return { ...process.env };
  return { ...process.env, TSX_TSCONFIG_PATH: join(REPO_ROOT, 'bench', 'tsconfig.dist.json') };
}

/**
 * Checks that `dist/` can be measured: throws when it is not built; returns a warning when it is
 * older than `src/` (the bench would measure stale code), else undefined.
 */
export function staleDistWarning(): string | undefined {
  const entry = join(REPO_ROOT, 'dist', 'index.js');
  if (!existsSync(entry)) throw new Error('dist/ is not built: run `npm run build` first (or pass --sdk src).');
  if (newest(join(REPO_ROOT, 'src')) > statSync(entry).mtimeMs)
    return 'WARNING: src/ has files newer than dist/index.js: run `npm run build` first to measure the current code (or pass --sdk src).';
  return undefined;
}

/**
 * SHA-256 over "path sha256\n" lines sorted by path: compares thousands of documents at once.
 * Here, not in baseline.ts: the exporter child must not import baseline.ts, whose apache-arrow
 * import would load the library before the exporter's clock starts (the SDK loads it itself, at
 * export time, and that load is part of its cost).
 */
export function digestOfDigests(pairs: readonly (readonly [string, string])[]): string {
  const sorted = [...pairs].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  const h = createHash('sha256');
  for (const [p, d] of sorted) h.update(`${p} ${d}\n`);
  return h.digest('hex');
}

/**
 * Runs a bench script's child mode (`node --expose-gc --import tsx <script> <args>`) and returns the
 * result it printed after {@link RESULT_MARKER} (undefined for a mode that prints none, such as
 * generating inputs). A child that exits non-zero rejects, naming the script and its arguments.
 * @param scriptUrl the script's `import.meta.url`
 */
export function runBenchChild(scriptUrl: string, args: readonly string[]): Promise<ChildResult | undefined> {
  const script = fileURLToPath(scriptUrl);
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', script, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    p.stdout.on('data', (d: Buffer) => (out += d.toString('utf8')));
    p.on('error', reject);
    p.on('close', (code) => {
      if (code !== 0) return reject(new Error(`${script} ${args.join(' ')} exited ${code}`));
      const line = out.split('\n').find((l) => l.startsWith(RESULT_MARKER));
      resolve(line ? (JSON.parse(line.slice(RESULT_MARKER.length)) as ChildResult) : undefined);
    });
  });
}
