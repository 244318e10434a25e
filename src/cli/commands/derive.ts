import type { PackageBuilder } from '../../builder/package-builder.js';
import type { PackageBuilderOptions } from '../../builder/options.js';
import { OctxError } from '../../model/errors.js';
import type { Command } from '../args.js';
import { EXIT_OK } from '../errors.js';
import { builderOptions, checkExportFlags, EXPORT_OPTIONS, exportJson, exportSummary, printOutcome, runExport } from '../export-run.js';
import { requireFolder, requirePackagePath } from '../fs-checks.js';

/** The `PackageBuilder.derive` signature this command is written against. */
type DeriveFn = (source: string, options: PackageBuilderOptions) => PackageBuilder | Promise<PackageBuilder>;

export const deriveCommand: Command = {
  name: 'derive',
  summary: 'publish a Derived Asset: a source package plus additions from a working folder',
  description: [
    'Starts from <source.octx> (its documents, structure and vectors), adds what <workdir> holds',
    '(same layout as `build`), and writes a new asset whose manifest says asset.derived_from =',
    '{asset_id, version, package_digest} of the source. The source is never modified.',
  ].join('\n'),
  positionals: [
    { name: 'source.octx', description: 'the package to derive from' },
    { name: 'workdir', description: 'a working folder with the additions' },
  ],
  options: EXPORT_OPTIONS,
  examples: ['octx-export derive out/three-kingdoms.octx ./additions -o out/three-kingdoms-annotated.octx --name "Three Kingdoms, annotated" --version 1.0.0'],
  async run(ctx) {
    checkExportFlags(ctx.values);
    const [source, workdir] = ctx.positionals as [string, string];
    await requirePackagePath(source, 'source package');
    await requireFolder(workdir, 'working folder');
    const [{ PackageBuilder }, { loadWorkdir }] = await Promise.all([import('../../builder/package-builder.js'), import('../../adapters/workdir.js')]);
    const derive = (PackageBuilder as unknown as { derive?: DeriveFn }).derive;
    if (typeof derive !== 'function') {
      throw OctxError.of({ code: 'OCTX_USAGE_ERROR', message: 'this build of octx-export has no PackageBuilder.derive yet, so derive is unavailable' });
    }
    const builder = await derive.call(PackageBuilder, source, builderOptions(ctx.values));
    let loaded;
    try {
      loaded = await loadWorkdir(builder, workdir);
    } catch (e) {
      await builder.dispose();
      throw e;
    }
    const result = await runExport(builder, ctx);
    const lines = exportSummary(result);
    if (loaded.ignored.length > 0) lines.push(`  not read      ${loaded.ignored.join(', ')}`);
    printOutcome(ctx, exportJson('derive', result, { source, loaded }), lines);
    return EXIT_OK;
  },
};
