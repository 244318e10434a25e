/**
 * Folders an operation creates for its output, remembered so a failed operation can remove
 * exactly those again (the export's output folders, the producer state's folder).
 */
import { mkdir, rmdir, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { OctxError } from '../model/errors.js';

/**
 * Creates the missing folders of `dir`; returns the ones it created, outermost first.
 * @param failure turns the mkdir error into the caller's typed error
 */
export async function createMissingFolders(dir: string, failure: (cause: unknown) => OctxError): Promise<string[]> {
  const missing: string[] = [];
  for (let d = dir; ; d = dirname(d)) {
    try {
      await stat(d);
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT' || dirname(d) === d) break;
      missing.unshift(d);
    }
  }
  try {
    await mkdir(dir, { recursive: true });
  } catch (e) {
    throw failure(e);
  }
  return missing;
}

/**
 * Removes `created` (as returned by {@link createMissingFolders}) innermost first, stopping at
 * the first that cannot go: rmdir refuses a folder something else has put files into meanwhile.
 * Best effort, never throws.
 */
export async function removeCreatedFolders(created: readonly string[]): Promise<void> {
  for (const dir of [...created].reverse()) {
    try {
      await rmdir(dir);
    } catch {
      break;
    }
  }
}
