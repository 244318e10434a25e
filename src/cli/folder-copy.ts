/**
 * Copies a set of folders into a target folder all or nothing, never through a symbolic link:
 * everything is copied into a staging folder beside the target first, and only a complete copy is
 * published, by renames. A failure at any point (a source that cannot be read, a full disk, a
 * rename refused) undoes the renames already made and removes the staging folder, so the target
 * is left as it was. The staging folder is kept like a spill folder: removed on SIGINT/SIGTERM/
 * SIGHUP and at exit, and swept by a later run when its owner was killed.
 */
import { cp, lstat, mkdir, readdir, rename } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { OctxError } from '../model/errors.js';
import { fsFailure } from '../model/fs-errors.js';
import { createMissingFolders, removeCreatedFolders } from '../package/created-folders.js';
import { createSpillDir, removeSpillDir } from '../package/spill-dir.js';

/** Prefix of the staging folders {@link copyFoldersAllOrNothing} makes beside its target. */
export const FOLDER_COPY_STAGING_PREFIX = '.octx-copy-';

/** What {@link copyFoldersAllOrNothing} copies, from where, to where. */
export interface FolderCopy {
  /** The folder holding the sources. */
  readonly from: string;
  /** The folders to copy, relative to `from` and to `into`, `/`-separated (`sag/engine-0.8`). */
  readonly names: readonly string[];
  /** The folder they go into; created (with its missing parents) when absent. */
  readonly into: string;
  /** Replace a name that is already in `into` (otherwise `OCTX_OUTPUT_EXISTS`). */
  readonly overwrite: boolean;
  /** The option that asks for replacing, for the refusal's `field` (`overwrite`). */
  readonly overwriteOption: string;
}

/** One step of the publication, and how to take it back. */
type Undo = () => Promise<unknown>;

/**
 * Copies `names` from `from` into `into`, all or nothing. Nothing under `into` (`into` itself
 * included) may be a symbolic link, on the way to a name or inside a name that is replaced: the
 * copy would write, or a replacement would move, through it to wherever it points. The folder
 * holding `into` is the caller's choice and may be reached through links.
 * @throws OctxError `OCTX_OUTPUT_EXISTS` (a name is there and `overwrite` is false: checked for
 *   every name before anything is copied), `OCTX_OUTPUT_INVALID` (a symbolic link, or a file where
 *   a folder must be, naming the path; a rename the file system refuses), `OCTX_IO_ERROR`
 *   (reading a source or writing the copy failed)
 */
export async function copyFoldersAllOrNothing(copy: FolderCopy): Promise<void> {
  await checkTargets(copy);
  const parent = dirname(copy.into);
  const created = await createMissingFolders(parent, (e) => fsFailure(e, { path: parent, action: 'create the folder', invalidCode: 'OCTX_OUTPUT_INVALID' }));
  // Staged on the target's own file system, so publishing is a rename: inside `into` when it is
  // there (it may be a mount point) and each name is published, else beside it, and `into`
  // itself is published with one rename.
  const intoExists = (await lstatOrUndefined(copy.into)) !== undefined;
  const root = intoExists ? copy.into : parent;
  const published = intoExists ? copy.names : [basename(copy.into)];
  let staging: string | undefined;
  try {
    staging = stagingFolder(root);
    for (const name of copy.names) {
      const source = join(copy.from, name);
      const staged = join(staging, 'new', intoExists ? '' : basename(copy.into), name);
      try {
        await cp(source, staged, { recursive: true, errorOnExist: true, force: false });
      } catch (e) {
        throw fsFailure(e, { path: source, action: 'copy', invalidCode: 'OCTX_IO_ERROR' });
      }
    }
    // The copy took time: a link planted meanwhile is refused before anything moves.
    await checkTargets(copy);
    await publish(staging, root, published);
  } catch (e) {
    if (staging !== undefined) await removeSpillDir(staging);
    staging = undefined;
    await removeCreatedFolders(created);
    throw e;
  }
  await removeSpillDir(staging);
}

/** A staging folder in `dir`, named for what it is, with the same typed refusal as the copy. */
function stagingFolder(dir: string): string {
  try {
    return createSpillDir(dir, FOLDER_COPY_STAGING_PREFIX);
  } catch (e) {
    const cause = e instanceof OctxError && e.cause !== undefined ? e.cause : e;
    throw fsFailure(cause, { path: dir, action: 'create a staging folder in', invalidCode: 'OCTX_OUTPUT_INVALID', ioCode: 'OCTX_IO_ERROR' });
  }
}

/**
 * Moves each staged name into `root`, an existing one aside into the staging folder first; on a
 * failure, every move made is taken back, last first, and the error is rethrown.
 */
async function publish(staging: string, root: string, names: readonly string[]): Promise<void> {
  const undo: Undo[] = [];
  try {
    for (const name of names) {
      const target = join(root, name);
      const staged = join(staging, 'new', name);
      const made = await createMissingFolders(dirname(target), (e) => fsFailure(e, { path: dirname(target), action: 'create the folder', invalidCode: 'OCTX_OUTPUT_INVALID' }));
      undo.push(() => removeCreatedFolders(made));
      if ((await lstatOrUndefined(target)) !== undefined) {
        const aside = join(staging, 'old', name);
        await mkdir(dirname(aside), { recursive: true });
        await renameTyped(target, aside);
        undo.push(() => rename(aside, target));
      }
      await renameTyped(staged, target);
      undo.push(() => rename(target, staged));
    }
  } catch (e) {
    for (const step of undo.reverse()) await step().catch(() => undefined);
    throw e;
  }
}

async function renameTyped(from: string, to: string): Promise<void> {
  try {
    await rename(from, to);
  } catch (e) {
    throw fsFailure(e, { path: to, action: 'publish', invalidCode: 'OCTX_OUTPUT_INVALID' });
  }
}

/**
 * Refuses before any copy: a symbolic link or a non-folder on the way from `into` to each name,
 * a name that is there without `overwrite`, and a symbolic link inside a name to be replaced.
 */
async function checkTargets(copy: FolderCopy): Promise<void> {
  for (const name of copy.names) {
    const parts = name.split('/');
    let path = copy.into;
    for (let i = -1; i < parts.length; i++) {
      if (i >= 0) path = join(path, parts[i]!);
      const st = await lstatOrUndefined(path);
      if (st === undefined) break;
      if (st.isSymbolicLink()) throw symlinkRefused(path);
      if (!st.isDirectory()) {
        throw OctxError.of({ code: 'OCTX_OUTPUT_INVALID', path, message: `${path} exists and is not a folder` });
      }
      if (i === parts.length - 1) {
        if (!copy.overwrite) {
          throw OctxError.of({ code: 'OCTX_OUTPUT_EXISTS', path, field: copy.overwriteOption, message: `${path} already exists` });
        }
        const link = await firstSymlinkInside(path);
        if (link !== undefined) throw symlinkRefused(link);
      }
    }
  }
}

function symlinkRefused(path: string): OctxError {
  return OctxError.of({
    code: 'OCTX_OUTPUT_INVALID',
    path,
    message: `${path} is a symbolic link: nothing is written through or replaced under a link; remove it, or choose another folder`,
  });
}

/** The first symbolic link found in the tree under `dir` (never followed), or undefined. */
async function firstSymlinkInside(dir: string): Promise<string | undefined> {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (e) {
    throw fsFailure(e, { path: dir, action: 'read the folder', invalidCode: 'OCTX_OUTPUT_INVALID', ioCode: 'OCTX_IO_ERROR' });
  }
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isSymbolicLink()) return path;
    if (entry.isDirectory()) {
      const found = await firstSymlinkInside(path);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

async function lstatOrUndefined(path: string): Promise<Awaited<ReturnType<typeof lstat>> | undefined> {
  try {
    return await lstat(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw fsFailure(e, { path, action: 'check', invalidCode: 'OCTX_OUTPUT_INVALID', ioCode: 'OCTX_IO_ERROR' });
  }
}
