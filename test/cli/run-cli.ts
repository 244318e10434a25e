/**
 * Runs the real CLI as a child process, exactly as a user would (from the repository root, with
 * tsx compiling the TypeScript sources): `node --import tsx src/cli/main.ts …`.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT } from '../helpers/temp.js';

/** What a CLI run produced. */
export interface CliResult {
  /** Exit code (-1 when the process was killed). */
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** The CLI entry point. */
export const CLI = join(ROOT, 'src/cli/main.ts');

/** Spawns `node --import tsx src/cli/main.ts <args>` from the repository root (stdin closed, no TTY). */
export function runCli(args: readonly string[], options: { readonly env?: NodeJS.ProcessEnv; readonly timeout?: number; readonly cwd?: string } = {}): Promise<CliResult> {
  return new Promise((resolve) => {
    // From another folder, tsx is named by its file (a bare `tsx` resolves from the working folder).
    const tsx = options.cwd === undefined ? 'tsx' : pathToFileURL(join(ROOT, 'node_modules/tsx/dist/loader.mjs')).href;
    const child = execFile(
      process.execPath,
      ['--import', tsx, CLI, ...args],
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
