import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fsFailure } from '../model/fs-errors.js';
import { currentOwner, isOwnerGone, parseOwner } from './process-owner.js';
import { readRegularFileSync } from './regular-file.js';

/** Prefix of every spill folder. */
const PREFIX = 'octx-export-';
/** Prefix of the CLI's staging folders of a package for stdout (`-o -`), kept and swept the same way. */
export const STDOUT_STAGING_PREFIX = 'octx-stdout-';
/** The owner record inside each spill folder (see {@link sweepStaleSpillDirs}). */
export const SPILL_OWNER_FILE = 'octx-export-owner.json';

const live = new Set<string>();
let hooked = false;

/**
 * Creates a private folder (mode 0700) for a builder's spill files, with an owner record in it.
 * Folders still alive when the process exits (a builder that was never exported or disposed) are
 * removed then, so abandoned builders do not leak disk; folders of runs that were killed (SIGKILL
 * cannot be caught) are swept by the next run in the same parent folder.
 * @param prefix the folder name's prefix: also the CLI's stdout staging folders
 *   ({@link STDOUT_STAGING_PREFIX}), so a signal removes them and later runs sweep them too
 * @throws OctxError `OCTX_OPTIONS_INVALID` (field `tempDir`) when `parent` is missing or not a
 *   folder; `OCTX_IO_ERROR` when the file system refuses (read-only, permissions, full)
 */
export function createSpillDir(parent?: string, prefix: string = PREFIX): string {
  const base = parent ?? tmpdir();
  let dir: string;
  try {
    dir = mkdtempSync(join(base, prefix));
  } catch (e) {
    // The folder is the caller's `tempDir` (or the OS temp folder): name it, and the errno.
    throw fsFailure(e, { path: base, field: 'tempDir', action: 'create a spill folder in', invalidCode: 'OCTX_OPTIONS_INVALID' });
  }
  live.add(dir);
  try {
    writeFileSync(join(dir, SPILL_OWNER_FILE), `${JSON.stringify(currentOwner())}\n`, { mode: 0o600 });
  } catch (e) {
    live.delete(dir);
    rmSync(dir, { recursive: true, force: true });
    throw fsFailure(e, { path: dir, field: 'tempDir', action: 'write the owner record of', invalidCode: 'OCTX_IO_ERROR' });
  }
  sweepStaleSpillDirs(base, prefix);
  if (!hooked) {
    hooked = true;
    process.once('exit', () => {
      for (const d of live) rmSync(d, { recursive: true, force: true });
    });
  }
  return dir;
}

/**
 * Whether `path` is a file in one of this process's live stdout staging folders (`-o -`): a
 * package there is removed once delivered, so no record should point at it.
 */
export function isStdoutStaging(path: string): boolean {
  const dir = dirname(path);
  return live.has(dir) && basename(dir).startsWith(STDOUT_STAGING_PREFIX);
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

/**
 * Removes the spill folders (named `prefix`…) in `parent` whose owner is certainly gone (same host, dead PID), and
 * returns their paths. Folders without a readable owner record (another tool's, an older
 * version's, or one being created right now) are left alone. Best effort: a folder that cannot be
 * read or removed is skipped.
 */
export function sweepStaleSpillDirs(parent: string, prefix: string = PREFIX): string[] {
  const swept: string[] = [];
  let names: string[];
  try {
    names = readdirSync(parent);
  } catch {
    return swept;
  }
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    const dir = join(parent, name);
    if (live.has(dir)) continue;
    try {
      // Never a blocking read: a FIFO planted as the owner record is skipped, not waited on.
      const owner = parseOwner(readRegularFileSync(join(dir, SPILL_OWNER_FILE)));
      if (owner && isOwnerGone(owner)) {
        rmSync(dir, { recursive: true, force: true });
        swept.push(dir);
      }
    } catch {
      // not ours to judge
    }
  }
  return swept;
}
