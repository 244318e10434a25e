import type { FromSagOptions, SagAdapterReport } from '../../adapters/sag/sag-types.js';
import { adapterCommand } from '../adapter-command.js';
import { list, str, usageError } from '../args.js';
import { requireFile } from '../fs-checks.js';

/** Human lines about a SAG adapter run. */
export function sagLines(r: SagAdapterReport): string[] {
  const skipped = Object.entries(r.articles.skippedByStatus);
  const lines = [
    `  sag           source ${r.source.id}${r.source.name ? ` "${r.source.name}"` : ''} (schema: ${r.generation}), ids: ${r.ids.preserved} preserved, ${r.ids.sagCompatible} sag-compatible, ${r.ids.ledger} from the ledger`,
    `  sag           ${r.documents.count} article(s) (${r.articles.statuses.join('/')}), ${r.chunks.count} chunk(s), ${r.events.count} event(s) (${r.events.softDeleted} soft-deleted left out), ${r.entities.count} entit(y/ies)`,
  ];
  if (skipped.length > 0)
    lines.push(
      `  sag           ${skipped.reduce((n, [, c]) => n + c, 0)} article(s) skipped for their status: ${skipped.map(([s, n]) => `${n} ${s}`).join(', ')} (SAG has not finished them; --include-status to export them)`,
    );
  if (r.generations.from !== 'none')
    lines.push(
      `  sag           generations: ${Object.keys(r.generations.active).length} article(s) at their ${r.generations.from === 'manifest' ? 'active generation (sag_source_manifest)' : 'active or given generation'}; ${r.chunks.otherGenerations} chunk(s) and ${r.events.otherGenerations} event(s) of other generations left out`,
    );
  if (r.events.detachedFromParent.length > 0) lines.push(`  sag           ${r.events.detachedFromParent.length} event(s) became top-level: their parent is not exported`);
  if (r.events.withoutChunk.length > 0) lines.push(`  sag           ${r.events.withoutChunk.length} event(s) have no exported chunk`);
  lines.push(`  note          structure expected ${r.structure.expected}: ${r.structure.reason}`);
  // The adapter's warnings are printed as `warning[OCTX_ADAPTER_WARNING]` lines on stderr by the export.
  return lines;
}

/** `--generation <article-id>=<generation-id>` values → the SDK's `generations`; the removed one-id form is a usage error that says why. */
export function parseGenerationOverrides(values: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const v of values) {
    const eq = v.indexOf('=');
    if (eq <= 0 || eq === v.length - 1)
      throw usageError(
        `--generation ${v}: give <article-id>=<generation-id>. A generation belongs to one article and each article is read at its active generation (sag_source_manifest.active_generation_id); --generation only overrides that for one article (one id for the whole export is no longer accepted)`,
        'generation',
      );
    const article = v.slice(0, eq).trim();
    if (out[article] !== undefined) throw usageError(`--generation: article ${article} is given twice`, 'generation');
    out[article] = v.slice(eq + 1).trim();
  }
  return out;
}

/** `--include-status PENDING,FAILED` (repeatable) → the statuses, upper case. */
function parseStatuses(values: readonly string[]): string[] {
  const out = values.flatMap((v) => v.split(',')).map((s) => s.trim().toUpperCase());
  if (out.some((s) => s === '')) throw usageError('--include-status: give article statuses separated by commas, e.g. PENDING,FAILED', 'include-status');
  return out;
}

export const fromSagCommand = adapterCommand({
  name: 'from-sag',
  summary: 'export one source of a zleap-sag engine SQLite database',
  description: [
    'Reads the zleap-sag ENGINE database: SAG v1.7 keeps it at <SAG_DATA_DIR>/sag.db, by default',
    "./.data/engine/sag.db where SAG runs (./.data/sag.db is SAG's application database,",
    'which from-sag refuses with OCTX_SAG_NOT_ENGINE_DB). Exports one source (source_config_id in',
    'zleap-sag 0.7, data_source_id in 0.8.2+): articles SAG has finished (status COMPLETED; others',
    'are counted per status, --include-status adds them), their source_chunk rows, source_event',
    'rows (not status DELETED), event_entity and entity rows. With generations (0.8.2+) each',
    "article is read at its active generation (sag_source_manifest); other generations' rows are",
    'leftovers and are left out. Duplicate chunk ranks are an error; event levels are recomputed',
    'from the exported parent chain. Record ids: a preserved extra_data.octx.record_id, else the id',
    'ledger (--state keeps them stable); with --id-mode sag-compatible, UUIDv4 ids get their',
    'version nibble set to 7, as SAG itself does. Needs SQLite: Node.js ≥ 22.5 has it built in',
    '(node:sqlite); on Node 20 install the optional dependency with `npm install better-sqlite3@12`.',
  ].join('\n'),
  positionals: [{ name: 'sag.db', description: 'the zleap-sag engine database (in SAG: .data/engine/sag.db)' }],
  options: {
    source: { type: 'string', value: '<id>', description: 'the source_config.id / data_source_id to export', required: true },
    'id-mode': { type: 'string', value: '<ledger|sag-compatible>', description: 'how record ids are chosen (default ledger)' },
    article: { type: 'string', value: '<id>', description: 'export only this article', multiple: true },
    'include-status': {
      type: 'string',
      value: '<status,…>',
      description: 'also export articles with these statuses (PENDING, PROCESSING, FAILED); default COMPLETED only',
      multiple: true,
    },
    generation: {
      type: 'string',
      value: '<article-id>=<generation-id>',
      description: 'read this generation of the article instead of its active one (zleap-sag 0.8.2+)',
      multiple: true,
    },
  },
  examples: [
    'octx-export from-sag fixtures/sag/engine-0.7.1/sag.db --source 5f0c3a1e-9b2d-4c7e-8a41-3d2b1c0e9f87 -o out/sag-demo.octx --name "三国演义读书会" --mkdir --overwrite',
    'octx-export from-sag fixtures/sag/engine-0.8/sag.db --source 5f0c3a1e-9b2d-4c7e-8a41-3d2b1c0e9f87 --id-mode sag-compatible --require-structure -o out/sag-demo-0.8.octx --name "三国演义读书会" --mkdir --overwrite',
    'octx-export from-sag fixtures/sag/engine-0.7.1/sag.db --source 5f0c3a1e-9b2d-4c7e-8a41-3d2b1c0e9f87 --include-status FAILED -o out/sag-failed.octx --name "三国演义读书会" --mkdir --overwrite',
  ],
  async read(ctx, flags) {
    const idMode = str(ctx.values, 'id-mode') ?? 'ledger';
    if (idMode !== 'ledger' && idMode !== 'sag-compatible') throw usageError('--id-mode must be ledger or sag-compatible', 'id-mode');
    const generations = parseGenerationOverrides(list(ctx.values, 'generation'));
    const includeStatuses = parseStatuses(list(ctx.values, 'include-status'));
    const db = ctx.positionals[0]!;
    await requireFile(db, 'database');
    const articles = list(ctx.values, 'article');
    const options: FromSagOptions = {
      sourceId: str(ctx.values, 'source')!,
      idMode: idMode,
      ...(articles.length > 0 ? { articleIds: articles } : {}),
      ...(includeStatuses.length > 0 ? { includeStatuses } : {}),
      ...(Object.keys(generations).length > 0 ? { generations } : {}),
      ...(flags.documentsOnly ? { documentsOnly: true } : {}),
    };
    return { db, options };
  },
  async map(builder, { db, options }) {
    const { fromSagDatabase } = await import('../../adapters/sag/from-sag.js');
    return fromSagDatabase(builder, db, options);
  },
  lines: sagLines,
});
