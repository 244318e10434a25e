/**
 * GraphRAG's embeddings → vector targets. GraphRAG writes them to LanceDB tables
 * (`output/lancedb/<name>.lance`: `default-text_unit-text` in 1.x–2.x, `text_unit_text` in 3.x)
 * and, when configured, to `embeddings.<name>.parquet` snapshots (`id`, `embedding`). Text-unit
 * embeddings become the `chunks` target, entity-description embeddings the `entities` target;
 * the others (community reports, documents, …) have no target in the format and are counted.
 *
 * Each target is read once, one row group or batch at a time, and checked as it goes (every
 * exported record has exactly one vector, one width, finite values; whether every vector has unit
 * length is measured: `normalized` is never assumed) while its rows are staged on disk
 * (`vector-stage.ts`). Only a complete target is then added, from its stage; an incomplete one is
 * left out and reported, never padded, and nothing of it reaches the builder.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { consumerProfile } from '../../consumers/index.js';
import { OctxError } from '../../model/errors.js';
import type { GraphRagVectors, GraphRagVectorSource, GraphRagVectorTarget } from './graphrag-types.js';
import { checkColumns, SNAPSHOT_COLUMNS } from './layout.js';
import type { Graph } from './map-graph.js';
import type { MapContext } from './map-context.js';
import { openLanceDb, type LanceDatabase, type LanceDbLoader } from './lancedb.js';
import { withParquetTable, ParquetTable } from './parquet/parquet-table.js';
import { VectorStage, withStageDir } from './vector-stage.js';
import type { ParquetLimits } from './parquet/column-guard.js';

/** Allowed deviation of a unit vector's L2 norm from 1 (the builder's own tolerance for `normalized: true`). */
const UNIT_TOLERANCE = 1e-3;

/** The embeddings GraphRAG can write, by their normalised names, and the target of each. */
const EMBEDDINGS: Readonly<Record<string, 'chunks' | 'entities' | undefined>> = {
  text_unit_text: 'chunks',
  entity_description: 'entities',
  entity_title: undefined,
  community_full_content: undefined,
  community_summary: undefined,
  community_title: undefined,
  document_text: undefined,
  document_raw_content: undefined,
  relationship_description: undefined,
};

/** The embedding a snapshot or table name holds: `default-text_unit-text`, `text_unit.text` → `text_unit_text`. */
export function embeddingName(raw: string): string {
  const n = raw.replace(/[-.]/g, '_');
  return Object.keys(EMBEDDINGS).find((k) => n === k || n.endsWith(`_${k}`)) ?? n;
}

/** One place an embedding can be read from. */
interface EmbeddingRef {
  readonly embedding: string;
  readonly source: 'snapshot' | 'lancedb';
  /** The snapshot file, or the LanceDB table name. */
  readonly at: string;
  /** For the report: the file or `lancedb/<table>.lance`. */
  readonly from: string;
}

/** The embeddings of an output folder, one source per embedding (`auto`: the snapshot when there is one). */
export function findEmbeddings(outputDir: string, lancedbDir: string, mode: GraphRagVectorSource): EmbeddingRef[] {
  const refs = new Map<string, EmbeddingRef>();
  if (mode === 'auto' || mode === 'snapshots') {
    for (const f of readdirSync(outputDir).sort()) {
      const m = /^embeddings\.(.+)\.parquet$/.exec(f);
      if (m) refs.set(embeddingName(m[1]!), { embedding: embeddingName(m[1]!), source: 'snapshot', at: join(outputDir, f), from: f });
    }
  }
  if ((mode === 'auto' || mode === 'lancedb') && existsSync(lancedbDir) && statSync(lancedbDir).isDirectory()) {
    for (const f of readdirSync(lancedbDir).sort()) {
      if (!f.endsWith('.lance')) continue;
      const table = f.slice(0, -'.lance'.length);
      const embedding = embeddingName(table);
      if (!refs.has(embedding)) refs.set(embedding, { embedding, source: 'lancedb', at: table, from: `${basename(lancedbDir)}/${f}` });
    }
  }
  return [...refs.values()];
}

/** Where the vectors come from and what they must cover. */
export interface VectorInput {
  readonly outputDir: string;
  readonly lancedbDir: string;
  readonly mode: GraphRagVectorSource;
  readonly model: { readonly name: string; readonly from: 'option' | 'settings' } | { readonly why: string };
  /** Why the structure (and so every vector) will not be exported, if it will not. */
  readonly documentsOnly?: string;
  readonly consumer?: string;
  readonly limits: ParquetLimits;
  readonly loadLanceDb?: LanceDbLoader;
  /** The parent of the stage folder (default: the OS's temporary folder). */
  readonly tempDir?: string;
}

type Row = { readonly id: string; readonly vector: Float32Array };

async function* snapshotRows(ctx: MapContext, file: string, limits: ParquetLimits, kind: string): AsyncIterable<Row> {
  const table = await ParquetTable.open(file, limits);
  try {
    checkColumns(table, SNAPSHOT_COLUMNS, 'embeddings snapshot');
    for (let g = 0; g < table.rowGroups.length; g++) {
      const { id } = await table.readGroup(g, ['id']);
      // One Float32Array per row group, each row's vector a view of it (a null row is empty).
      const { offsets, values } = await table.readFloatLists(g, 'embedding');
      for (let i = 0; i < id!.length; i++) yield { id: String(id![i]), vector: values.subarray(offsets[i], offsets[i + 1]) };
      ctx.onProgress?.({ phase: 'load', kind, completed: table.rowGroups[g]!.start + table.rowGroups[g]!.rows, total: table.rows });
    }
  } finally {
    await table.close();
  }
}

/** A target after its one pass: the report's entry, and its staged rows while they may be added. */
type CheckedTarget = GraphRagVectorTarget & { readonly stage: VectorStage | undefined };

/**
 * Reads one embedding once: checks that every exported record has exactly one vector, of one
 * width, with finite values; measures whether every vector has unit length; and stages the rows
 * of its records (until a problem makes the target one that will be left out).
 */
async function checkTarget(graph: Graph, ref: EmbeddingRef, rows: AsyncIterable<Row>, stageDir: string): Promise<CheckedTarget> {
  const target = EMBEDDINGS[ref.embedding]!;
  const recordOf = target === 'chunks' ? graph.units.index : graph.entities.byId;
  // Entities that are not exported (untyped, or linked by no event) have no OCTX id: their vectors are ignored.
  const exported = target === 'chunks' ? undefined : graph.entities.octxIds;
  const records = target === 'chunks' ? graph.units.ids.length : graph.entities.octxIds.length;
  const seen = new Uint8Array(records);
  let stage: VectorStage | undefined;
  let count = 0;
  let withVector = 0;
  let ignored = 0;
  let dimensions: number | undefined;
  let unitLength = true;
  let problem: string | undefined;
  try {
    for await (const { id, vector } of rows) {
      count++;
      const record = recordOf.get(id);
      if (record === undefined || (exported !== undefined && exported[record] === undefined)) {
        ignored++;
        continue;
      }
      if (seen[record] === 1) problem ??= `id ${id} has two vectors`;
      else withVector++;
      seen[record] = 1;
      if (dimensions === undefined) dimensions = vector.length;
      else if (vector.length !== dimensions) problem ??= `vectors of ${dimensions} and ${vector.length} dimensions`;
      let sumSq = 0;
      for (let i = 0; i < vector.length; i++) {
        const x = vector[i]!;
        if (!Number.isFinite(x)) problem ??= `the vector of id ${id} holds a non-finite value`;
        sumSq += x * x;
      }
      if (Math.abs(Math.sqrt(sumSq) - 1) > UNIT_TOLERANCE) unitLength = false;
      if (problem === undefined && dimensions > 0) {
        stage ??= new VectorStage(stageDir, target, dimensions);
        stage.push(record, vector);
      }
    }
  } catch (e) {
    stage?.close();
    throw e;
  }
  const expected = exported === undefined ? records : exported.filter((x) => x !== undefined).length;
  const missing = expected - withVector;
  if (dimensions === 0) problem ??= 'its vectors are empty';
  if (problem === undefined && missing > 0)
    problem = `${missing} of ${expected} exported ${target === 'chunks' ? 'text units' : 'entities'} have no vector (a target is written only when complete)`;
  if (problem !== undefined) {
    stage?.close();
    stage = undefined;
  }
  return {
    stage,
    target,
    embedding: ref.embedding,
    source: ref.source,
    from: ref.from,
    status: problem === undefined ? 'written' : 'omitted',
    ...(problem !== undefined ? { reason: problem } : {}),
    rows: count,
    added: 0,
    missing: Math.max(0, missing),
    ignored,
    ...(dimensions !== undefined ? { dimensions } : {}),
    unitLength,
  };
}

/** Adds the text-unit and entity vectors when complete; see the module comment. */
export async function addGraphRagVectors(ctx: MapContext, graph: Graph, input: VectorInput): Promise<GraphRagVectors> {
  const refs = input.mode === 'none' ? [] : findEmbeddings(input.outputDir, input.lancedbDir, input.mode);
  const withTarget = refs.filter((r) => EMBEDDINGS[r.embedding] !== undefined);
  const noTarget = refs.filter((r) => EMBEDDINGS[r.embedding] === undefined);
  const noTargetReport = async (): Promise<GraphRagVectors['noTarget']> =>
    Promise.all(
      noTarget.map(async (r) => ({
        embedding: r.embedding,
        source: r.source,
        from: r.from,
        ...(r.source === 'snapshot' ? { rows: await withParquetTable(r.at, async (t) => t.rows, input.limits) } : {}),
      })),
    );
  const none = async (status: 'none' | 'left-out', reason: string): Promise<GraphRagVectors> => ({ status, reason, targets: [], noTarget: await noTargetReport() });
  if (input.mode === 'none') return none('none', 'vectors were not asked for (vectors: none)');
  if (withTarget.length === 0) return none('none', 'the output has no text-unit or entity embeddings (neither embeddings.*.parquet snapshots nor LanceDB tables)');
  if (input.documentsOnly !== undefined) return none('left-out', `the package is documents-only (${input.documentsOnly}); vectors need the structure`);
  if (input.consumer !== undefined && consumerProfile(input.consumer).vectors.policy === 'omit') return none('left-out', consumerProfile(input.consumer).vectors.reason);
  if (!('name' in input.model)) {
    ctx.warnings.push(
      `the vectors were left out: the embedding model is unknown (${input.model.why}); give it with --embedding-model (SDK: embeddingModel) — a model name is never guessed`,
    );
    return none('left-out', `the embedding model is unknown: ${input.model.why}`);
  }

  const model = input.model;
  let lance: LanceDatabase | undefined;
  try {
    if (withTarget.some((r) => r.source === 'lancedb')) lance = await openLanceDb(input.lancedbDir, input.loadLanceDb);
    const rowsOf = (r: EmbeddingRef, kind: string): AsyncIterable<Row> => (r.source === 'snapshot' ? snapshotRows(ctx, r.at, input.limits, kind) : lance!.rows(r.at));
    return await withStageDir(input.tempDir, async (stageDir) => {
      // One pass over each source: check and measure it, staging the rows of its records.
      const checked: CheckedTarget[] = [];
      for (const ref of withTarget) checked.push(await checkTarget(graph, ref, rowsOf(ref, `${ref.embedding} vectors`), stageDir));
      try {
        // One config for the package: a second width is left out.
        const first = checked.find((t) => t.status === 'written');
        for (const t of checked) {
          if (t.status === 'written' && t.dimensions !== first!.dimensions)
            Object.assign(t, {
              status: 'omitted',
              reason: `its ${t.dimensions} dimensions differ from the ${first!.dimensions} of ${first!.embedding} (one package has one vector config)`,
            });
        }
        const written = checked.filter((t) => t.status === 'written');
        for (const t of checked) if (t.status === 'omitted') ctx.warnings.push(`the ${t.target} vectors (${t.from}) were left out: ${t.reason}`);
        const targets = (): GraphRagVectorTarget[] => checked.map(({ stage: _stage, ...t }) => t);
        if (written.length === 0) return { status: 'left-out', reason: 'no target is complete', targets: targets(), noTarget: await noTargetReport() };

        // The complete targets, added from their stages.
        const normalized = written.every((t) => t.unitLength === true);
        const dimensions = first!.dimensions!;
        ctx.builder.setVectorConfig({ model: model.name, dimensions, normalized });
        for (const t of written) {
          const recordId = t.target === 'chunks' ? (u: number) => graph.units.chunkIds.get(u) : (e: number) => graph.entities.octxIds[e]!;
          let added = 0;
          t.stage!.replay((record, vector) => {
            ctx.builder.addVector(t.target, recordId(record), vector);
            added++;
          });
          Object.assign(t, { added });
        }
        return { status: 'written', model: model.name, modelFrom: model.from, dimensions, normalized, targets: targets(), noTarget: await noTargetReport() };
      } finally {
        for (const t of checked) t.stage?.close();
      }
    });
  } catch (e) {
    if (e instanceof OctxError) throw e;
    throw OctxError.of({ code: 'OCTX_ADAPTER_INPUT_INVALID', path: input.outputDir, message: `the embeddings could not be read: ${(e as Error).message}` });
  } finally {
    lance?.close();
  }
}
