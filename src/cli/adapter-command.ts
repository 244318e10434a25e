/**
 * The adapter commands (`from-rag`, `from-ingest`, `from-sag`, …) share one shape: the export
 * options (`-o`, `--name`, `--state`, `--asset-id`, `--created-at`, `--consumer`,
 * `--documents-only`, `--require-structure`, `--strict`, the limits, …) next to the command's own,
 * the same order of checks, one builder made from the common flags, the adapter's mapping, the
 * export with progress and warnings, and the summary or `--json` document. A command states only
 * what is its own: its flags and input, the SDK call, and the lines about its report.
 */
import type { PackageBuilder } from '../builder/package-builder.js';
import type { Command, CommandContext, OptionSpec, PositionalSpec } from './args.js';
import { flag, usageError } from './args.js';
import { EXIT_OK } from './errors.js';
import { builderOptions, checkExportFlags, cliProgress, EXPORT_OPTIONS, exportJson, exportSummary, printOutcome, runExport, type CliProgress } from './export-run.js';
import { cliLimits } from './limits-options.js';

/** The common flags that decide what an adapter reads, read once for the command's `read` and `map`. */
export interface AdapterFlags {
  /** `--documents-only`, or always for a command whose input has no structure. */
  readonly documentsOnly: boolean;
  /** `--require-structure`. */
  readonly requireStructure: boolean;
  /** `--strict`. */
  readonly strict: boolean;
}

/** What a command's `map` gets besides the builder and its input. */
export interface AdapterRun {
  readonly flags: AdapterFlags;
  /**
   * The command's progress line (warnings on stderr), shared with the export that follows: an
   * adapter with long phases reports them as `{ phase: 'load', kind: '<what>', completed, total }`.
   */
  readonly progress: CliProgress;
}

/** An adapter command: what is its own. */
export interface AdapterCommandSpec<Input, Report> {
  /** The command (`from-rag`): also the `command` member of the `--json` document. */
  readonly name: string;
  readonly summary: string;
  readonly description: string;
  readonly positionals: readonly PositionalSpec[];
  /** The command's own options; the export options are listed before them. */
  readonly options: Readonly<Record<string, OptionSpec>>;
  readonly examples?: readonly string[];
  /**
   * For an input that never carries a structure layer: `--require-structure` is refused with
   * this message (a usage error, before anything is read), and the package is exported
   * documents-only, which the summary attributes to the command rather than to
   * `--documents-only`.
   */
  readonly documentsOnly?: { readonly refuseRequireStructure: string };
  /**
   * Checks the command's own flags and reads its input: everything that can fail before a
   * builder exists (usage, path and input errors).
   */
  read(ctx: CommandContext, flags: AdapterFlags): Promise<Input>;
  /** Maps the input into the builder (the SDK adapter call) and returns what the summary and `--json` show. */
  map(builder: PackageBuilder, input: Input, run: AdapterRun): Promise<Report>;
  /** The summary lines about the report, printed after the export's. */
  lines(report: Report): string[];
  /** The `--json` document's members about the report (default `{ adapter: report }`). */
  json?(report: Report): Record<string, unknown>;
}

/**
 * The command of an adapter. Its run, in order: a `--require-structure` the input cannot meet is
 * refused; the common flag combinations are checked; the command's `read`; the builder, from the
 * common flags (`builderOptions`: under `--strict`, a build without `--state` or `--asset-id` is
 * refused here); the command's `map` (the builder is disposed when it fails); the export; the
 * summary or the `--json` document.
 */
export function adapterCommand<Input, Report>(spec: AdapterCommandSpec<Input, Report>): Command {
  return {
    name: spec.name,
    summary: spec.summary,
    description: spec.description,
    positionals: spec.positionals,
    options: { ...EXPORT_OPTIONS, ...spec.options },
    ...(spec.examples ? { examples: spec.examples } : {}),
    async run(ctx) {
      if (spec.documentsOnly && flag(ctx.values, 'require-structure')) throw usageError(spec.documentsOnly.refuseRequireStructure, 'require-structure');
      checkExportFlags(ctx.values);
      const flags: AdapterFlags = {
        documentsOnly: spec.documentsOnly !== undefined || flag(ctx.values, 'documents-only'),
        requireStructure: flag(ctx.values, 'require-structure'),
        strict: flag(ctx.values, 'strict'),
      };
      const input = await spec.read(ctx, flags);
      const { PackageBuilder } = await import('../builder/package-builder.js');
      const builder = new PackageBuilder(builderOptions(ctx.values, await cliLimits(ctx.values)));
      const progress = cliProgress(ctx);
      let report: Report;
      try {
        report = await spec.map(builder, input, { flags, progress });
      } catch (e) {
        progress.done();
        await builder.dispose();
        throw e;
      }
      const result = await runExport(builder, ctx, { progress, ...(spec.documentsOnly ? { documentsOnly: true } : {}) });
      // Documents-only by the command's choice: the structure line says so, rather than that the user gave --documents-only.
      const summary = spec.documentsOnly
        ? exportSummary(result).map((l) => l.replace('documentsOnly was requested', `${spec.name} exports documents only`))
        : exportSummary(result);
      printOutcome(ctx, exportJson(spec.name, result, spec.json ? spec.json(report) : { adapter: report }), [...summary, ...spec.lines(report)]);
      return EXIT_OK;
    },
  };
}
