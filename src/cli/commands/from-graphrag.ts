import type { FromGraphRagOptions, GraphRagAdapterReport, GraphRagVectorSource } from '../../adapters/graphrag/graphrag-types.js';
import type { ConsumerName } from '../../consumers/index.js';
import { adapterCommand } from '../adapter-command.js';
import { str, usageError } from '../args.js';
import { requireFolder } from '../fs-checks.js';

/** Human lines about a GraphRAG adapter run. */
export function graphRagLines(r: GraphRagAdapterReport): string[] {
  const left = r.leftOut;
  const lines = [
    `  graphrag      layout ${r.layout.version} (${r.layout.releases}), ${r.layout.codecs.join('/')} Parquet: ${r.documents.count} document(s), ${r.chunks.count} chunk(s), ${r.entities.count} entit(y/ies)`,
    `  graphrag      ${r.events.count} event(s): ${r.events.fromRelationships} from relationships, ${r.events.fromClaims} from claims, ${r.events.mentions} mention(s) of text units in no relationship`,
  ];
  const out = [
    left.untypedEntities.count ? `${left.untypedEntities.count} untyped entit(y/ies)` : '',
    left.entitiesWithoutEvent.count ? `${left.entitiesWithoutEvent.count} entit(y/ies) in no event` : '',
    left.relationshipsWithUnknownEndpoint.count ? `${left.relationshipsWithUnknownEndpoint.count} relationship(s) naming no entity` : '',
    left.relationshipsWithoutTypedEntity.count ? `${left.relationshipsWithoutTypedEntity.count} relationship(s) between untyped entities` : '',
    left.relationshipsWithoutTextUnit.count ? `${left.relationshipsWithoutTextUnit.count} relationship(s) without a known text unit` : '',
    left.claimsWithoutTextUnit.count + left.claimsWithoutEntity.count ? `${left.claimsWithoutTextUnit.count + left.claimsWithoutEntity.count} claim(s)` : '',
    left.communities ? `${left.communities} communit(y/ies)` : '',
    left.communityReports ? `${left.communityReports} community report(s) (--community-reports as-documents to export them)` : '',
  ].filter(Boolean);
  if (out.length > 0) lines.push(`  graphrag      left out: ${out.join(', ')}`);
  if (r.communityReportDocuments > 0) lines.push(`  graphrag      ${r.communityReportDocuments} community report(s) as documents under community-reports/`);
  const v = r.vectors;
  if (v.status === 'written')
    lines.push(
      `  graphrag      vectors: ${v.targets.map((t) => `${t.target} ${t.status === 'written' ? `${t.added} rows` : `omitted (${t.reason})`} from ${t.from}`).join('; ')}; model ${v.model} (${v.modelFrom}), ${v.dimensions} dims, normalized ${v.normalized}`,
    );
  else lines.push(`  graphrag      vectors ${v.status}: ${v.reason}`);
  if (v.noTarget.length > 0) lines.push(`  graphrag      embeddings with no target: ${v.noTarget.map((n) => `${n.embedding} (${n.from})`).join(', ')}`);
  lines.push(`  note          structure expected ${r.structure.expected}: ${r.structure.reason}`);
  return lines;
}

function oneOf<T extends string>(value: string | undefined, allowed: readonly T[], flagName: string): T | undefined {
  if (value === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(value)) throw usageError(`--${flagName} must be ${allowed.join(' or ')}`, flagName);
  return value as T;
}

export const fromGraphRagCommand = adapterCommand({
  name: 'from-graphrag',
  summary: 'export what Microsoft GraphRAG indexed (its output folder) as a structured package with its vectors',
  description: [
    'Reads a GraphRAG output folder (1.x create_final_*.parquet, 2.x, 3.x: recognised from its files',
    'and columns). Documents become Concept Documents (text byte for byte), text units chunks,',
    'entities entities (by title; an untyped one is left out), relationships and claims events linked',
    'to their text units and entities, and a text unit in no relationship one event recording the',
    'entities it mentions. A text unit without any entity makes the package documents-only',
    '(--require-structure refuses instead). Community reports are left out, or exported as documents',
    'with --community-reports as-documents (then documents-only: they have no chunks). Vectors: the',
    'text-unit and entity-description embeddings, from embeddings.<name>.parquet snapshots or the',
    'LanceDB tables (needs the optional `npm install @lancedb/lancedb@0.31.0`), written only when',
    "complete; the model comes from --embedding-model or the project's settings.yaml next to the",
    'output folder. With --state, ids stay stable when the same corpus is indexed again.',
  ].join('\n'),
  positionals: [{ name: 'output-dir', description: "GraphRAG's output folder (<project>/output)" }],
  options: {
    'community-reports': { type: 'string', value: '<leave-out|as-documents>', description: 'what to do with community reports (default leave-out, counted)' },
    vectors: { type: 'string', value: '<auto|snapshots|lancedb|none>', description: 'where the embeddings are read (default auto: a snapshot, else LanceDB)' },
    'embedding-model': { type: 'string', value: '<name>', description: "the embedding model's name (default: from the project's settings.yaml)" },
    settings: { type: 'string', value: '<file>', description: "the GraphRAG project's settings file (default: settings.yaml next to the output folder)" },
    lancedb: { type: 'string', value: '<dir>', description: 'the LanceDB folder (default: <output-dir>/lancedb)' },
    'relationship-weight': {
      type: 'string',
      value: '<extension|link>',
      description: "where a relationship's weight goes: x-graphrag on the event (default), or also the event-entity links",
    },
  },
  examples: [
    'octx-export from-graphrag fixtures/graphrag/v2-small/output -o out/graphrag.octx --name "Operation Dulce (GraphRAG)" --mkdir --overwrite',
    'octx-export from-graphrag fixtures/graphrag/v2-small/output --consumer sag-1.7 --require-structure -o out/graphrag-sag.octx --name "Operation Dulce (GraphRAG)" --mkdir --overwrite',
    'octx-export from-graphrag fixtures/graphrag/v2-small/output --community-reports as-documents --vectors none -o out/graphrag-reports.octx --name "Operation Dulce reports" --mkdir --overwrite',
  ],
  async read(ctx, flags) {
    const dir = ctx.positionals[0]!;
    const options: FromGraphRagOptions = {};
    const communityReports = oneOf(str(ctx.values, 'community-reports'), ['leave-out', 'as-documents'] as const, 'community-reports');
    const vectors = oneOf<GraphRagVectorSource>(str(ctx.values, 'vectors'), ['auto', 'snapshots', 'lancedb', 'none'], 'vectors');
    const relationshipWeight = oneOf(str(ctx.values, 'relationship-weight'), ['extension', 'link'] as const, 'relationship-weight');
    const embeddingModel = str(ctx.values, 'embedding-model');
    if (embeddingModel !== undefined && embeddingModel.trim() === '') throw usageError('--embedding-model must name a model', 'embedding-model');
    const settings = str(ctx.values, 'settings');
    const lancedb = str(ctx.values, 'lancedb');
    const consumer = str(ctx.values, 'consumer') as ConsumerName | undefined;
    await requireFolder(dir, 'GraphRAG output folder');
    return {
      dir,
      options: {
        ...options,
        ...(communityReports !== undefined ? { communityReports } : {}),
        ...(vectors !== undefined ? { vectors } : {}),
        ...(relationshipWeight !== undefined ? { relationshipWeight } : {}),
        ...(embeddingModel !== undefined ? { embeddingModel } : {}),
        ...(settings !== undefined ? { settings } : {}),
        ...(lancedb !== undefined ? { lancedb } : {}),
        ...(consumer !== undefined ? { consumer } : {}),
        ...(flags.documentsOnly ? { documentsOnly: true } : {}),
        ...(flags.requireStructure ? { requireStructure: true } : {}),
      } satisfies FromGraphRagOptions,
    };
  },
  async map(builder, { dir, options }, { progress }) {
    const { fromGraphRag } = await import('../../adapters/graphrag/from-graphrag.js');
    return fromGraphRag(builder, dir, { ...options, onProgress: progress });
  },
  lines: graphRagLines,
});
