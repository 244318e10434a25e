/**
 * Where an exporting command writes, from `-o`: a file (whose folder must exist unless `--mkdir`,
 * which leaves creating it to the SDK: it removes the folders it created when the export fails),
 * or `-` for stdout. A package for stdout is built into a private temporary file first, verified
 * there like any export, and only then copied to stdout — so nothing reaches stdout when the
 * export or its verification fails.
 */
import { once } from 'node:events';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { OctxError } from '../model/errors.js';
import { fsReason } from '../model/fs-errors.js';
import { createSpillDir, removeSpillDir, STDOUT_STAGING_PREFIX } from '../package/spill-dir.js';
import { flag, str, usageError, type CliIo, type OptionValues, type StdoutWrites } from './args.js';
import { withHint } from './errors.js';

/** The `-o` value that means "write the package to stdout". */
export const STDOUT_OUTPUT = '-';

/** An export destination chosen from the command line. */
export interface OutputTarget {
  /** The file the SDK writes (a temporary file when streaming). */
  readonly path: string;
  /** True for `-o -`. */
  readonly toStdout: boolean;
  /** After a successful export: copies the package to stdout when streaming. */
  deliver(io: CliIo): Promise<void>;
  /** Always, at the end: removes the temporary folder of a streamed package. */
  cleanup(): Promise<void>;
}

/** What `-o -` writes for the commands that export a package. */
export const STDOUT_PACKAGE: StdoutWrites = { what: 'the package', onTerminal: 'the binary package', file: 'file.octx' };

/** True when `-o -` was given. */
export function writesToStdout(values: OptionValues): boolean {
  return str(values, 'output') === STDOUT_OUTPUT;
}

/**
 * The checks of `-o -` that need no file: refused with `--json` (both would claim stdout) and when
 * stdout is a terminal. Run by `cli.ts` before a command reads any input, and again here.
 * @param writes what the command writes there, as the messages name it
 * @throws OctxError `OCTX_USAGE_ERROR`
 */
export function assertStdoutTarget(values: OptionValues, json: boolean, io?: CliIo, writes: StdoutWrites = STDOUT_PACKAGE): void {
  if (str(values, 'output') !== STDOUT_OUTPUT) return;
  if (json) throw usageError(`-o - writes ${writes.what} to stdout, so --json cannot print there too; drop one of them`, 'output');
  // A package's binary bytes, or a page of inlined script, on a terminal are never what was
  // meant (as gzip and tar refuse it too).
  if (io?.stdout.isTTY === true) throw usageError(`-o - would write ${writes.onTerminal} to the terminal; redirect stdout (-o - > ${writes.file}, or | another command)`, 'output');
}

/**
 * Resolves `-o`. A missing parent folder is `OCTX_OUTPUT_INVALID` (exit 2) unless `--mkdir`; then
 * the export creates it (not this function: the SDK removes the folders it created when the
 * export is refused or fails, so a refused export leaves nothing behind); `-o -` with `--json` (both would claim stdout) or with stdout on a terminal
 * is a usage error. The package for stdout is staged in a private `$TMPDIR/octx-stdout-*` folder
 * kept like a spill folder: removed on SIGINT/SIGTERM/SIGHUP and at exit, and swept by a later
 * run when its owner was killed.
 * @throws OctxError `OCTX_OUTPUT_INVALID`, `OCTX_USAGE_ERROR`
 */
export async function prepareOutputTarget(values: OptionValues, json: boolean, io?: CliIo): Promise<OutputTarget> {
  const output = str(values, 'output')!;
  if (output === STDOUT_OUTPUT) {
    assertStdoutTarget(values, json, io);
    const dir = createSpillDir(undefined, STDOUT_STAGING_PREFIX);
    const path = join(dir, 'package.octx');
    return {
      path,
      toStdout: true,
      async deliver(io) {
        const out = io.stdout;
        // A reader that closes early (`| head -c 100`) makes writes fail with EPIPE, as an 'error'
        // event: remember it (the listener stays, so a late event cannot crash the process) and
        // stop; errors.ts ends such a run quietly.
        let failed: Error | undefined;
        if (typeof (out as Partial<NodeJS.WriteStream>).on === 'function') out.on('error', (e: Error) => (failed ??= e));
        try {
          for await (const chunk of createReadStream(path)) {
            if (failed) throw failed;
            if (!out.write(chunk as Buffer)) await once(out, 'drain');
          }
        } catch (e) {
          throw stdoutFailure(e);
        }
        if (failed) throw stdoutFailure(failed);
      },
      cleanup: () => removeSpillDir(dir),
    };
  }
  const path = resolve(output);
  const parent = dirname(path);
  let isDir = false;
  try {
    isDir = (await stat(parent)).isDirectory();
  } catch (e) {
    // Only a missing folder is "does not exist": an over-long name or a file in the way is said as such.
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') {
      throw OctxError.of({ code: 'OCTX_OUTPUT_INVALID', path: output, field: 'output', message: `cannot use the folder ${parent} of -o: ${fsReason(e, parent)}` });
    }
  }
  if (!isDir && !flag(values, 'mkdir')) {
    throw OctxError.of({ code: 'OCTX_OUTPUT_INVALID', path: output, field: 'output', message: `the folder ${parent} of -o does not exist; create it, or add --mkdir` });
  }
  return { path, toStdout: false, deliver: async () => undefined, cleanup: async () => undefined };
}

/** What stdout refusing the package's bytes says, as errno → words (EPIPE stays raw: a closed reader ends the run quietly). */
const STDOUT_ERRNOS: Readonly<Record<string, string>> = {
  ENOSPC: 'the device stdout is redirected to is full (ENOSPC)',
  EDQUOT: 'the disk quota of the file stdout is redirected to is exhausted (EDQUOT)',
  EFBIG: 'the file stdout is redirected to cannot grow that large (EFBIG)',
  EIO: 'the device stdout is redirected to failed (EIO)',
  EBADF: 'stdout is closed (EBADF)',
};

/** A failed write of the package to stdout as `OCTX_IO_ERROR`, with a hint about stdout, not a path. */
function stdoutFailure(e: unknown): unknown {
  const code = (e as NodeJS.ErrnoException | undefined)?.code;
  if (code === 'EPIPE' || e instanceof OctxError) return e;
  const why = (code !== undefined ? STDOUT_ERRNOS[code] : undefined) ?? `${code ?? 'error'}: ${(e as Error).message}`;
  const err = new OctxError('OCTX_IO_ERROR', `could not write the package to stdout: ${why}; the package was complete and verified, only its delivery failed`, { cause: e });
  return withHint(err, 'stdout must take the whole package: redirect it where there is room (-o - > file.octx), or write the file with -o <file.octx>');
}

/**
 * One write of a package into `target`: `write` gets the path the SDK writes to; when streaming,
 * the verified package is then copied to stdout and the result's `output` becomes `-`. Progress
 * ends before anything reaches stdout, and the target's staging folder is removed whatever
 * happens (the package stays only where `-o` named a file).
 */
export async function writeThroughTarget<R extends { readonly output: string }>(
  target: OutputTarget,
  io: CliIo,
  progress: { done(): void },
  write: (path: string) => Promise<R>,
): Promise<R> {
  try {
    const result = await write(target.path);
    progress.done();
    if (!target.toStdout) return result;
    await target.deliver(io);
    return { ...result, output: STDOUT_OUTPUT };
  } finally {
    progress.done();
    await target.cleanup();
  }
}
