import { randomBytes } from 'node:crypto';
import { constants, rmSync } from 'node:fs';
import { link, mkdir, open, rename, rm, stat, unlink } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { OctxError } from '../model/errors.js';

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
  #settled = false;

  private constructor(path: string, tempPath: string, overwrite: boolean) {
    this.path = path;
    this.tempPath = tempPath;
    this.#overwrite = overwrite;
    liveTemps.add(tempPath);
  }

  /**
   * Checks the destination and reserves a temporary name beside it. Parent folders are created.
   * @throws OctxError `OCTX_OUTPUT_EXISTS` when the output exists and `overwrite` is false;
   *   `OCTX_OUTPUT_INVALID` when the output is a folder or otherwise not a regular file.
   */
  static async prepare(output: string, overwrite: boolean): Promise<AtomicOutput> {
    if (typeof output !== 'string' || output.trim() === '') {
      throw OctxError.of({ code: 'OCTX_OUTPUT_INVALID', field: 'output', message: 'export needs an output file path' });
    }
    const path = resolve(output);
    await assertWritableTarget(path, overwrite);
    await mkdir(dirname(path), { recursive: true });
    const tempPath = join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
    return new AtomicOutput(path, tempPath, overwrite);
  }

  /**
   * fsyncs the temporary file and publishes it. Without `overwrite` the publish is a hard link,
   * which fails instead of replacing a file that appeared meanwhile; with it, a rename.
   */
  async commit(): Promise<void> {
    if (this.#settled) throw new Error('AtomicOutput already settled');
    const fh = await open(this.tempPath, 'r');
    try {
      await fh.sync();
    } finally {
      await fh.close();
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

  /** Removes the temporary file; safe to call more than once. */
  async discard(): Promise<void> {
    this.#settled = true;
    await rm(this.tempPath, { force: true });
    liveTemps.delete(this.tempPath);
  }
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
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw new OctxError('OCTX_OUTPUT_INVALID', `cannot use output ${path}: ${(e as Error).message}`, { cause: e });
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
