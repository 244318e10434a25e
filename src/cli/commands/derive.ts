import type { DerivationSummary } from '../../builder/derive.js';
import type { Command } from '../args.js';
import { flag, str } from '../args.js';
import { EXIT_OK } from '../errors.js';
import { builderOptions, checkExportFlags, cliProgress, EXPORT_OPTIONS, exportJson, exportSummary, printOutcome, runExport, workdirOptions } from '../export-run.js';
import { indexFilesOption, loadedLines, loadWorkdirFor, WORKDIR_OPTIONS } from '../workdir-options.js';
import { requireFolder, requirePackagePath } from '../fs-checks.js';
import { printChanges } from '../previous-package.js';

/** Human lines about what a derivation carried over. */
export function derivationLines(d: DerivationSummary | undefined): string[] {
  if (!d) return [];
  const c = d.carried;
  const lines = [
    `  source        ${d.source.path} (${d.source.assetId ?? '?'} ${d.source.version ?? '?'}, ${d.source.valid ? 'valid' : 'INVALID'})`,
    `  carried       ${d.mode}: ${c.documents} document(s), ${c.extensions} extension file(s), structure ${c.structure ? 'yes' : 'no'}, vectors ${c.vectors ? 'yes' : 'no'}`,
  ];
  for (const s of d.skipped.slice(0, 10)) lines.push(`  left behind   ${s.path}: ${s.reason}`);
  return lines;
}

export const deriveCommand: Command = {
  name: 'derive',
  summary: 'publish a Derived Asset: a source package plus additions from a working folder',
  description: [
    'Starts from <source.octx> (its documents, extensions and every valid layer, ids kept), adds what',
    '<workdir> holds (same layout as `build`), and writes a new asset whose manifest says',
    'asset.derived_from = {asset_id, version, package_digest} of the source. The source is never',
    'modified. An invalid source can only be derived with --documents-only, which recovers its',
    'readable Markdown with new document ids.',
  ].join('\n'),
  positionals: [
    { name: 'source.octx', description: 'the package to derive from' },
    { name: 'workdir', description: 'a working folder with the additions (may be empty)' },
  ],
  options: { ...EXPORT_OPTIONS, ...WORKDIR_OPTIONS },
  examplesNote: 'out/three-kingdoms.octx: written by the first example of `octx-export build --help`',
  examples: ['octx-export derive out/three-kingdoms.octx fixtures/reading-notes -o out/three-kingdoms-notes.octx --name "Three Kingdoms, with reading notes" --version 1.0.0'],
  async run(ctx) {
    checkExportFlags(ctx.values);
    const [source, workdir] = ctx.positionals as [string, string];
    await requirePackagePath(source, 'source package');
    await requireFolder(workdir, 'working folder');
    indexFilesOption(ctx.values);
    const { PackageBuilder } = await import('../../builder/package-builder.js');
    const loadOptions = await workdirOptions(ctx.values);
    const options = builderOptions(ctx.values, loadOptions.limits);
    const builder = await PackageBuilder.derive(source, {
      ...options,
      asset: { name: str(ctx.values, 'name')!, ...(options.asset.id !== undefined ? { id: options.asset.id } : {}) },
      ...(flag(ctx.values, 'documents-only') ? { documentsOnly: true } : {}),
      ...loadOptions,
    });
    const progress = cliProgress(ctx);
    const loaded = await loadWorkdirFor(builder, workdir, ctx, progress);
    // The source is the previous package a derived asset knows: print what the derivation changed.
    const result = await runExport(builder, ctx, { progress, previous: source });
    printChanges(ctx, result);
    const lines = [...exportSummary(result), ...derivationLines(builder.derivation), ...loadedLines(loaded)];
    printOutcome(ctx, exportJson('derive', result, { source, derivation: builder.derivation ?? null, loaded }), lines);
    return EXIT_OK;
  },
};
