import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Gives the whole test run one private temporary root (TMPDIR, inherited by the forked workers
 * and by the CLI processes tests spawn) and removes it at the end. Builders that a test abandons
 * without `dispose()` remove their spill folder on process exit, but vitest ends its workers
 * without an 'exit' event, so without this each run left dozens of folders in /tmp.
 */
export default function setup(): () => void {
  const root = mkdtempSync(join(tmpdir(), 'octx-vitest-'));
  process.env.TMPDIR = root;
  return () => rmSync(root, { recursive: true, force: true });
}
