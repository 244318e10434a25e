/**
 * Runs the real CLI for tests, as `octx-export <args>` would run from a shell: the exit code and
 * what it wrote to stdout and stderr. The CLI is this run's sources compiled once by the shared
 * resource `compiled-sources` (test/helpers/compiled-sources.ts) — the same JavaScript either way:
 *
 * - {@link runCli} calls the CLI's `main` in the test's own process (the compiled module, loaded
 *   natively by Node: vitest.config.ts externalizes it), one run at a time, with the run's
 *   working folder, environment, pipes for stdout and stderr (no TTY) and exit code set and put
 *   back around it. A process costs about a second of CPU before the command does anything
 *   (Node's start, loading the CLI's modules); here the modules load once per test file.
 * - {@link spawnCli} starts `node <cli> <args>` as a child process: for a test of what only a
 *   process has — the executable entry (`main.ts`: `process.exitCode`, signal clean-up, a closed
 *   pipe), Node's own options (`NODE_OPTIONS`), a kill on timeout.
 */
import { execFile } from 'node:child_process';
import { Buffer } from 'node:buffer';
import { Writable } from 'node:stream';
import { pathToFileURL } from 'node:url';
import type { CliIo } from '../../src/cli/args.js';
import { compiledModule } from '../helpers/compiled-sources.js';
import { ROOT } from '../helpers/temp.js';
import { sharedResource } from '../helpers/shared-resources.js';

/** What a CLI run produced. */
export interface CliResult {
  /** Exit code (-1 when the process was killed, or an in-process run outlived its timeout). */
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** How to run it: the environment on top of this process's, the working folder, a time limit. */
export interface CliRunOptions {
  /** Variables set for the run (`undefined` unsets one), on top of this process's and `NO_COLOR=1`. */
  readonly env?: NodeJS.ProcessEnv;
  /** Milliseconds before the run counts as killed (code -1); default 55 s. */
  readonly timeout?: number;
  /** The working folder (default: the repository root). */
  readonly cwd?: string;
}

const DEFAULT_TIMEOUT = 55_000;

/**
 * The arguments of `node` that run the CLI with `args`: the compiled `src/cli/main.ts`, with
 * source maps on so that a stack trace names the TypeScript lines (as under tsx).
 */
export async function cliArgv(args: readonly string[]): Promise<string[]> {
  const { cli } = await sharedResource('compiled-sources');
  return ['--enable-source-maps', cli, ...args];
}

/**
 * Spawns the CLI with `args` from the repository root, or from `cwd` (stdin closed, no TTY), and
 * kills it after `timeout`. Use it where the process is what the test checks; else {@link runCli}.
 */
export async function spawnCli(args: readonly string[], options: CliRunOptions = {}): Promise<CliResult> {
  const argv = await cliArgv(args);
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      argv,
      {
        cwd: options.cwd ?? ROOT,
        env: { ...process.env, NO_COLOR: '1', ...options.env },
        maxBuffer: 64 * 1024 * 1024,
        timeout: options.timeout ?? DEFAULT_TIMEOUT,
        encoding: 'utf8',
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
    child.stdin?.end();
  });
}

/** The CLI's `main` (src/cli/cli.ts), as the compiled module exports it. */
type CliMain = (argv: readonly string[], io: CliIo) => Promise<number>;

let compiledMain: Promise<CliMain> | undefined;

/** Loads the compiled CLI module once per test file (the worker's module cache is the file's own). */
function loadMain(): Promise<CliMain> {
  compiledMain ??= compiledModule('src/cli/cli.ts').then(async (file) => ((await import(/* @vite-ignore */ pathToFileURL(file).href)) as { main: CliMain }).main);
  return compiledMain;
}

/**
 * Variables Node reads only when a process starts (its options, its thread pool): a run in this
 * process cannot have them, so asking for one is a mistake in the test, said at once.
 */
const STARTUP_ONLY = /^(NODE_|UV_)/;

/** The in-process runs, one after another (each sets the process's working folder and variables). */
let queue: Promise<unknown> = Promise.resolve();

/**
 * Runs `octx-export <args>` in this process, as {@link spawnCli} would in a child: from the
 * repository root or `cwd`, with `NO_COLOR=1` and `env` set, stdout and stderr pipes (no TTY:
 * no progress line unless `OCTX_PROGRESS` asks), nothing on stdin. Runs started together run
 * one after another, in the order they were called. A run still going after `timeout` resolves
 * with code -1 (as a killed process would); the next run waits for it to end all the same.
 */
export function runCli(args: readonly string[], options: CliRunOptions = {}): Promise<CliResult> {
  const startupOnly = Object.keys(options.env ?? {}).filter((k) => STARTUP_ONLY.test(k));
  if (startupOnly.length > 0) return Promise.reject(new Error(`runCli cannot set ${startupOnly.join(', ')} (read when Node starts): use spawnCli`));
  const out = capture();
  const err = capture();
  const previous = queue;
  const run = previous.then(() => runInProcess(args, options, out.stream, err.stream));
  queue = run.catch(() => undefined);
  let timer: NodeJS.Timeout | undefined;
  // The time limit counts from the run's start, as a process's does from its spawn.
  const killed = previous.then(() => new Promise<number>((resolve) => (timer = setTimeout(() => resolve(-1), options.timeout ?? DEFAULT_TIMEOUT))));
  return Promise.race([run, killed])
    .then((code) => ({ code, stdout: out.text(), stderr: err.text() }))
    .finally(() => clearTimeout(timer));
}

/** A stream that keeps what is written to it, as a pipe's reader would. */
function capture(): { stream: Writable; text: () => string } {
  const chunks: Buffer[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk);
      done();
    },
  });
  return { stream, text: () => Buffer.concat(chunks).toString('utf8') };
}

/** One run: the working folder, variables and exit code set for it, and put back when it ends. */
async function runInProcess(args: readonly string[], options: CliRunOptions, stdout: Writable, stderr: Writable): Promise<number> {
  const main = await loadMain();
  const env: NodeJS.ProcessEnv = { NO_COLOR: '1', ...options.env };
  const saved = new Map(Object.keys(env).map((k) => [k, process.env[k]]));
  const cwd = process.cwd();
  const exitCode = process.exitCode;
  for (const [k, v] of Object.entries(env)) setVariable(k, v);
  process.chdir(options.cwd ?? ROOT);
  try {
    return await main(args, { stdout, stderr });
  } finally {
    process.chdir(cwd);
    for (const [k, v] of saved) setVariable(k, v);
    process.exitCode = exitCode;
  }
}

/** Sets (or, for `undefined`, removes) one environment variable. */
function setVariable(name: string, value: string | undefined): void {
  if (value === undefined) delete process.env[name];
  else process.env[name] = value;
}

/** Parses stdout as exactly one JSON document. */
export function jsonOf(result: CliResult): Record<string, unknown> {
  return JSON.parse(result.stdout) as Record<string, unknown>;
}
