/**
 * Runs the CLI in this process (`main` with captured streams): its exit code and what it wrote.
 * Faster than spawning it (test/cli/run-cli.ts) where the process itself is not under test.
 */
import { main } from '../../src/cli/cli.js';

/**
 * Runs `octx-export <args>` in-process.
 * @param cwd the working folder for the run (restored after): for commands whose paths are relative
 */
export async function cliInProcess(args: string[], cwd?: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const io = {
    stdout: { write: (c: string | Uint8Array) => (out.push(String(c)), true) },
    stderr: { write: (c: string | Uint8Array) => (err.push(String(c)), true) },
  } as never;
  const before = process.cwd();
  if (cwd !== undefined) process.chdir(cwd);
  try {
    const code = await main(args, io);
    return { code, stdout: out.join(''), stderr: err.join('') };
  } finally {
    if (cwd !== undefined) process.chdir(before);
  }
}
