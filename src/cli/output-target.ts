/**
 * Where an exporting command writes, from `-o`: a file (whose folder must exist unless `--mkdir`,
 * which leaves creating it to the SDK: it removes the folders it created when the export fails),
 * or `-` for stdout. A package for stdout is built into a private temporary file first, verified
 * there like any export, and only then copied to stdout — so nothing reaches stdout when the
 * export or its verification fails.
 */
import { once } from 'node:events';
import { createReadStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { OctxError } from '../model/errors.js';
import { flag, str, usageError, type CliIo, type OptionValues } from './args.js';

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

/** True when `-o -` was given. */
export function writesToStdout(values: OptionValues): boolean {
  return str(values, 'output') === STDOUT_OUTPUT;
}

/**
 * Resolves `-o`. A missing parent folder is `OCTX_OUTPUT_INVALID` (exit 2) unless `--mkdir`; then
 * the export creates it (not this function: the SDK removes the folders it created when the
 * export is refused or fails, so a refused export leaves nothing behind); `-o -` with `--json` (both would claim stdout) or with stdout on a terminal
 * is a usage error.
 * @throws OctxError `OCTX_OUTPUT_INVALID`, `OCTX_USAGE_ERROR`
 */
export async function prepareOutputTarget(values: OptionValues, json: boolean, io?: CliIo): Promise<OutputTarget> {
  const output = str(values, 'output')!;
  if (output === STDOUT_OUTPUT) {
    if (json) throw usageError('-o - writes the package to stdout, so --json cannot print there too; drop one of them', 'output');
    // Binary bytes on a terminal are never what was meant (as gzip and tar refuse it too).
    if (io?.stdout.isTTY === true) throw usageError('-o - would write the binary package to the terminal; redirect stdout (-o - > file.octx, or | another command)', 'output');
    const dir = await mkdtemp(join(tmpdir(), 'octx-stdout-'));
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
        for await (const chunk of createReadStream(path)) {
          if (failed) throw failed;
          if (!out.write(chunk as Buffer)) await once(out, 'drain');
        }
        if (failed) throw failed;
      },
      cleanup: () => rm(dir, { recursive: true, force: true }),
    };
  }
  const path = resolve(output);
  const parent = dirname(path);
  const isDir = await stat(parent).then(
    (s) => s.isDirectory(),
    () => false,
  );
  if (!isDir && !flag(values, 'mkdir')) {
    throw OctxError.of({ code: 'OCTX_OUTPUT_INVALID', path: output, field: 'output', message: `the folder ${parent} of -o does not exist; create it, or add --mkdir` });
  }
  return { path, toStdout: false, deliver: async () => undefined, cleanup: async () => undefined };
}
