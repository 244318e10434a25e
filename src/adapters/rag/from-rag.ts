/**
 * Seed 002 (RAG Chunk / Vector objects) → OCTX, following MAPPINGS.md §2 under the rules of
 * seed 001: documents come from the caller's originals (or, by explicit opt-in, are rebuilt from
 * a complete non-overlapping partition of their chunks), chunks keep every RAG field under
 * `x-rag`, and vectors go in only as a complete, fresh `chunks` target. Seed 002 has no events
 * and no entities, so on its own it can only become a documents-only package.
 */
import { reportAdapterWarnings } from '../adapter-warnings.js';
import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { PackageBuilder } from '../../builder/package-builder.js';
import { OctxError, issue, type OctxIssue } from '../../model/errors.js';
import { assertKnownKeys } from '../../model/option-keys.js';
import type { JsonValue } from '../../model/json.js';
import type { ChunkRecord } from '../../model/records.js';
import { prepareVectorConfig, type VectorConfigInput } from '../../vectors/config.js';
import { mergeFrontmatter, safeFileStem, scrubSecrets } from './frontmatter-merge.js';
import { isRetrievalResult, RagChunkSchema, RagVectorSchema, type RagChunk, type RagVector } from './schema.js';

/** The chunk this adapter writes: the RAG chunk's other fields are kept under `x-rag`. */
interface RagChunkRecord extends ChunkRecord {
  readonly 'x-rag': Readonly<Record<string, unknown>>;
}

/** A caller's original document, already converted to Markdown. */
export interface RagOriginalDocument {
  /** The seed 002 `doc_id` it belongs to. */
  readonly docId: string;
  /** The Markdown text (or UTF-8 bytes). Frontmatter it already has is kept. */
  readonly markdown: string | Uint8Array;
  /** Package path under `knowledge/` (default: from `doc_meta.doc_name`). */
  readonly path?: string;
}

/** The `doc_meta` fields a resolver gets. */
export interface RagDocMeta {
  readonly doc_name: string;
  readonly doc_type: string;
}

/** Returns a document's Markdown for a `doc_id`, or `undefined` when there is no original. */
export type RagDocumentResolver = (docId: string, docMeta: RagDocMeta) => string | Uint8Array | undefined | Promise<string | Uint8Array | undefined>;

/** Options of the opt-in document rebuild. */
export interface RebuildDocumentsOptions {
  /** Text put between consecutive chunk texts (default `"\n\n"`). Recorded in the frontmatter. */
  readonly separator?: string;
}

/** Where an input object came from, for error messages (the CLI passes file and line). */
export type RagLocator = (kind: 'chunk' | 'vector', index: number) => { readonly path: string; readonly line?: number } | undefined;

/** Options of {@link fromRag}. */
export interface FromRagOptions {
  /** Seed 002 Chunk objects. */
  readonly chunks: readonly unknown[];
  /** Seed 002 Vector objects (`vector_id` = `chunk_id`). */
  readonly vectors?: readonly unknown[];
  /** The caller's original documents, as a list or a resolver by `doc_id`. */
  readonly documents?: readonly RagOriginalDocument[] | RagDocumentResolver;
  /**
   * Whether the vectors were L2-normalised when generated. Seed 002 does not say, so it must come
   * from the caller whenever `vectors` are given; it is never guessed.
   */
  readonly normalized?: boolean;
  /**
   * Further embedding-pipeline settings for `vectors/config.json` (`revision`, `pooling`,
   * `input_template`, …). `model` and `dimensions` come from the vectors' `vector_meta`.
   */
  readonly vectorConfig?: Readonly<Record<string, JsonValue>>;
  /**
   * Opt-in: rebuild the body of a document that has no original by joining its chunks' texts in
   * `chunk_index` order. Only allowed when the chunks are a complete, non-overlapping partition
   * (indexes 0…n-1, no hierarchical chunks, no overlapping windows); the rebuild is recorded in
   * the document's frontmatter (`x-rag.body: rebuilt-from-chunks`).
   */
  readonly rebuildDocuments?: boolean | RebuildDocumentsOptions;
  /** Package path for a document (default: `doc_meta.doc_name` with `.md`). */
  readonly documentPath?: (docId: string, docMeta: RagDocMeta) => string;
  /** Frontmatter `type` for documents that have none (default `Document`). */
  readonly documentType?: string;
  /** Locates input objects for error messages. */
  readonly locate?: RagLocator;
  /**
   * Hand complete vectors to the builder (default true). The CLI passes `false` because a
   * seed 002-only package is documents-only; the vectors are still checked and reported.
   */
  readonly addVectors?: boolean;
}

/** One document the adapter added. */
export interface RagDocumentOutcome {
  readonly path: string;
  readonly documentId: string;
  readonly body: 'original' | 'rebuilt-from-chunks';
  readonly chunks: number;
}

/** A count with the first few source ids. */
export interface RagSample {
  readonly count: number;
  readonly sample: readonly string[];
}

/** What happened to the vectors. */
export type RagVectorsOutcome =
  | { readonly status: 'none'; readonly reason: string }
  | {
      /** Every chunk has a fresh status-1 vector from one pipeline. */
      readonly status: 'complete';
      /** Whether they were handed to the builder (`addVectors`, default true). */
      readonly added: boolean;
      readonly target: 'chunks';
      readonly rows: number;
      readonly model: string;
      readonly dimensions: number;
      readonly normalized: boolean;
      readonly fingerprint: string;
      /** Vectors given for chunks that are not in the input (ignored). */
      readonly unknown: RagSample;
    }
  | {
      readonly status: 'omitted';
      readonly reason: 'incomplete' | 'mixed-pipelines';
      readonly message: string;
      readonly given: number;
      readonly fresh: number;
      /** `text_md5` differs from the MD5 of `chunk_text`: the vector embeds other text. */
      readonly stale: RagSample;
      /** `status` 0 (disabled) or 2 (pending update). */
      readonly inactive: RagSample;
      /** Chunks without any vector. */
      readonly missing: RagSample;
      readonly unknown: RagSample;
    };

/** What {@link fromRag} mapped, and what it left out and why. */
export interface RagAdapterReport {
  /** The distinct `kb_id`s seen (one asset should hold one knowledge base). */
  readonly kbIds: readonly string[];
  readonly documents: { readonly count: number; readonly fromOriginals: number; readonly rebuilt: number; readonly byDocId: Readonly<Record<string, RagDocumentOutcome>> };
  readonly chunks: { readonly count: number };
  /** Source `chunk_id` → OCTX chunk id, for linking real extracted events to the chunks. */
  readonly chunkIds: Readonly<Record<string, string>>;
  readonly vectors: RagVectorsOutcome;
  /**
   * Seed 002 has no events or entities: on its own the result is documents-only. The chunks are
   * in the builder; a caller with a real extraction run can link events to `chunkIds`.
   */
  readonly structure: { readonly status: 'documents-only'; readonly reason: string };
  /** Secret-looking keys dropped from `extend` and unknown fields (paths only). */
  readonly scrubbedKeys: readonly string[];
  readonly warnings: readonly string[];
  /** The same warnings as data: `OCTX_ADAPTER_WARNING` issues, also reported to the builder (so the export's `report.warnings` lists them and `strict` refuses them). */
  readonly issues: readonly OctxIssue[];
}

const optionsSchema = z.object({
  chunks: z.array(z.unknown(), { error: 'must be an array of seed 002 Chunk objects' }),
  vectors: z.array(z.unknown(), { error: 'must be an array of seed 002 Vector objects' }).optional(),
  documents: z
    .union([z.array(z.object({ docId: z.string().min(1), markdown: z.union([z.string(), z.instanceof(Uint8Array)]), path: z.string().min(1).optional() })), z.function()], {
      error: 'must be a list of { docId, markdown, path? } or a function (docId, docMeta) => markdown',
    })
    .optional(),
  normalized: z.boolean({ error: 'must be true or false' }).optional(),
  vectorConfig: z.record(z.string(), z.unknown()).optional(),
  rebuildDocuments: z.union([z.boolean(), z.object({ separator: z.string().optional() })]).optional(),
  documentPath: z.function().optional(),
  documentType: z.string().min(1).optional(),
  locate: z.function().optional(),
  addVectors: z.boolean().optional(),
});

const SAMPLE = 10;
const DEFAULT_SEPARATOR = '\n\n';
/** Shortest suffix/prefix match between consecutive chunks that counts as an overlapping window. */
const OVERLAP_MIN = 12;

const sample = (ids: readonly string[]): RagSample => ({ count: ids.length, sample: ids.slice(0, SAMPLE) });
const md5 = (text: string): string => createHash('md5').update(text, 'utf8').digest('hex');
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

function describeZod(e: z.ZodError): { field: string; message: string }[] {
  return e.issues.map((i) => ({ field: i.path.map(String).join('.'), message: i.message }));
}

/** Length of the longest suffix of `a` that is a prefix of `b` (at least 12, `OVERLAP_MIN`), else 0. */
export function chunkOverlap(a: string, b: string): number {
  const max = Math.min(a.length, b.length);
  for (let k = max; k >= OVERLAP_MIN; k--) {
    if (a.endsWith(b.slice(0, k))) return k;
  }
  return 0;
}

/**
 * Maps seed 002 Chunk and Vector objects into a builder:
 *
 * - documents from the caller's originals (frontmatter gains `type`, `title`, `octx.document_id`
 *   and `x-rag: {doc_id, doc_name, doc_type, body}` where missing); with
 *   `rebuildDocuments`, a document without an original is rebuilt from its chunks when they are
 *   a complete non-overlapping partition — otherwise the adapter refuses with the reason;
 * - each chunk → `{id, document_id, ordinal: chunk_index, text: chunk_text, x-rag: {…every
 *   other RAG field…}}`; the source `chunk_id` gets a stable UUIDv7 through the id ledger;
 * - vectors → the `chunks` target only when every chunk has a status-1 vector whose `text_md5`
 *   matches its text (stale or missing vectors make the target incomplete: it is omitted and
 *   reported, never padded); `model` = `embedding_model`, `dimensions` = `vector_dim`,
 *   `normalized` from the caller.
 *
 * Retrieval Result objects are refused: they are query output, not publishable knowledge.
 * @throws OctxError `OCTX_ADAPTER_INPUT_INVALID` (every bad object listed), `OCTX_OPTIONS_INVALID`,
 *   and the builder's errors
 */
export async function fromRag(builder: PackageBuilder, options: FromRagOptions): Promise<RagAdapterReport> {
  assertKnownKeys(options, Object.keys(optionsSchema.shape), 'fromRag options');
  const parsedOptions = optionsSchema.safeParse(options);
  if (!parsedOptions.success) {
    throw OctxError.aggregate(
      'OCTX_OPTIONS_INVALID',
      'fromRag options are invalid:',
      describeZod(parsedOptions.error).map((d) => issue({ code: 'OCTX_OPTIONS_INVALID', field: d.field, message: `${d.field} ${d.message}` })),
    );
  }
  const locate = options.locate ?? (() => undefined);
  const where: LocateObject = (kind, index) => {
    const at = locate(kind, index);
    return at ? { path: at.path, ...(at.line !== undefined ? { line: at.line } : {}) } : {};
  };
  const warnings: string[] = [];
  const scrubbedKeys: string[] = [];

  refuseRetrievalResults(options, where);
  const chunks = parseChunks(options, where);
  const kbIds = [...new Set(chunks.map(({ chunk }) => chunk.kb_id))];
  if (kbIds.length > 1) warnings.push(`the chunks come from ${kbIds.length} knowledge bases (${kbIds.join(', ')}); they all go into one asset`);

  const byDoc = chunksByDocument(chunks);
  const rebuild =
    options.rebuildDocuments === undefined || options.rebuildDocuments === false
      ? undefined
      : { separator: (typeof options.rebuildDocuments === 'object' ? options.rebuildDocuments.separator : undefined) ?? DEFAULT_SEPARATOR };
  const planned = await planDocuments(byDoc, options, rebuild, warnings);
  const { byDocId, documentIds } = addDocuments(builder, planned, byDoc, options, rebuild, warnings);
  const chunkIds = addChunkRecords(builder, chunks, documentIds, where, warnings, scrubbedKeys);
  const vectors = addRagVectors(
    builder,
    options,
    chunks.map(({ chunk }) => chunk),
    chunkIds,
    where,
    warnings,
  );

  return {
    kbIds,
    documents: {
      count: planned.length,
      fromOriginals: planned.filter((d) => d.body === 'original').length,
      rebuilt: planned.filter((d) => d.body === 'rebuilt-from-chunks').length,
      byDocId,
    },
    chunks: { count: chunks.length },
    chunkIds,
    vectors,
    structure: {
      status: 'documents-only',
      reason:
        'seed 002 carries no events or entities, and sag-structured/0.1 needs a real extraction run (chunks alone are no capability; no chunk is turned into an event). The package is documents-only unless real extracted events and entities are linked to report.chunkIds',
    },
    scrubbedKeys,
    warnings,
    issues: reportAdapterWarnings(builder, 'fromRag', warnings),
  };
}

/** Where input object `index` of a kind came from, for an issue (none when the caller gave no `locate`). */
type LocateObject = (kind: 'chunk' | 'vector', index: number) => { path?: string; line?: number };

// ── refuse query output ─────────────────────────────────────────────────────────────────

/**
 * Refuses seed 002 Retrieval Result objects among the chunks and vectors: they are query
 * output, not publishable knowledge.
 * @throws OctxError `OCTX_ADAPTER_INPUT_INVALID`, one issue per Retrieval Result
 */
function refuseRetrievalResults(options: FromRagOptions, where: LocateObject): void {
  const refused: OctxIssue[] = [];
  const scanRetrieval = (list: readonly unknown[], kind: 'chunk' | 'vector') =>
    list.forEach((v, i) => {
      if (isRetrievalResult(v)) {
        refused.push(
          issue({
            code: 'OCTX_ADAPTER_INPUT_INVALID',
            ...where(kind, i),
            field: 'retrieval_id',
            message:
              'this is a seed 002 Retrieval Result (retrieval_id / query_info / result_list): query output, not publishable knowledge. Export the Chunk and Vector objects the results came from instead',
          }),
        );
      }
    });
  scanRetrieval(options.chunks, 'chunk');
  scanRetrieval(options.vectors ?? [], 'vector');
  if (refused.length > 0) throw OctxError.aggregate('OCTX_ADAPTER_INPUT_INVALID', 'Retrieval Result objects cannot be exported:', refused);
}

// ── chunks ──────────────────────────────────────────────────────────────────────────────

/** A valid Chunk object and its position in the input. */
interface IndexedChunk {
  chunk: RagChunk;
  index: number;
}

/**
 * Parses the Chunk objects: each must match the schema and have a non-empty, well-formed text,
 * a `chunk_id` of its own and a `chunk_index` of its own within its document.
 * @throws OctxError `OCTX_ADAPTER_INPUT_INVALID`, every bad object listed
 */
function parseChunks(options: FromRagOptions, where: LocateObject): IndexedChunk[] {
  const problems: OctxIssue[] = [];
  const chunks: IndexedChunk[] = [];
  const seenChunkIds = new Map<string, number>();
  const ordinals = new Map<string, Map<number, string>>();
  options.chunks.forEach((raw, index) => {
    const parsed = RagChunkSchema.safeParse(raw);
    const rawId = raw !== null && typeof raw === 'object' ? (raw as Record<string, unknown>).chunk_id : undefined;
    const recordId = typeof rawId === 'string' ? rawId : undefined;
    if (!parsed.success) {
      for (const d of describeZod(parsed.error)) {
        problems.push(
          issue({
            code: 'OCTX_ADAPTER_INPUT_INVALID',
            ...where('chunk', index),
            ...(recordId ? { recordId } : {}),
            field: d.field,
            message: `Chunk ${d.field || 'object'} ${d.message}`,
          }),
        );
      }
      return;
    }
    const c = parsed.data;
    if (c.chunk_text.trim() === '') {
      problems.push(
        issue({
          code: 'OCTX_ADAPTER_INPUT_INVALID',
          ...where('chunk', index),
          recordId: c.chunk_id,
          field: 'chunk_text',
          message: 'chunk_text is empty: an empty text is not a chunk (it is refused, never padded)',
        }),
      );
      return;
    }
    if (!c.chunk_text.isWellFormed()) {
      problems.push(
        issue({ code: 'OCTX_ADAPTER_INPUT_INVALID', ...where('chunk', index), recordId: c.chunk_id, field: 'chunk_text', message: 'chunk_text contains a lone UTF-16 surrogate' }),
      );
      return;
    }
    const first = seenChunkIds.get(c.chunk_id);
    if (first !== undefined) {
      problems.push(
        issue({
          code: 'OCTX_ADAPTER_INPUT_INVALID',
          ...where('chunk', index),
          recordId: c.chunk_id,
          field: 'chunk_id',
          message: `chunk_id ${c.chunk_id} appears twice (first as chunk #${first + 1})`,
        }),
      );
      return;
    }
    seenChunkIds.set(c.chunk_id, index);
    let perDoc = ordinals.get(c.doc_id);
    if (!perDoc) ordinals.set(c.doc_id, (perDoc = new Map<number, string>()));
    const clash = perDoc.get(c.chunk_meta.chunk_index);
    if (clash !== undefined) {
      problems.push(
        issue({
          code: 'OCTX_ADAPTER_INPUT_INVALID',
          ...where('chunk', index),
          recordId: c.chunk_id,
          field: 'chunk_meta.chunk_index',
          message: `doc_id ${c.doc_id} has chunk_index ${c.chunk_meta.chunk_index} twice (chunks ${clash} and ${c.chunk_id}); OCTX ordinals are unique per document — renumber the chunks or export one chunking level`,
        }),
      );
      return;
    }
    perDoc.set(c.chunk_meta.chunk_index, c.chunk_id);
    chunks.push({ chunk: c, index });
  });
  if (problems.length > 0) throw OctxError.aggregate('OCTX_ADAPTER_INPUT_INVALID', 'seed 002 Chunk objects are invalid:', problems);
  return chunks;
}

// ── documents ───────────────────────────────────────────────────────────────────────────

/** The chunks of each `doc_id` (in input order of the documents), sorted by `chunk_index`. */
function chunksByDocument(chunks: readonly IndexedChunk[]): Map<string, RagChunk[]> {
  const byDoc = new Map<string, RagChunk[]>();
  for (const { chunk } of chunks) {
    const list = byDoc.get(chunk.doc_id);
    if (list) list.push(chunk);
    else byDoc.set(chunk.doc_id, [chunk]);
  }
  for (const list of byDoc.values()) list.sort((a, b) => a.chunk_meta.chunk_index - b.chunk_meta.chunk_index);
  return byDoc;
}

/** A document to add: its Markdown, from the caller's original or rebuilt from its chunks. */
interface PlannedDoc {
  docId: string;
  meta: RagDocMeta;
  markdown: string;
  body: 'original' | 'rebuilt-from-chunks';
  path?: string;
}

/**
 * Finds each document's Markdown: the caller's original (from the list, else the resolver), or,
 * with `rebuildDocuments`, its chunks joined when they are a complete non-overlapping partition.
 * @throws OctxError `OCTX_ADAPTER_INPUT_INVALID` (no original, not rebuildable, not UTF-8), every
 *   document listed
 */
async function planDocuments(
  byDoc: ReadonlyMap<string, RagChunk[]>,
  options: FromRagOptions,
  rebuild: { separator: string } | undefined,
  warnings: string[],
): Promise<PlannedDoc[]> {
  const originals = new Map<string, RagOriginalDocument>();
  if (Array.isArray(options.documents)) {
    for (const d of options.documents as readonly RagOriginalDocument[]) originals.set(d.docId, d);
  }
  const resolver = typeof options.documents === 'function' ? options.documents : undefined;
  const planned: PlannedDoc[] = [];
  const docProblems: OctxIssue[] = [];
  for (const [docId, list] of byDoc) {
    const meta: RagDocMeta = { doc_name: list[0]!.doc_meta.doc_name, doc_type: list[0]!.doc_meta.doc_type };
    if (list.some((c) => c.doc_meta.doc_name !== meta.doc_name)) warnings.push(`doc_id ${docId}: chunks disagree on doc_meta.doc_name; using "${meta.doc_name}"`);
    let original: string | Uint8Array | undefined = originals.get(docId)?.markdown;
    if (original === undefined && resolver) original = await resolver(docId, meta);
    if (original !== undefined) {
      let text: string;
      try {
        text = typeof original === 'string' ? original : utf8.decode(original);
      } catch {
        docProblems.push(issue({ code: 'OCTX_ADAPTER_INPUT_INVALID', recordId: docId, field: 'documents', message: `the original of doc_id ${docId} is not valid UTF-8` }));
        continue;
      }
      const path = originals.get(docId)?.path;
      planned.push({ docId, meta, markdown: text, body: 'original', ...(path !== undefined ? { path } : {}) });
      continue;
    }
    if (!rebuild) {
      docProblems.push(
        issue({
          code: 'OCTX_ADAPTER_INPUT_INVALID',
          recordId: docId,
          field: 'documents',
          message: `no original document for doc_id ${docId} ("${meta.doc_name}"): seed 002 carries no document text. Supply the converted original, or opt in to rebuilding it from its chunks`,
        }),
      );
      continue;
    }
    const why = rebuildRefusal(list);
    if (why) {
      docProblems.push(
        issue({
          code: 'OCTX_ADAPTER_INPUT_INVALID',
          recordId: docId,
          field: 'rebuildDocuments',
          message: `cannot rebuild doc_id ${docId} ("${meta.doc_name}") from its chunks: ${why}. Supply the original document instead`,
        }),
      );
      continue;
    }
    planned.push({ docId, meta, markdown: `${list.map((c) => c.chunk_text).join(rebuild.separator)}\n`, body: 'rebuilt-from-chunks' });
  }
  if (docProblems.length > 0) throw OctxError.aggregate('OCTX_ADAPTER_INPUT_INVALID', 'documents are missing for some chunks:', docProblems);
  return planned;
}

/**
 * Adds the planned documents under unique paths, with `type`, `title`, `octx.document_id` and
 * `x-rag` merged into their frontmatter.
 * @returns the outcome per `doc_id`, and `doc_id` → OCTX document id
 */
function addDocuments(
  builder: PackageBuilder,
  planned: readonly PlannedDoc[],
  byDoc: ReadonlyMap<string, RagChunk[]>,
  options: FromRagOptions,
  rebuild: { separator: string } | undefined,
  warnings: string[],
): { byDocId: Record<string, RagDocumentOutcome>; documentIds: Map<string, string> } {
  const usedPaths = new Set<string>();
  const byDocId: Record<string, RagDocumentOutcome> = {};
  const documentIds = new Map<string, string>();
  for (const d of planned) {
    const path = uniquePath(d.path ?? options.documentPath?.(d.docId, d.meta) ?? defaultDocumentPath(d.docId, d.meta), d.docId, usedPaths);
    const stem = d.meta.doc_name.replace(/\.[^./\\]{1,10}$/, '').trim() || d.meta.doc_name;
    const xrag: Record<string, JsonValue> = { doc_id: d.docId, doc_name: d.meta.doc_name, doc_type: d.meta.doc_type, body: d.body };
    if (d.body === 'rebuilt-from-chunks') xrag.rebuilt_from_chunks = { chunks: byDoc.get(d.docId)!.length, order: 'chunk_index', separator: rebuild!.separator };
    const merged = mergeFrontmatter(
      d.markdown,
      { type: options.documentType ?? 'Document', title: stem, documentId: builder.ids.document(`rag:${d.docId}`), extras: { 'x-rag': xrag } },
      `knowledge/${path}`,
    );
    if (merged.keptExtras.length > 0) warnings.push(`knowledge/${path}: the original already has ${merged.keptExtras.join(', ')} in its frontmatter; kept as is`);
    builder.addDocument({ path, markdown: merged.markdown });
    const documentId = builder.documentId(path);
    documentIds.set(d.docId, documentId);
    byDocId[d.docId] = { path: `knowledge/${path}`, documentId, body: d.body, chunks: byDoc.get(d.docId)!.length };
  }
  return { byDocId, documentIds };
}

// ── chunk records ───────────────────────────────────────────────────────────────────────

/**
 * Adds each chunk as `{id, document_id, ordinal: chunk_index, text: chunk_text, x-rag: {…every
 * other RAG field, secrets scrubbed…}}`, with a stable id from the ledger per source `chunk_id`.
 * @returns source `chunk_id` → OCTX chunk id
 */
function addChunkRecords(
  builder: PackageBuilder,
  chunks: readonly IndexedChunk[],
  documentIds: ReadonlyMap<string, string>,
  where: LocateObject,
  warnings: string[],
  scrubbedKeys: string[],
): Record<string, string> {
  const chunkIds: Record<string, string> = {};
  for (const { chunk } of chunks) chunkIds[chunk.chunk_id] = builder.ids.chunk(`rag:${chunk.chunk_id}`);
  for (const { chunk, index } of chunks) {
    const { chunk_text: text, ...rest } = chunk;
    const xrag = JSON.parse(JSON.stringify(scrubSecrets(rest, 'x-rag', scrubbedKeys))) as Record<string, unknown>;
    if (chunk.parent_chunk_id !== undefined) {
      const parent = chunkIds[chunk.parent_chunk_id];
      if (parent !== undefined) xrag.parent_chunk = parent;
      else warnings.push(`chunk ${chunk.chunk_id}: parent_chunk_id ${chunk.parent_chunk_id} is not among the exported chunks`);
    }
    try {
      builder.addChunk<RagChunkRecord>({ id: chunkIds[chunk.chunk_id]!, document_id: documentIds.get(chunk.doc_id)!, ordinal: chunk.chunk_meta.chunk_index, text, 'x-rag': xrag });
    } catch (e) {
      if (e instanceof OctxError) throw new OctxError(e.code, e.message, { issues: e.issues.map((i) => issue({ ...i, ...where('chunk', index) })), cause: e });
      throw e;
    }
  }
  return chunkIds;
}

/** Why a document cannot be rebuilt from these chunks (sorted by `chunk_index`), or `undefined`. */
export function rebuildRefusal(list: readonly RagChunk[]): string | undefined {
  const hierarchical = list.find((c) => c.parent_chunk_id !== undefined || c.chunk_meta.chunk_type === 'hierarchical');
  if (hierarchical) return `chunk ${hierarchical.chunk_id} is hierarchical (parent/child chunks repeat text)`;
  for (let i = 0; i < list.length; i++) {
    const got = list[i]!.chunk_meta.chunk_index;
    if (got !== i) return `chunk_index ${i} is missing (the chunks are not a complete partition; the text between them is unknown)`;
  }
  for (let i = 1; i < list.length; i++) {
    const k = chunkOverlap(list[i - 1]!.chunk_text, list[i]!.chunk_text);
    if (k > 0) return `chunks ${list[i - 1]!.chunk_meta.chunk_index} and ${list[i]!.chunk_meta.chunk_index} overlap by ${k} characters (overlapping windows would duplicate text)`;
  }
  return undefined;
}

function defaultDocumentPath(docId: string, meta: RagDocMeta): string {
  const stem = safeFileStem(meta.doc_name.replace(/\.[^./\\]{1,10}$/, '')) || safeFileStem(docId) || 'document';
  return `${stem}.md`;
}

function uniquePath(path: string, docId: string, used: Set<string>): string {
  let p = path.normalize('NFC');
  const base = p.replace(/\.md$/, '');
  const name = base.split('/').at(-1);
  if (name === 'index' || name === 'log') p = `${base}-${safeFileStem(docId).slice(0, 12)}.md`;
  if (used.has(p)) p = `${base}-${safeFileStem(docId).slice(0, 12)}.md`;
  let n = 2;
  while (used.has(p)) p = `${base}-${n++}.md`;
  used.add(p);
  return p;
}

function addRagVectors(
  builder: PackageBuilder,
  options: FromRagOptions,
  chunks: readonly RagChunk[],
  chunkIds: Readonly<Record<string, string>>,
  where: (kind: 'chunk' | 'vector', index: number) => { path?: string; line?: number },
  warnings: string[],
): RagVectorsOutcome {
  const input = options.vectors ?? [];
  if (input.length === 0) return { status: 'none', reason: 'no Vector objects were given' };
  if (options.normalized === undefined) {
    throw OctxError.of({
      code: 'OCTX_ADAPTER_INPUT_INVALID',
      field: 'normalized',
      message:
        'seed 002 does not say whether the vectors are normalized, and vectors/config.json requires it: pass normalized true or false from your embedding pipeline (it is never guessed)',
    });
  }
  const problems: OctxIssue[] = [];
  const byId = new Map<string, RagVector>();
  input.forEach((raw, index) => {
    const parsed = RagVectorSchema.safeParse(raw);
    const rawId = raw !== null && typeof raw === 'object' ? (raw as Record<string, unknown>).vector_id : undefined;
    const recordId = typeof rawId === 'string' ? { recordId: rawId } : {};
    if (!parsed.success) {
      for (const d of describeZod(parsed.error))
        problems.push(issue({ code: 'OCTX_ADAPTER_INPUT_INVALID', ...where('vector', index), ...recordId, field: d.field, message: `Vector ${d.field || 'object'} ${d.message}` }));
      return;
    }
    const v = parsed.data;
    const bad = v.embedding.findIndex((x) => typeof x !== 'number' || !Number.isFinite(x));
    if (bad >= 0) {
      problems.push(
        issue({ code: 'OCTX_ADAPTER_INPUT_INVALID', ...where('vector', index), ...recordId, field: `embedding[${bad}]`, message: 'embedding values must be finite numbers' }),
      );
      return;
    }
    if (v.embedding.length !== v.vector_meta.vector_dim) {
      problems.push(
        issue({
          code: 'OCTX_ADAPTER_INPUT_INVALID',
          ...where('vector', index),
          ...recordId,
          field: 'embedding',
          message: `embedding has ${v.embedding.length} values but vector_meta.vector_dim is ${v.vector_meta.vector_dim}`,
        }),
      );
      return;
    }
    if (byId.has(v.vector_id)) {
      problems.push(
        issue({
          code: 'OCTX_ADAPTER_INPUT_INVALID',
          ...where('vector', index),
          ...recordId,
          field: 'vector_id',
          message: `vector_id ${v.vector_id} appears twice (vector_id = chunk_id, one vector per chunk)`,
        }),
      );
      return;
    }
    byId.set(v.vector_id, v as RagVector);
  });
  if (problems.length > 0) throw OctxError.aggregate('OCTX_ADAPTER_INPUT_INVALID', 'seed 002 Vector objects are invalid:', problems);

  const known = new Set(chunks.map((c) => c.chunk_id));
  const unknown = [...byId.keys()].filter((id) => !known.has(id));
  if (unknown.length > 0) warnings.push(`${unknown.length} vector(s) belong to no given chunk and were ignored (first: ${unknown.slice(0, 3).join(', ')})`);
  const stale: string[] = [];
  const inactive: string[] = [];
  const missing: string[] = [];
  let fresh = 0;
  for (const c of chunks) {
    const v = byId.get(c.chunk_id);
    if (!v) missing.push(c.chunk_id);
    else if (v.status !== 1) inactive.push(c.chunk_id);
    else if (v.vector_meta.text_md5.toLowerCase() !== md5(c.chunk_text)) stale.push(c.chunk_id);
    else fresh++;
  }
  const used = chunks.map((c) => byId.get(c.chunk_id)).filter((v): v is RagVector => v !== undefined);
  const models = [...new Set(used.map((v) => v.vector_meta.embedding_model))];
  const dims = [...new Set(used.map((v) => v.vector_meta.vector_dim))];
  const counts = { given: input.length, fresh, stale: sample(stale), inactive: sample(inactive), missing: sample(missing), unknown: sample(unknown) };
  if (models.length > 1 || dims.length > 1) {
    return {
      status: 'omitted',
      reason: 'mixed-pipelines',
      message: `the vectors come from more than one embedding pipeline (models ${models.join(', ')}; dimensions ${dims.join(', ')}); one package has one vector config`,
      ...counts,
    };
  }
  if (fresh !== chunks.length) {
    const parts = [
      stale.length ? `${stale.length} stale (text_md5 ≠ MD5 of chunk_text)` : '',
      inactive.length ? `${inactive.length} not status 1` : '',
      missing.length ? `${missing.length} missing` : '',
    ].filter(Boolean);
    return { status: 'omitted', reason: 'incomplete', message: `the chunks target would be incomplete: ${parts.join(', ')}; a partial vector set is never shipped`, ...counts };
  }
  const extra = { ...(options.vectorConfig ?? {}) };
  for (const key of ['model', 'dimensions', 'normalized', 'fingerprint'] as const) {
    if (extra[key] !== undefined) {
      throw OctxError.of({
        code: 'OCTX_OPTIONS_INVALID',
        field: `vectorConfig.${key}`,
        message: `vectorConfig.${key} is set by the adapter (model and dimensions come from vector_meta, normalized from the normalized option); remove it`,
      });
    }
  }
  if (extra.revision === undefined)
    warnings.push(
      'no vector revision was given: the fingerprint identifies only the model name, dimensions and normalization; pass revision and other pipeline settings so consumers can trust a match',
    );
  const config = prepareVectorConfig({ model: models[0]!, dimensions: dims[0]!, normalized: options.normalized, ...(extra as Record<string, JsonValue>) });
  const added = options.addVectors ?? true;
  if (added) {
    builder.setVectorConfig(config.config as unknown as VectorConfigInput);
    for (const c of chunks) builder.addVector('chunks', chunkIds[c.chunk_id]!, byId.get(c.chunk_id)!.embedding);
  }
  return {
    status: 'complete',
    added,
    target: 'chunks',
    rows: chunks.length,
    model: models[0]!,
    dimensions: dims[0]!,
    normalized: options.normalized,
    fingerprint: config.fingerprint,
    unknown: counts.unknown,
  };
}
