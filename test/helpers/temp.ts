import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

/** The repository root. */
export const ROOT = resolve(import.meta.dirname, '../..');
/** Golden fixtures of the spec (copied into the repository: tests read nothing outside it). */
export const GOLDEN = join(ROOT, 'fixtures/golden');
/** Copies of the user's seed documents that tests check against. */
export const SEEDS = join(ROOT, 'fixtures/seeds');

const dirs: string[] = [];

/** A fresh temporary folder, removed after the current test (by {@link removeTempDirs}). */
export function tempDir(prefix = 'octx-test-'): string {
  const d = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(d);
  return d;
}

/**
 * Removes the folders {@link tempDir} made. test/per-file-setup.ts runs it after every test of
 * every file: a hook registered here, when the module is first imported, would serve only the
 * first file of a worker that shares its modules between files (the quick lane).
 */
export function removeTempDirs(): void {
  while (dirs.length > 0) rmSync(dirs.pop()!, { recursive: true, force: true });
}
