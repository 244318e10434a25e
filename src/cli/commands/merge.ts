import type { Command } from '../args.js';
import { flag, str } from '../args.js';
import { EXIT_OK } from '../errors.js';
import { cliProgress, EXPORT_OPTIONS, exportJson, exportSummary, printOutcome } from '../export-run.js';
import { cliLimits, EXPORT_LIMIT_OPTIONS } from '../limits-options.js';
import { prepareOutputTarget, writeThroughTarget } from '../output-target.js';
import { requirePackagePath } from '../fs-checks.js';
import { consumerOption } from './validate.js';

export const mergeCommand: Command = {
  name: 'merge',
  summary: 'merge shards (packages of one asset and release, built apart) into one package',
  description: [
    'The reduce step of a sharded build (docs/distributed.md). Every shard must be valid and have the same',
    'asset id and name, version, created_at, capabilities and vector config. The package holds the union:',
    'a document (path or id) in two shards is refused; a record, relation, vector or extension file in',
    'two shards is kept once when both hold it byte for byte (canonical JSON) and refused otherwise;',
    "two entity ids for one identity under the consumer's rules are refused. The result is checked like",
    'any export (coverage, references, vectors, limits) and depends only on the content: the same shards',
    'in any order give the same bytes.',
  ].join('\n'),
  positionals: [{ name: 'shard.octx', description: 'the shards (any order; one package alone is written in its canonical order)', variadic: true }],
  options: {
    output: EXPORT_OPTIONS.output!,
    mkdir: EXPORT_OPTIONS.mkdir!,
    overwrite: EXPORT_OPTIONS.overwrite!,
    consumer: EXPORT_OPTIONS.consumer!,
    ...EXPORT_LIMIT_OPTIONS,
  },
  examplesNote:
    'out/three-kingdoms.octx: written by the first example of `octx-export build --help`; shards are packages built apart with the same --asset-id, --version and --created-at',
  examples: ['octx-export merge out/three-kingdoms.octx -o out/three-kingdoms-merged.octx'],
  async run(ctx) {
    for (const shard of ctx.positionals) await requirePackagePath(shard, 'shard');
    const consumer = consumerOption(str(ctx.values, 'consumer'));
    const limits = await cliLimits(ctx.values);
    const { mergePackages } = await import('../../builder/merge-packages.js');
    const target = await prepareOutputTarget(ctx.values, ctx.json, ctx.io);
    const progress = cliProgress(ctx);
    const result = await writeThroughTarget(target, ctx.io, progress, (output) =>
      mergePackages(ctx.positionals, {
        output,
        overwrite: flag(ctx.values, 'overwrite'),
        ...(consumer !== undefined ? { consumer } : {}),
        ...(limits ? { limits } : {}),
        onProgress: progress,
      }),
    );
    const shared = Object.entries(result.shared)
      .filter(([, n]) => n > 0)
      .map(([k, n]) => `${n} ${k}`);
    const lines = [
      ...exportSummary(result),
      `  shards        ${result.shards.length} merged${shared.length > 0 ? `; held by more than one, kept once: ${shared.join(', ')}` : ''}`,
    ];
    printOutcome(ctx, exportJson('merge', result, { shards: result.shards, shared: result.shared }), lines);
    return EXIT_OK;
  },
};
