import { createHash, randomBytes } from 'node:crypto';
import { constants, rmSync } from 'node:fs';
import { link, lstat, open, readdir, rename, rm, stat, unlink } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { OctxError } from '../model/errors.js';
import { fsFailure } from '../model/fs-errors.js';
import { createMissingFolders, removeCreatedFolders } from './created-folders.js';
import { isPidDead } from './process-owner.js';

/**
 * A temporary output is swept only when its PID is dead here and it has not been written for this
 * long: the name carries no host, and the folder may be shared with other machines.
 */
export const STALE_TEMP_OUTPUT_MS = 60 * 60 * 1000;

/**
 * An output file published atomically: bytes go to a temporary file in the destination folder
 * (same file system, so the final step is a rename), which is fsynced and then moved into place.
 * Until {@link AtomicOutput.commit} nothing exists at the output path (publishing without `overwrite` uses a hard link, which cannot replace a file that appeared meanwhile); {@link AtomicOutput.discard}
 * removes the temporary file.
 */
export class AtomicOutput {
  /** Absolute final path. */
  readonly path: string;
  /** Absolute temporary path (same folder, hidden name). */
  readonly tempPath: string;
  readonly #overwrite: boolean;
  /** Folders `prepare` created for the output, outermost first: a failed export removes them. */
  readonly #createdDirs: readonly string[];
  #settled = false;
  /** The background flush {@link AtomicOutput.startFlush} started; never rejects, holds its failure. */
  #flushing: Promise<{ readonly error: unknown } | undefined> | undefined;

  private constructor(path: string, tempPath: string, overwrite: boolean, createdDirs: readonly string[]) {
    this.path = path;
    this.tempPath = tempPath;
    this.#overwrite = overwrite;
    this.#createdDirs = createdDirs;
    liveTemps.add(tempPath);
  }

  /**
   * Checks the destination and reserves a temporary name beside it. Missing parent folders are
   * created; {@link AtomicOutput.discard} removes the ones it created (when still empty), so a
   * refused export leaves nothing behind.
   * @throws OctxError `OCTX_OUTPUT_EXISTS` when the output exists (a dangling symbolic link
   *   included) and `overwrite` is false; `OCTX_OUTPUT_INVALID` when the output is a folder or
   *   otherwise not a regular file, its name is too long, or a parent is not a folder;
   *   `OCTX_IO_ERROR` when a parent folder cannot be created (read-only file system, permissions).
   */
  static async prepare(output: string, overwrite: boolean): Promise<AtomicOutput> {
    if (typeof output !== 'string' || output.trim() === '') {
      throw OctxError.of({ code: 'OCTX_OUTPUT_INVALID', field: 'output', message: 'export needs an output file path' });
    }
    const path = resolve(output);
    if (Buffer.byteLength(basename(path)) > MAX_NAME_BYTES) {
      throw OctxError.of({
        code: 'OCTX_OUTPUT_INVALID',
        path,
        field: 'output',
        message: `the output file name is ${Buffer.byteLength(basename(path))} bytes long, above the ${MAX_NAME_BYTES} bytes file systems allow (ENAMETOOLONG)`,
      });
    }
    await assertWritableTarget(path, overwrite);
    const folder = dirname(path);
    const createdDirs = await createMissingFolders(folder, (e) =>
      fsFailure(e, { path: folder, field: 'output', action: 'create the output folder', invalidCode: 'OCTX_OUTPUT_INVALID' }),
    );
    const tempPath = join(dirname(path), `${tempPrefix(path)}${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
    await sweepStaleTempOutputs(path);
    return new AtomicOutput(path, tempPath, overwrite, createdDirs);
  }

  /**
   * Starts flushing the written temporary file to disk in the background (an fsync on its own
   * descriptor), so that the writeback overlaps what comes before {@link AtomicOutput.commit}
   * (the archive's verification) and the commit's own fsync finds little left to write. Changes
   * no guarantee: `commit` still fsyncs before publishing, and fails with this flush's error if
   * it had one (Linux reports a writeback error to one fsync only: a later fsync on a new
   * descriptor would not see it). `commit` and `discard` wait for the flush, so no descriptor
   * outlives them. Calling it again does nothing.
   */
  startFlush(): void {
    if (this.#settled || this.#flushing) return;
    this.#flushing = fsyncFile(this.tempPath).then(
      () => undefined,
      (error: unknown) => ({ error }),
    );
  }

  /**
   * fsyncs the temporary file and publishes it. Without `overwrite` the publish is a hard link,
   * which fails instead of replacing a file that appeared meanwhile; with it, a rename.
   */
  async commit(): Promise<void> {
    if (this.#settled) throw new Error('AtomicOutput already settled');
    const flushed = await this.#flushing;
    try {
      if (flushed) throw flushed.error;
      await fsyncFile(this.tempPath);
    } catch (e) {
      await this.discard();
      throw new OctxError('OCTX_IO_ERROR', `could not write ${this.path} to disk: ${(e as Error)?.message ?? String(e)}`, { cause: e });
    }
    try {
      if (this.#overwrite) {
        await assertWritableTarget(this.path, true);
        await rename(this.tempPath, this.path);
      } else {
        await publishWithoutClobbering(this.tempPath, this.path);
      }
    } catch (e) {
      await this.discard();
      if ((e as NodeJS.ErrnoException).code === 'EEXIST') {
        throw OctxError.of({
          code: 'OCTX_OUTPUT_EXISTS',
          path: this.path,
          message: `${this.path} appeared while the package was being written; pass overwrite: true to replace it`,
        });
      }
      throw new OctxError('OCTX_IO_ERROR', `could not publish ${this.path}: ${(e as Error).message}`, { cause: e });
    }
    this.#settled = true;
    liveTemps.delete(this.tempPath);
    await syncDirectory(dirname(this.path));
  }

  /**
   * Removes the temporary file, and the parent folders `prepare` created when they are empty;
   * safe to call more than once. Best effort: a failure to clean up never hides the error that
   * made the caller discard.
   */
  async discard(): Promise<void> {
    const first = !this.#settled;
    this.#settled = true;
    await this.#flushing;
    await rm(this.tempPath, { force: true }).catch(() => undefined);
    liveTemps.delete(this.tempPath);
    if (!first) return;
    await removeCreatedFolders(this.#createdDirs);
  }
}

/** Opens `path` read-only, fsyncs it and closes it. */
async function fsyncFile(path: string): Promise<void> {
  const fh = await open(path, 'r');
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}

/** The longest file name (in bytes) common file systems accept. */
const MAX_NAME_BYTES = 255;
/** Output names longer than this get a shortened temporary name (the suffix needs ~30 bytes). */
const TEMP_NAME_BYTES = 200;

/**
 * `.<name>.` for the temporary outputs of `path`. A long name is cut and given a digest of the
 * whole name, so the temporary name stays under {@link MAX_NAME_BYTES} and still names one output.
 */
function tempPrefix(path: string): string {
  const name = basename(path);
  if (Buffer.byteLength(name) <= TEMP_NAME_BYTES) return `.${name}.`;
  let cut = '';
  for (const ch of name) {
    if (Buffer.byteLength(cut + ch) > TEMP_NAME_BYTES - 10) break;
    cut += ch;
  }
  return `.${cut}~${createHash('sha256').update(name).digest('hex').slice(0, 8)}.`;
}

/** Temporary outputs reserved and neither published nor discarded yet. */
const liveTemps = new Set<string>();

/**
 * Removes every temporary output not yet published or discarded, synchronously: for a signal
 * handler that is about to re-raise the signal (the CLI's; a library installs none).
 */
export function removeTempOutputsSync(): void {
  for (const t of liveTemps) rmSync(t, { force: true });
  liveTemps.clear();
}

/**
 * Publishes `temp` at `path` only if nothing is there. A hard link is atomic and fails when the
 * target appeared meanwhile; on file systems without hard links (exFAT, some network mounts) it
 * falls back to check-then-rename, which has a tiny race window.
 */
async function publishWithoutClobbering(temp: string, path: string): Promise<void> {
  try {
    await link(temp, path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP' && code !== 'ENOSYS' && code !== 'EXDEV') throw e;
    await assertWritableTarget(path, false).catch(() => {
      throw Object.assign(new Error('target exists'), { code: 'EEXIST' });
    });
    await rename(temp, path);
    return;
  }
  // Published; a leftover temporary name is only untidy, never an error.
  await unlink(temp).catch(() => undefined);
}

async function assertWritableTarget(path: string, overwrite: boolean): Promise<void> {
  let info;
  try {
    info = await stat(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') {
      throw fsFailure(e, { path, field: 'output', action: 'use the output', invalidCode: 'OCTX_OUTPUT_INVALID', ioCode: 'OCTX_OUTPUT_INVALID' });
    }
    // Nothing to follow: a dangling symbolic link still occupies the name (publishing without
    // overwrite would fail only after the whole package was written).
    const link = await lstat(path).catch(() => undefined);
    if (link?.isSymbolicLink() && !overwrite) {
      throw OctxError.of({ code: 'OCTX_OUTPUT_EXISTS', path, field: 'output', message: `${path} is a symbolic link to a missing file; pass overwrite: true to replace the link` });
    }
    return;
  }
  if (!info.isFile()) throw OctxError.of({ code: 'OCTX_OUTPUT_INVALID', path, message: `${path} exists and is not a regular file` });
  if (!overwrite) throw OctxError.of({ code: 'OCTX_OUTPUT_EXISTS', path, message: `${path} already exists; pass overwrite: true to replace it` });
}

async function syncDirectory(dir: string): Promise<void> {
  // Makes the rename itself durable. Some file systems refuse to fsync a directory: ignore that.
  try {
    const fh = await open(dir, constants.O_RDONLY);
    try {
      await fh.sync();
    } finally {
      await fh.close();
    }
  } catch {
    /* best effort */
  }
}

/**
 * Removes the temporary outputs of `path` left by killed runs (`.<name>.<pid>.<12 hex>.tmp`
 * beside it) whose PID is dead on this host and that were last written over
 * {@link STALE_TEMP_OUTPUT_MS} ago; returns their paths. Best effort.
 */
export async function sweepStaleTempOutputs(path: string, now = Date.now()): Promise<string[]> {
  const dir = dirname(path);
  const prefix = tempPrefix(path);
  const swept: string[] = [];
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return swept;
  }
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    const m = /^(\d+)\.[0-9a-f]{12}\.tmp$/.exec(name.slice(prefix.length));
    if (!m) continue;
    const temp = join(dir, name);
    if (liveTemps.has(temp) || !isPidDead(Number(m[1]))) continue;
    try {
      if (now - (await stat(temp)).mtimeMs < STALE_TEMP_OUTPUT_MS) continue;
      await rm(temp, { force: true });
      swept.push(temp);
    } catch {
      // gone already, or not ours to remove
    }
  }
  return swept;
}
