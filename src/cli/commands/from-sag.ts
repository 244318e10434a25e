import type { SagAdapterReport } from '../../adapters/sag/from-sag.js';
import type { Command } from '../args.js';
import { flag, list, str, usageError } from '../args.js';
import { EXIT_OK } from '../errors.js';
import { requireFile } from '../fs-checks.js';
import { builderOptions, checkExportFlags, EXPORT_OPTIONS, exportJson, exportSummary, printOutcome, runExport } from '../export-run.js';

/** Human lines about a SAG adapter run. */
export function sagLines(r: SagAdapterReport): string[] {
  const lines = [
    `  sag           source ${r.source.id}${r.source.name ? ` "${r.source.name}"` : ''} (schema: ${r.generation}), ids: ${r.ids.preserved} preserved, ${r.ids.sagCompatible} sag-compatible, ${r.ids.ledger} from the ledger`,
    `  sag           ${r.documents.count} article(s), ${r.chunks.count} chunk(s), ${r.events.count} event(s) (${r.events.softDeleted} soft-deleted left out), ${r.entities.count} entit(y/ies)`,
  ];
  if (r.events.detachedFromParent.length > 0) lines.push(`  sag           ${r.events.detachedFromParent.length} event(s) became top-level: their parent is not exported`);
  if (r.events.withoutChunk.length > 0) lines.push(`  sag           ${r.events.withoutChunk.length} event(s) have no exported chunk`);
  lines.push(`  note          structure expected ${r.structure.expected}: ${r.structure.reason}`);
  for (const w of r.warnings) lines.push(`  warning       ${w}`);
  return lines;
}

export const fromSagCommand: Command = {
  name: 'from-sag',
  summary: 'export one source of a zleap-sag engine SQLite database',
  description: [
    'Reads article, source_chunk, source_event (not soft-deleted), event_entity and entity rows of',
    'one source (source_config_id or data_source_id, both schema generations). Duplicate chunk ranks',
    'are an error; event levels are recomputed from the exported parent chain. Record ids: a',
    'preserved extra_data.octx.record_id, else the id ledger (--state keeps them stable); with',
    '--id-mode sag-compatible, UUIDv4 ids get their version nibble set to 7, as SAG itself does.',
    'Needs SQLite: Node.js ≥ 22.5 has it built in (node:sqlite); on Node 20 install the optional',
    'dependency with `npm install better-sqlite3@12`.',
  ].join('\n'),
  positionals: [{ name: 'sag.db', description: 'the zleap-sag SQLite database (e.g. .zleap/sag.db)' }],
  options: {
    ...EXPORT_OPTIONS,
    source: { type: 'string', value: '<id>', description: 'the source_config.id / data_source_id to export', required: true },
    'id-mode': { type: 'string', value: '<ledger|sag-compatible>', description: 'how record ids are chosen (default ledger)' },
    article: { type: 'string', value: '<id>', description: 'export only this article', multiple: true },
    generation: { type: 'string', value: '<id>', description: 'only rows of this generation_id (newer schemas)' },
  },
  examples: [
    'octx-export from-sag .zleap/sag.db --source demo -o out/demo.octx --name "Demo source"',
    'octx-export from-sag .zleap/sag.db --source demo --id-mode sag-compatible --require-structure -o out/demo.octx --name "Demo source"',
  ],
  async run(ctx) {
    checkExportFlags(ctx.values);
    const idMode = str(ctx.values, 'id-mode') ?? 'ledger';
    if (idMode !== 'ledger' && idMode !== 'sag-compatible') throw usageError('--id-mode must be ledger or sag-compatible', 'id-mode');
    const db = ctx.positionals[0]!;
    await requireFile(db, 'database');
    const [{ PackageBuilder }, { fromSagDatabase }] = await Promise.all([import('../../builder/package-builder.js'), import('../../adapters/sag/from-sag.js')]);
    const articles = list(ctx.values, 'article');
    const generation = str(ctx.values, 'generation');
    const builder = new PackageBuilder(builderOptions(ctx.values));
    let report: SagAdapterReport;
    try {
      report = await fromSagDatabase(builder, db, {
        sourceId: str(ctx.values, 'source')!,
        idMode: idMode,
        ...(articles.length > 0 ? { articleIds: articles } : {}),
        ...(generation !== undefined ? { generationId: generation } : {}),
        ...(flag(ctx.values, 'documents-only') ? { documentsOnly: true } : {}),
      });
    } catch (e) {
      await builder.dispose();
      throw e;
    }
    const result = await runExport(builder, ctx);
    printOutcome(ctx, exportJson('from-sag', result, { adapter: report }), [...exportSummary(result), ...sagLines(report)]);
    return EXIT_OK;
  },
};
