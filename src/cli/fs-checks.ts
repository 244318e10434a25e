/** Up-front path checks, so a wrong path is a usage error that names the path (exit 2). */
import { stat } from 'node:fs/promises';
import { OctxError } from '../model/errors.js';
import { withHint } from './errors.js';
import { fileKind } from '../package/regular-file.js';

/** The hint for each kind of input path, so a missing folder is not called a missing package. */
const PATH_HINTS: Readonly<Record<string, string>> = {
  'working folder': 'check the path: it must be an existing working folder (knowledge/, and optionally data/ and relations/; docs/cli.md)',
  'source root': "check the path: it must be the existing folder the ingest candidates' file paths are relative to",
  database: 'check the path: it must be an existing SQLite file, the zleap-sag engine database (<SAG_DATA_DIR>/sag.db)',
  package: 'check the path: it must be an existing .octx file or package folder',
  'source package': 'check the path: it must be an existing .octx file or package folder',
};

function open(what: string, path: string, message: string): OctxError {
  const e = OctxError.of({ code: 'OCTX_OPEN_ERROR', path, message });
  const hint = PATH_HINTS[what];
  return hint === undefined ? e : withHint(e, hint);
}

async function kind(path: string): Promise<'file' | 'dir' | 'other' | undefined> {
  try {
    const s = await stat(path);
    return s.isFile() ? 'file' : s.isDirectory() ? 'dir' : 'other';
  } catch {
    return undefined;
  }
}

/** What a path that is neither a file nor a folder is, for the message (a FIFO exists: it is not "missing"). */
async function otherKind(path: string): Promise<string | undefined> {
  const s = await stat(path).catch(() => undefined);
  return s && !s.isFile() && !s.isDirectory() ? fileKind(s) : undefined;
}

/** Fails with `OCTX_OPEN_ERROR` when `dir` is not a folder. */
export async function requireFolder(dir: string, what: string): Promise<void> {
  if ((await kind(dir)) !== 'dir') throw open(what, dir, `${what} ${dir} is not a folder`);
}

/** Fails with `OCTX_OPEN_ERROR` when `path` is not a file. */
export async function requireFile(path: string, what: string): Promise<void> {
  const k = await kind(path);
  if (k === 'other') throw open(what, path, `${what} ${path} is ${(await otherKind(path)) ?? 'not a regular file'}, not a file`);
  if (k !== 'file') throw open(what, path, `${what} ${path} does not exist or is not a file`);
}

/** Fails with `OCTX_OPEN_ERROR` when `path` is neither a file nor a folder. */
export async function requirePackagePath(path: string, what: string): Promise<void> {
  const k = await kind(path);
  if (k === 'other') throw open(what, path, `${what} ${path} is ${(await otherKind(path)) ?? 'not a regular file'}, not a file or folder`);
  if (k !== 'file' && k !== 'dir') throw open(what, path, `${what} ${path} does not exist`);
}
