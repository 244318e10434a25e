import { mkdtempSync, rmSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const live = new Set<string>();
let hooked = false;

/**
 * Creates a private folder for a builder's spill files. Folders still alive when the process
 * exits (a builder that was never exported or disposed) are removed then, so abandoned builders
 * do not leak disk.
 */
export function createSpillDir(parent?: string): string {
  const dir = mkdtempSync(join(parent ?? tmpdir(), 'octx-export-'));
  live.add(dir);
  if (!hooked) {
    hooked = true;
    process.once('exit', () => {
      for (const d of live) rmSync(d, { recursive: true, force: true });
    });
  }
  return dir;
}

/** Removes a spill folder created by {@link createSpillDir}. */
export async function removeSpillDir(dir: string): Promise<void> {
  live.delete(dir);
  await rm(dir, { recursive: true, force: true });
}

/**
 * Removes every spill folder still alive, synchronously: for a signal handler that is about to
 * re-raise the signal (the CLI's; a library installs none).
 */
export function removeSpillDirsSync(): void {
  for (const d of live) rmSync(d, { recursive: true, force: true });
  live.clear();
}
