import type { Command } from '../args.js';
import { EXIT_OK } from '../errors.js';
import { requireFolder } from '../fs-checks.js';
import { builderOptions, checkExportFlags, EXPORT_OPTIONS, exportJson, exportSummary, inCliTerms, printOutcome, runExport, workdirOptions } from '../export-run.js';

export const buildCommand: Command = {
  name: 'build',
  summary: 'build a package from a working folder (the package layout without a manifest)',
  description: [
    'The folder holds knowledge/**.md and optionally data/*.jsonl, relations/*.jsonl, extensions/**,',
    'and vectors/config.json with vectors as vectors/<target>.arrow or vectors/<target>.jsonl',
    '({"record_id", "vector"} lines). The structure layer is written and sag-structured/0.1 declared',
    'only when coverage is complete; otherwise it is omitted and the report says why.',
  ].join('\n'),
  positionals: [{ name: 'workdir', description: 'the working folder' }],
  options: EXPORT_OPTIONS,
  examples: [
    'octx-export build fixtures/kb-three-kingdoms -o out/three-kingdoms.octx --name "Three Kingdoms"',
    'octx-export build ./kb -o out/kb.octx --name "KB" --state .octx-state.json --require-structure',
  ],
  async run(ctx) {
    checkExportFlags(ctx.values);
    const workdir = ctx.positionals[0]!;
    await requireFolder(workdir, 'working folder');
    const [{ PackageBuilder }, { loadWorkdir }] = await Promise.all([import('../../builder/package-builder.js'), import('../../builder/load-workdir.js')]);
    const loadOptions = await workdirOptions(ctx.values);
    const builder = new PackageBuilder(builderOptions(ctx.values));
    let loaded;
    try {
      loaded = await loadWorkdir(builder, workdir, loadOptions);
    } catch (e) {
      await builder.dispose();
      throw inCliTerms(e);
    }
    const result = await runExport(builder, ctx);
    const lines = exportSummary(result);
    if (loaded.ignored.length > 0) lines.push(`  not read      ${loaded.ignored.join(', ')}`);
    printOutcome(ctx, exportJson('build', result, { loaded }), lines);
    return EXIT_OK;
  },
};
