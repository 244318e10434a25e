/**
 * Microsoft GraphRAG's output folder → OCTX (the mapping is written down in docs/adapters.md):
 * documents → Concept Documents, text units → chunks, entities → entities, relationships and
 * claims → events, text units in no relationship → one mention event each, text-unit and
 * entity-description embeddings → the `chunks` and `entities` vector targets. The layout (GraphRAG
 * 1.x, 2.x, 3.x) is recognised from the files and columns; the Parquet tables are read one row
 * group at a time; ids come from the id ledger keyed by what each record is, so re-indexing the
 * same corpus keeps them.
 */
import { join, resolve } from 'node:path';
import { z } from 'zod';
import type { PackageBuilder } from '../../builder/package-builder.js';
import { CONSUMER_NAMES } from '../../consumers/index.js';
import { OctxError } from '../../model/errors.js';
import { adapterWarnings } from '../shared/adapter-report.js';
import { ADAPTER_OPTION_SHAPES, checkAdapterOptions } from '../shared/adapter-options.js';
import { inputIssue } from '../shared/input-issues.js';
import { mapCommunityReports } from './community-reports.js';
import { RowChecker } from './consumer-fit.js';
import { modelFromSettings, settingsFile } from './embedding-model.js';
import { addGraphRagVectors, type VectorInput } from './embeddings.js';
import type { FromGraphRagOptions, GraphRagAdapterReport } from './graphrag-types.js';
import { IdRegistry } from './id-registry.js';
import { checkColumns, findLayoutFiles, LAYOUT_RELEASES, settleLayoutVersion, TABLE_COLUMNS, type GraphRagTable } from './layout.js';
import type { LanceDbLoader } from './lancedb.js';
import { addEntities, mapClaims, mapMentions } from './map-claims.js';
import { Sampler, throwProblems, type MapContext } from './map-context.js';
import { mapDocuments, mapTextUnits } from './map-documents.js';
import { mapRelationships, readEntities, type Graph } from './map-graph.js';
import { PARQUET_LIMITS } from './parquet/column-guard.js';
import { ParquetTable } from './parquet/parquet-table.js';

const optionsSchema = z.object({
  communityReports: z.enum(['leave-out', 'as-documents']).optional(),
  vectors: z.enum(['auto', 'snapshots', 'lancedb', 'none']).optional(),
  embeddingModel: z.string().trim().min(1).optional(),
  settings: z.string().min(1).optional(),
  lancedb: z.string().min(1).optional(),
  relationshipWeight: z.enum(['extension', 'link']).optional(),
  tempDir: z.string().min(1).optional(),
  consumer: z.enum(CONSUMER_NAMES as [string, ...string[]]).optional(),
  onProgress: z.function().optional(),
  parquetLimits: z
    .object({
      maxFooterBytes: z.number().int().positive().optional(),
      maxPageBytes: z.number().int().positive().optional(),
      maxChunkValues: z.number().int().positive().optional(),
    })
    .strict()
    .optional(),
  documentType: ADAPTER_OPTION_SHAPES.documentType,
  documentsOnly: ADAPTER_OPTION_SHAPES.documentsOnly,
  requireStructure: ADAPTER_OPTION_SHAPES.requireStructure,
});

/**
 * Maps a GraphRAG output folder into a builder (see the module comment and docs/adapters.md).
 * @param outputDir the folder GraphRAG wrote (`<project>/output`)
 * @throws OctxError `OCTX_GRAPHRAG_LAYOUT_UNKNOWN`, `OCTX_GRAPHRAG_COLUMN_MISSING`,
 *   `OCTX_GRAPHRAG_COLUMN_TYPE`, `OCTX_GRAPHRAG_ID_REUSED`, `OCTX_PARQUET_INVALID`,
 *   `OCTX_PARQUET_LIMIT`, `OCTX_ADAPTER_INPUT_INVALID` (bad rows; with `requireStructure`, text
 *   units without entities), `OCTX_CONSUMER_INCOMPATIBLE` (rows the consumer would refuse, each
 *   named), `OCTX_DEPENDENCY_MISSING` (LanceDB tables without `@lancedb/lancedb`),
 *   `OCTX_OPTIONS_INVALID`, `OCTX_IO_ERROR`, and the builder's errors
 */
export async function fromGraphRag(builder: PackageBuilder, outputDir: string, options: FromGraphRagOptions = {}): Promise<GraphRagAdapterReport> {
  return readGraphRag(builder, outputDir, options);
}

/**
 * {@link fromGraphRag} with a replaceable LanceDB loader (tests simulate an install without it).
 * @internal
 */
export async function readGraphRag(builder: PackageBuilder, outputDir: string, options: FromGraphRagOptions = {}, loadLanceDb?: LanceDbLoader): Promise<GraphRagAdapterReport> {
  checkAdapterOptions(options, optionsSchema, 'fromGraphRag options');
  const limits = { ...PARQUET_LIMITS, ...options.parquetLimits };
  const { v1Names, files } = findLayoutFiles(outputDir);
  const ctx: MapContext = { builder, warnings: [], problems: [], onProgress: options.onProgress, consumer: RowChecker.for(options.consumer) };
  const ids = new IdRegistry();
  const opened: ParquetTable[] = [];
  const open = async (table: GraphRagTable): Promise<ParquetTable | undefined> => {
    const file = files[table];
    if (file === undefined) return undefined;
    const t = await ParquetTable.open(join(outputDir, file), limits);
    opened.push(t);
    checkColumns(t, TABLE_COLUMNS[table], table.replace('_', ' '));
    return t;
  };
  try {
    const documentsTable = (await open('documents'))!;
    const unitsTable = (await open('text_units'))!;
    const version = settleLayoutVersion(v1Names, unitsTable);
    const entitiesTable = (await open('entities'))!;
    const relationshipsTable = (await open('relationships'))!;
    const covariatesTable = await open('covariates');
    const reportsTable = await open('community_reports');
    const communitiesTable = await open('communities');
    const documentType = options.documentType ?? 'Document';

    const { documents, order } = await mapDocuments(ctx, documentsTable, ids, documentType);
    throwProblems(ctx, `the GraphRAG documents in ${documentsTable.path} cannot be exported:`);
    ids.throwIfReused();
    const asDocuments = options.communityReports === 'as-documents' && reportsTable !== undefined;
    const communityReportDocuments = asDocuments ? await mapCommunityReports(ctx, reportsTable, ids, documentType) : 0;

    const untyped = new Sampler();
    const withoutEvent = new Sampler();
    let graph: Graph | undefined;
    let relationships: Awaited<ReturnType<typeof mapRelationships>> | undefined;
    let claims: Awaited<ReturnType<typeof mapClaims>> | undefined;
    let mentions: Awaited<ReturnType<typeof mapMentions>> | undefined;
    let entityCount = 0;
    if (!options.documentsOnly) {
      const units = await mapTextUnits(ctx, unitsTable, ids, documents, order);
      throwProblems(ctx, `the GraphRAG text units in ${unitsTable.path} cannot be exported:`);
      ids.throwIfReused();
      const entities = await readEntities(ctx, entitiesTable, ids, untyped);
      throwProblems(ctx, `the GraphRAG entities in ${entitiesTable.path} cannot be exported:`);
      ids.throwIfReused();
      graph = { units, entities, covered: new Uint8Array(units.ids.length), counts: { events: 0, chunkEvents: 0, eventEntities: 0 } };
      relationships = await mapRelationships(ctx, relationshipsTable, ids, graph, options.relationshipWeight === 'link');
      claims =
        covariatesTable !== undefined
          ? await mapClaims(ctx, covariatesTable, ids, graph)
          : { fromClaims: 0, withoutTextUnit: new Sampler(), withoutEntity: new Sampler(), pending: [] };
      ids.throwIfReused();
      mentions = await mapMentions(ctx, graph, claims, order, unitsTable);
      entityCount = addEntities(ctx, graph, withoutEvent);
    }

    const withoutUnits = new Sampler();
    if (graph !== undefined) for (const d of order) if (d.chunks === 0) withoutUnits.add(`knowledge/${d.path} ("${d.title}")`);
    const textUnitsWithoutEntity = mentions?.textUnitsWithoutEntity ?? new Sampler();
    const gaps = [
      options.documentsOnly ? 'documents only was requested' : '',
      withoutUnits.describe('document(s) without text units'),
      textUnitsWithoutEntity.describe('text unit(s) without any typed entity, so without events'),
      communityReportDocuments > 0 ? `${communityReportDocuments} community report document(s), which have no chunks` : '',
    ].filter(Boolean);
    if (options.requireStructure && !options.documentsOnly && gaps.length > 0) {
      throw OctxError.aggregate(
        'OCTX_ADAPTER_INPUT_INVALID',
        'the GraphRAG index cannot become a complete structure (requireStructure); no filler records are invented:',
        gaps.map((g) => inputIssue({ path: outputDir, message: g })),
      );
    }
    const structureExpected = gaps.length === 0;
    for (const line of ctx.consumer?.finish(structureExpected) ?? []) ctx.warnings.push(line);

    let vectors: GraphRagAdapterReport['vectors'] = { status: 'none', reason: 'documents only was requested', targets: [], noTarget: [] };
    if (graph !== undefined) {
      const model = await embeddingModel(outputDir, options);
      const input: VectorInput = {
        outputDir,
        lancedbDir: options.lancedb ?? join(outputDir, 'lancedb'),
        ...(options.tempDir !== undefined ? { tempDir: options.tempDir } : {}),
        mode: options.vectors ?? 'auto',
        model,
        ...(structureExpected ? {} : { documentsOnly: gaps.join('; ') }),
        ...(options.consumer !== undefined ? { consumer: options.consumer } : {}),
        limits,
        ...(loadLanceDb ? { loadLanceDb } : {}),
      };
      vectors = await addGraphRagVectors(ctx, graph, input);
    }

    warnLeftOut(ctx, untyped, withoutEvent, relationships, claims);
    const rows: Partial<Record<GraphRagTable, number>> = {};
    for (const [t, table] of [
      ['documents', documentsTable],
      ['text_units', unitsTable],
      ['entities', entitiesTable],
      ['relationships', relationshipsTable],
      ['covariates', covariatesTable],
      ['community_reports', reportsTable],
      ['communities', communitiesTable],
    ] as const)
      if (table !== undefined) rows[t] = table.rows;
    return {
      layout: { version, releases: LAYOUT_RELEASES[version], dir: resolve(outputDir), files, codecs: [...new Set(opened.flatMap((t) => t.codecs))].sort() },
      rows,
      documents: { count: order.length + communityReportDocuments, withoutTextUnits: withoutUnits.toJSON() },
      chunks: { count: graph?.units.ids.length ?? 0 },
      events: {
        count: graph?.counts.events ?? 0,
        fromRelationships: relationships?.fromRelationships ?? 0,
        fromClaims: claims?.fromClaims ?? 0,
        mentions: mentions?.mentions ?? 0,
        emptyDescriptions: relationships?.emptyDescriptions ?? 0,
      },
      entities: { count: entityCount },
      relations: { chunkEvents: graph?.counts.chunkEvents ?? 0, eventEntities: graph?.counts.eventEntities ?? 0 },
      leftOut: {
        untypedEntities: untyped.toJSON(),
        entitiesWithoutEvent: withoutEvent.toJSON(),
        relationshipsWithUnknownEndpoint: (relationships?.unknownEndpoint ?? new Sampler()).toJSON(),
        relationshipsWithoutTypedEntity: (relationships?.withoutTypedEntity ?? new Sampler()).toJSON(),
        relationshipsWithoutTextUnit: (relationships?.withoutTextUnit ?? new Sampler()).toJSON(),
        claimsWithoutTextUnit: (claims?.withoutTextUnit ?? new Sampler()).toJSON(),
        claimsWithoutEntity: (claims?.withoutEntity ?? new Sampler()).toJSON(),
        communities: communitiesTable?.rows ?? 0,
        communityReports: asDocuments ? 0 : (reportsTable?.rows ?? 0),
      },
      communityReportDocuments,
      vectors,
      structure: {
        expected: structureExpected ? 'complete' : 'documents-only',
        reason: structureExpected
          ? 'every document has text units, and every text unit an event (relationship, claim or mention) linked to typed entities'
          : `${gaps.join('; ')} (no filler records are invented)`,
        textUnitsWithoutEntity: textUnitsWithoutEntity.toJSON(),
      },
      ...adapterWarnings(builder, 'fromGraphRag', ctx.warnings),
    };
  } finally {
    await Promise.all(opened.map((t) => t.close().catch(() => undefined)));
  }
}

/** The model from the option, else from the project's settings file, else why it is unknown. */
async function embeddingModel(outputDir: string, options: FromGraphRagOptions): Promise<VectorInput['model']> {
  if (options.embeddingModel !== undefined) return { name: options.embeddingModel.trim(), from: 'option' };
  const file = settingsFile(outputDir, options.settings);
  if (file === undefined) return { why: `no settings.yaml next to ${outputDir} and no embeddingModel option` };
  const found = await modelFromSettings(file);
  return found.model !== undefined ? { name: found.model, from: 'settings' } : { why: found.why };
}

/** One warning per kind of left-out row, each naming the first rows. */
function warnLeftOut(
  ctx: MapContext,
  untyped: Sampler,
  withoutEvent: Sampler,
  relationships: Awaited<ReturnType<typeof mapRelationships>> | undefined,
  claims: Awaited<ReturnType<typeof mapClaims>> | undefined,
): void {
  const lines = [
    untyped.describe('entit(y/ies) with an empty type were left out (an entity needs a type; none is invented)'),
    relationships?.unknownEndpoint.describe('relationship(s) were left out: an endpoint names no entity'),
    relationships?.withoutTypedEntity.describe('relationship(s) were left out: both endpoints are untyped entities'),
    relationships?.withoutTextUnit.describe('relationship(s) were left out: none of their text units is in the text units table'),
    claims?.withoutTextUnit.describe('claim(s) were left out: their text unit is not in the text units table'),
    claims?.withoutEntity.describe('claim(s) were left out: they name no typed entity and their text unit has none'),
    withoutEvent.describe('typed entit(y/ies) were left out: no exported event links them'),
  ];
  for (const l of lines) if (l) ctx.warnings.push(l);
}
