import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach } from 'vitest';

/** Absolute path of the shared spec folder (a sibling of the repository, in CI too). */
export const SHARED = resolve(import.meta.dirname, '../../../shared');
/** Golden fixtures of the spec. */
export const GOLDEN = join(SHARED, 'spec/golden');
/** The repository root. */
export const ROOT = resolve(import.meta.dirname, '../..');

const dirs: string[] = [];

/** A fresh temporary folder, removed after the current test. */
export function tempDir(prefix = 'octx-test-'): string {
  const d = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(d);
  return d;
}

afterEach(() => {
  while (dirs.length > 0) rmSync(dirs.pop()!, { recursive: true, force: true });
});
