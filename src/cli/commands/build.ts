import { basename, resolve } from 'node:path';
import { str, usageError, type Command } from '../args.js';
import { EXIT_OK } from '../errors.js';
import { requireFolder } from '../fs-checks.js';
import { builderOptions, checkExportFlags, cliProgress, EXPORT_OPTIONS, exportJson, exportSummary, printOutcome, runExport } from '../export-run.js';
import { cliLimits } from '../limits-options.js';
import { PREVIOUS_OPTION, previousPackage, printChanges } from '../previous-package.js';
import { indexFilesOption, loadedLines, loadWorkdirFor, WORKDIR_OPTIONS } from '../workdir-options.js';
import { noDocumentsError } from '../empty-folder-error.js';
import { emptyShardError, ledgerOption, SHARD_OPTIONS, shardOption } from '../shard-options.js';

export const buildCommand: Command = {
  name: 'build',
  summary: 'build a package from a Markdown docs folder, or a working folder (the package layout without a manifest)',
  description: [
    'A plain Markdown folder (a VitePress, Docusaurus, Hugo or MkDocs docs tree: no knowledge/ folder,',
    'record files or vectors/config.json in it) is the knowledge tree: its .md files are the documents,',
    'section index.md pages are kept as documents, TOML (+++) and JSON frontmatter is read as frontmatter,',
    "and every other file is counted by kind. --knowledge <subdir> names the documents' folder in any layout.",
    'A working folder holds knowledge/**.md and optionally data/*.jsonl, relations/*.jsonl, extensions/**,',
    'and vectors/config.json with vectors as vectors/<target>.arrow or vectors/<target>.jsonl',
    '({"record_id", "vector"} lines). The structure layer is written and sag-structured/0.1 declared',
    'only when coverage is complete; otherwise it is omitted and the report says why.',
    'Documents without octx.document_id get a minted one (kept across runs with --state); a chunk may',
    'name its document by path ("document": "guides/setup.md") instead of document_id. The format:',
    'docs/working-folder.md (in the package folder).',
  ].join('\n'),
  positionals: [{ name: 'workdir', description: 'the docs folder or working folder' }],
  options: {
    ...EXPORT_OPTIONS,
    // A docs folder builds with no flags: the package is named after the folder, the asset after the site.
    output: {
      ...EXPORT_OPTIONS.output!,
      required: false,
      description: 'the package to write (default <folder name>.octx in the current folder); - writes it to stdout (after it is verified)',
    },
    name: {
      ...EXPORT_OPTIONS.name!,
      required: false,
      description:
        "display name of the asset (default: the site's name in its generator config: VitePress/Docusaurus/Starlight title, mdBook [book] title, Hugo title, MkDocs site_name)",
    },
    ...WORKDIR_OPTIONS,
    ...PREVIOUS_OPTION,
    ...SHARD_OPTIONS,
  },
  examples: [
    'octx-export build fixtures/kb-three-kingdoms -o out/three-kingdoms.octx --mkdir --name "Three Kingdoms"',
    'octx-export build fixtures/kb-three-kingdoms -o out/kb.octx --name "KB" --state out/kb-state.json --require-structure',
    'octx-export build fixtures/docs-site -o out/docs.octx --mkdir --name "Acme docs" --index-files as-documents --require-structure',
    'octx-export build fixtures/docs-trees/vitepress -o out/vitepress-docs.octx --mkdir --name Docs',
    'octx-export build fixtures/kb-three-kingdoms --shard 0/2 -o out/kb-0.octx --mkdir --name KB --asset-id 019c0000-0000-7000-8000-000000000001 --created-at 2026-07-12T10:00:00Z',
  ],
  async run(given) {
    const workdir = given.positionals[0]!;
    await requireFolder(workdir, 'working folder');
    const ctx = { ...given, values: { ...given.values, ...(await defaults(workdir, given.values)) } };
    checkExportFlags(ctx.values);
    indexFilesOption(ctx.values);
    const shard = shardOption(ctx.values);
    const options = builderOptions(ctx.values, await cliLimits(ctx.values));
    // Read before this build records its own release in the state file.
    const previous = await previousPackage(ctx.values);
    const ledger = await ledgerOption(ctx.values);
    try {
      const { PackageBuilder } = await import('../../builder/package-builder.js');
      const builder = new PackageBuilder({ ...options, ...(ledger !== undefined ? { ledger } : {}) });
      const progress = cliProgress(ctx);
      const loaded = await loadWorkdirFor(builder, workdir, ctx, progress, shard);
      const none = shard !== undefined && loaded.documents - loaded.reserved.length === 0 ? emptyShardError(workdir, shard) : noDocumentsError(workdir, loaded);
      if (none) {
        progress.done();
        await builder.dispose();
        throw none;
      }
      const result = await runExport(builder, ctx, { progress, ...(previous !== undefined ? { previous } : {}) });
      printChanges(ctx, result);
      const lines = [...exportSummary(result), ...loadedLines(loaded)];
      printOutcome(ctx, exportJson('build', result, { loaded }), lines);
      return EXIT_OK;
    } finally {
      await ledger?.close();
    }
  },
};

/**
 * The `-o` and `--name` a docs folder gets when they are not given: `<folder name>.octx` in the
 * current folder, and the site's name from its generator config.
 * @throws OctxError `OCTX_USAGE_ERROR` when no name is given and no generator config names the site
 */
async function defaults(workdir: string, values: Parameters<typeof str>[0]): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  if (str(values, 'output') === undefined) out.output = `${basename(resolve(workdir))}.octx`;
  if (str(values, 'name') === undefined) {
    const { detectDocsSite } = await import('../../builder/docs-site/detect.js');
    const site = await detectDocsSite(workdir);
    if (site?.name === undefined) {
      const why = site === undefined ? 'no docs generator config (VitePress, Docusaurus, Starlight, mdBook, Hugo, MkDocs) was found' : `${site.config} gives no literal site name`;
      throw usageError(`build: --name <asset name> is required: ${why} in ${workdir} to name the asset after`, 'name');
    }
    out.name = site.name;
  }
  return out;
}
