/**
 * Options of the commands that read a working folder (`build`, `derive`), and loading it with
 * progress and warnings.
 */
import type { PackageBuilder } from '../builder/package-builder.js';
import type { IndexFilesMode, WorkdirLoadReport } from '../builder/load-workdir.js';
import { str, usageError, type CommandContext, type OptionSpec, type OptionValues } from './args.js';
import { workdirOptions, type CliProgress } from './export-run.js';

const MODES: readonly IndexFilesMode[] = ['okf', 'as-documents', 'skip'];

/** `--index-files`. */
export const WORKDIR_OPTIONS: Readonly<Record<string, OptionSpec>> = {
  'index-files': {
    type: 'string',
    value: '<okf|as-documents|skip>',
    description:
      'index.md/log.md files that are not OKF index/log files (e.g. docs-site section pages): okf refuses them (default), as-documents keeps each as a document renamed to _index.md/_log.md in its folder, skip leaves them out (docs/working-folder.md)',
  },
};

/** The `--index-files` value. */
export function indexFilesOption(values: OptionValues): IndexFilesMode | undefined {
  const raw = str(values, 'index-files');
  if (raw === undefined) return undefined;
  if (!(MODES as readonly string[]).includes(raw)) throw usageError(`--index-files must be one of ${MODES.join(', ')} (got ${JSON.stringify(raw)})`, 'index-files');
  return raw as IndexFilesMode;
}

/**
 * Loads `<workdir>` into the builder with the command's options (`--index-files`, and the limits
 * of `--max-entries`/`--limits`, checked on the folder's listing before any file is read);
 * disposes the builder on failure.
 */
export async function loadWorkdirFor(builder: PackageBuilder, workdir: string, ctx: CommandContext, progress: CliProgress): Promise<WorkdirLoadReport> {
  const { loadWorkdir } = await import('../builder/load-workdir.js');
  try {
    const indexFiles = indexFilesOption(ctx.values);
    const { limits } = await workdirOptions(ctx.values);
    return await loadWorkdir(builder, workdir, { onProgress: progress, ...(indexFiles !== undefined ? { indexFiles } : {}), ...(limits ? { limits } : {}) });
  } catch (e) {
    progress.done();
    await builder.dispose();
    throw e;
  }
}

/** Summary lines about what loading changed or left out. */
export function loadedLines(loaded: WorkdirLoadReport): string[] {
  const lines: string[] = [];
  for (const r of loaded.renamed) lines.push(`  renamed       knowledge/${r.from} → knowledge/${r.to} (not an OKF ${r.from.split('/').at(-1)})`);
  if (loaded.skipped.length > 0) lines.push(`  skipped       ${loaded.skipped.map((p) => `knowledge/${p}`).join(', ')} (not OKF index/log files)`);
  if (loaded.ignored.length > 0) lines.push(`  not read      ${loaded.ignored.join(', ')}`);
  return lines;
}
