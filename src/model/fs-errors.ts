import type { OctxCode } from './codes.js';
import { OctxError } from './errors.js';

/**
 * errno codes that say the path itself names nothing usable (a caller's mistake), as opposed to
 * a failing or refusing file system (read-only, full, permissions).
 */
const PATH_ERRNOS: ReadonlySet<string> = new Set(['ENOENT', 'ENOTDIR', 'ENAMETOOLONG', 'EEXIST', 'EISDIR', 'ELOOP', 'EINVAL', 'EFTYPE']);

/** The longest file or folder name (one path component), in bytes, common file systems accept. */
export const NAME_MAX_BYTES = 255;
/** The longest path, in bytes, Linux accepts (PATH_MAX, the terminating NUL included). */
export const PATH_MAX_BYTES = 4096;

/**
 * Why `path` is too long, naming the component and the limit (for ENAMETOOLONG, whose own message
 * names neither); undefined when no component and not the whole path is over its limit.
 */
export function nameTooLong(path: string): string | undefined {
  const long = path.split(/[\\/]/).find((c) => Buffer.byteLength(c) > NAME_MAX_BYTES);
  if (long !== undefined) {
    const shown = long.length > 40 ? `${long.slice(0, 40)}…` : long;
    return `the name "${shown}" in the path is ${Buffer.byteLength(long)} bytes long, above the ${NAME_MAX_BYTES} bytes a file or folder name may have (ENAMETOOLONG)`;
  }
  const bytes = Buffer.byteLength(path);
  if (bytes >= PATH_MAX_BYTES) return `the path is ${bytes} bytes long, above the ${PATH_MAX_BYTES - 1} bytes a path may have (PATH_MAX, ENAMETOOLONG)`;
  return undefined;
}

/**
 * A short reason for a failed file operation on `path`: an over-long name explained (which
 * component, which limit), a refused special file (`EFTYPE`) by its message, else the errno.
 */
export function fsReason(e: unknown, path: string): string {
  const err = e as NodeJS.ErrnoException | undefined;
  if (err?.code === 'ENAMETOOLONG') return nameTooLong(err.path ?? path) ?? nameTooLong(path) ?? 'ENAMETOOLONG: the name is too long';
  if (err?.code === 'EFTYPE') return err.message;
  return err?.code ?? (e instanceof Error ? e.message : String(e));
}

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
  const tooLong = errno === 'ENAMETOOLONG' ? (nameTooLong((e as NodeJS.ErrnoException).path ?? ctx.path) ?? nameTooLong(ctx.path)) : undefined;
  const detail = tooLong ?? (errno !== undefined && !reason.startsWith(errno) && errno !== 'EFTYPE' ? `${errno}: ${reason}` : reason);
  const message = `cannot ${ctx.action} ${ctx.path}${ctx.field === undefined ? '' : ` (option ${ctx.field})`}: ${detail}`;
  const err = OctxError.of({ code, path: ctx.path, ...(ctx.field === undefined ? {} : { field: ctx.field }), message });
  return new OctxError(err.code, err.message, { issues: err.issues, cause: e });
}
