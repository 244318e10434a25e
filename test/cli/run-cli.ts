/**
 * Runs the real CLI as a child process, as a user would: `node <cli> <args>` from the repository
 * root, stdin closed, no TTY. The CLI is this run's sources compiled once by the shared resource
 * `compiled-sources` (test/helpers/compiled-sources.ts), not recompiled by tsx in every process.
 */
import { execFile } from 'node:child_process';
import { ROOT } from '../helpers/temp.js';
import { sharedResource } from '../helpers/shared-resources.js';

/** What a CLI run produced. */
export interface CliResult {
  /** Exit code (-1 when the process was killed). */
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * The arguments of `node` that run the CLI with `args`: the compiled `src/cli/main.ts`, with
 * source maps on so that a stack trace names the TypeScript lines (as under tsx).
 */
export async function cliArgv(args: readonly string[]): Promise<string[]> {
  const { cli } = await sharedResource('compiled-sources');
  return ['--enable-source-maps', cli, ...args];
}

/** Spawns the CLI with `args` from the repository root, or from `cwd` (stdin closed, no TTY). */
export async function runCli(args: readonly string[], options: { readonly env?: NodeJS.ProcessEnv; readonly timeout?: number; readonly cwd?: string } = {}): Promise<CliResult> {
  const argv = await cliArgv(args);
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      argv,
      { cwd: options.cwd ?? ROOT, env: { ...process.env, NO_COLOR: '1', ...options.env }, maxBuffer: 64 * 1024 * 1024, timeout: options.timeout ?? 55_000, encoding: 'utf8' },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
    child.stdin?.end();
  });
}

/** Parses stdout as exactly one JSON document. */
export function jsonOf(result: CliResult): Record<string, unknown> {
  return JSON.parse(result.stdout) as Record<string, unknown>;
}
