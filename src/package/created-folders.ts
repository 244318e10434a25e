/**
 * Folders an operation creates for its output, remembered so a failed operation can remove
 * exactly those again (the export's output folders, the producer state's folder).
 */
import { mkdir, rmdir, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { OctxError } from '../model/errors.js';

/**
 * Creates the missing folders of `dir`, one `mkdir` per missing folder, outermost first; returns
 * the ones it created. Not `mkdir({ recursive: true })`: on a pseudo-file system that refuses new
 * folders with ENOENT (`/proc/self/x`), Node's recursive mkdir retries for ever; here each folder
 * is tried once, so the call always ends, with the errno of the folder that could not be made.
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
  const created: string[] = [];
  // Nothing missing, or a parent that is not a folder: one mkdir of `dir` itself gives the errno.
  for (const d of missing.length > 0 ? missing : [dir]) {
    try {
      await mkdir(d);
      created.push(d);
    } catch (e) {
      // Made by someone else meanwhile: fine, as long as it is a folder (it is not ours to remove).
      const isDir =
        (e as NodeJS.ErrnoException).code === 'EEXIST' &&
        (await stat(d).then(
          (s) => s.isDirectory(),
          () => false,
        ));
      if (!isDir) {
        await removeCreatedFolders(created);
        throw failure(explained(e, d));
      }
    }
  }
  return created;
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

/** ENOENT from mkdir whose parent exists says the file system refuses folders there (`/proc`). */
function explained(e: unknown, dir: string): unknown {
  const err = e as NodeJS.ErrnoException;
  if (err.code !== 'ENOENT') return e;
  return Object.assign(new Error(`${err.message} (${dirname(dir)} exists, but its file system refuses new folders in it)`), { code: err.code, cause: e });
}
