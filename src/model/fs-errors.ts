import type { OctxCode } from './codes.js';
import { OctxError } from './errors.js';

/**
 * errno codes that say the path itself names nothing usable (a caller's mistake), as opposed to
 * a failing or refusing file system (read-only, full, permissions).
 */
const PATH_ERRNOS: ReadonlySet<string> = new Set(['ENOENT', 'ENOTDIR', 'ENAMETOOLONG', 'EEXIST', 'EISDIR', 'ELOOP', 'EINVAL']);

/** Where and what, for {@link fsFailure}. */
export interface FsFailureContext {
  /** The path the operation was given. */
  readonly path: string;
  /** The option that named it (`tempDir`, `output`). */
  readonly field?: string;
  /** What was attempted, for the message: `create the spill folder`. */
  readonly action: string;
  /** Code for a path that names nothing usable (ENOENT, ENOTDIR, ENAMETOOLONG, …). */
  readonly invalidCode: OctxCode;
  /** Code for any other failure (EROFS, EACCES, EPERM, ENOSPC, …); default `OCTX_IO_ERROR`. */
  readonly ioCode?: OctxCode;
}

/**
 * A Node file-system error as a typed {@link OctxError}: the code says whether the path was wrong
 * or the file system refused; the message names the path, the option and the errno; the original
 * error is the `cause`. Raw Node errors never reach the caller.
 */
export function fsFailure(e: unknown, ctx: FsFailureContext): OctxError {
  if (e instanceof OctxError) return e;
  const errno = (e as NodeJS.ErrnoException | undefined)?.code;
  const code = errno !== undefined && PATH_ERRNOS.has(errno) ? ctx.invalidCode : (ctx.ioCode ?? 'OCTX_IO_ERROR');
  const reason = e instanceof Error ? e.message : String(e);
  const detail = errno !== undefined && !reason.startsWith(errno) ? `${errno}: ${reason}` : reason;
  const message = `cannot ${ctx.action} ${ctx.path}${ctx.field === undefined ? '' : ` (option ${ctx.field})`}: ${detail}`;
  const err = OctxError.of({ code, path: ctx.path, ...(ctx.field === undefined ? {} : { field: ctx.field }), message });
  return new OctxError(err.code, err.message, { issues: err.issues, cause: e });
}
