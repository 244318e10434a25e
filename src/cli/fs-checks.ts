/** Up-front path checks, so a wrong path is a usage error that names the path (exit 2). */
import { stat } from 'node:fs/promises';
import { OctxError } from '../model/errors.js';

async function kind(path: string): Promise<'file' | 'dir' | 'other' | undefined> {
  try {
    const s = await stat(path);
    return s.isFile() ? 'file' : s.isDirectory() ? 'dir' : 'other';
  } catch {
    return undefined;
  }
}

/** Fails with `OCTX_OPEN_ERROR` when `dir` is not a folder. */
export async function requireFolder(dir: string, what: string): Promise<void> {
  if ((await kind(dir)) !== 'dir') throw OctxError.of({ code: 'OCTX_OPEN_ERROR', path: dir, message: `${what} ${dir} is not a folder` });
}

/** Fails with `OCTX_OPEN_ERROR` when `path` is not a file. */
export async function requireFile(path: string, what: string): Promise<void> {
  if ((await kind(path)) !== 'file') throw OctxError.of({ code: 'OCTX_OPEN_ERROR', path, message: `${what} ${path} does not exist or is not a file` });
}

/** Fails with `OCTX_OPEN_ERROR` when `path` is neither a file nor a folder. */
export async function requirePackagePath(path: string, what: string): Promise<void> {
  const k = await kind(path);
  if (k !== 'file' && k !== 'dir') throw OctxError.of({ code: 'OCTX_OPEN_ERROR', path, message: `${what} ${path} does not exist` });
}
