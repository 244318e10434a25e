/**
 * Seed 002 (RAG Chunk / Vector objects) → OCTX, following MAPPINGS.md §2 under the rules of
 * seed 001: documents come from the caller's originals (or, by explicit opt-in, are rebuilt from
 * a complete non-overlapping partition of their chunks), chunks keep every RAG field under
 * `x-rag`, and vectors go in only as a complete, fresh `chunks` target. Seed 002 has no events
 * and no entities, so on its own it can only become a documents-only package.
 */
import { z } from 'zod';
import type { PackageBuilder } from '../../builder/package-builder.js';
import { OctxError, issue, type OctxIssue } from '../../model/errors.js';
import type { JsonValue } from '../../model/json.js';
import type { ChunkRecord } from '../../model/records.js';
import { adapterWarnings } from '../shared/adapter-report.js';
import { ADAPTER_OPTION_SHAPES, checkAdapterOptions } from '../shared/adapter-options.js';
import { addAdapterDocument, decodeDocumentText } from '../shared/add-document.js';
import { claimDocumentPath, safeFileStem, withoutFileExtension } from '../shared/document-paths.js';
import { inputIssue, issueLocation, throwInputProblems, zodProblems, type InputLocation } from '../shared/input-issues.js';
import { scrubSecrets } from '../shared/secrets.js';
import { addRagVectors } from './rag-vectors.js';
import type { FromRagOptions, RagAdapterReport, RagDocMeta, RagDocumentOutcome, RagOriginalDocument } from './rag-types.js';
import { isRetrievalResult, RagChunkSchema, RETRIEVAL_RESULT_REFUSAL, type RagChunk } from './schema.js';

/** The chunk this adapter writes: the RAG chunk's other fields are kept under `x-rag`. */
interface RagChunkRecord extends ChunkRecord {
  readonly 'x-rag': Readonly<Record<string, unknown>>;
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
  documentPath: ADAPTER_OPTION_SHAPES.documentPath,
  documentType: ADAPTER_OPTION_SHAPES.documentType,
  locate: ADAPTER_OPTION_SHAPES.locate,
  addVectors: z.boolean().optional(),
});

const DEFAULT_SEPARATOR = '\n\n';
/** Shortest suffix/prefix match between consecutive chunks that counts as an overlapping window. */
const OVERLAP_MIN = 12;

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
  checkAdapterOptions(options, optionsSchema, 'fromRag options');
  const where: LocateObject = (kind, index) => issueLocation(options.locate?.(kind, index));
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
    ...adapterWarnings(builder, 'fromRag', warnings),
  };
}

/** Where input object `index` of a kind came from, for an issue (none when the caller gave no `locate`). */
type LocateObject = (kind: 'chunk' | 'vector', index: number) => Partial<InputLocation>;

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
        refused.push(inputIssue({ ...where(kind, i), field: 'retrieval_id', message: RETRIEVAL_RESULT_REFUSAL }));
      }
    });
  scanRetrieval(options.chunks, 'chunk');
  scanRetrieval(options.vectors ?? [], 'vector');
  throwInputProblems('Retrieval Result objects cannot be exported:', refused);
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
      for (const d of zodProblems(parsed.error)) {
        problems.push(inputIssue({ ...where('chunk', index), ...(recordId ? { recordId } : {}), field: d.field, message: `Chunk ${d.field || 'object'} ${d.message}` }));
      }
      return;
    }
    const c = parsed.data;
    const refuse = (field: string, message: string): void => void problems.push(inputIssue({ ...where('chunk', index), recordId: c.chunk_id, field, message }));
    if (c.chunk_text.trim() === '') return refuse('chunk_text', 'chunk_text is empty: an empty text is not a chunk (it is refused, never padded)');
    if (!c.chunk_text.isWellFormed()) return refuse('chunk_text', 'chunk_text contains a lone UTF-16 surrogate');
    const first = seenChunkIds.get(c.chunk_id);
    if (first !== undefined) return refuse('chunk_id', `chunk_id ${c.chunk_id} appears twice (first as chunk #${first + 1})`);
    seenChunkIds.set(c.chunk_id, index);
    let perDoc = ordinals.get(c.doc_id);
    if (!perDoc) ordinals.set(c.doc_id, (perDoc = new Map<number, string>()));
    const clash = perDoc.get(c.chunk_meta.chunk_index);
    if (clash !== undefined) {
      return refuse(
        'chunk_meta.chunk_index',
        `doc_id ${c.doc_id} has chunk_index ${c.chunk_meta.chunk_index} twice (chunks ${clash} and ${c.chunk_id}); OCTX ordinals are unique per document — renumber the chunks or export one chunking level`,
      );
    }
    perDoc.set(c.chunk_meta.chunk_index, c.chunk_id);
    chunks.push({ chunk: c, index });
  });
  throwInputProblems('seed 002 Chunk objects are invalid:', problems);
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
      const text = decodeDocumentText(original);
      if (text === undefined) {
        docProblems.push(inputIssue({ recordId: docId, field: 'documents', message: `the original of doc_id ${docId} is not valid UTF-8` }));
        continue;
      }
      const path = originals.get(docId)?.path;
      planned.push({ docId, meta, markdown: text, body: 'original', ...(path !== undefined ? { path } : {}) });
      continue;
    }
    if (!rebuild) {
      docProblems.push(
        inputIssue({
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
        inputIssue({
          recordId: docId,
          field: 'rebuildDocuments',
          message: `cannot rebuild doc_id ${docId} ("${meta.doc_name}") from its chunks: ${why}. Supply the original document instead`,
        }),
      );
      continue;
    }
    planned.push({ docId, meta, markdown: `${list.map((c) => c.chunk_text).join(rebuild.separator)}\n`, body: 'rebuilt-from-chunks' });
  }
  throwInputProblems('documents are missing for some chunks:', docProblems);
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
    const path = claimDocumentPath(d.path ?? options.documentPath?.(d.docId, d.meta) ?? defaultDocumentPath(d.docId, d.meta), d.docId, usedPaths);
    const stem = withoutFileExtension(d.meta.doc_name).trim() || d.meta.doc_name;
    const xrag: Record<string, JsonValue> = { doc_id: d.docId, doc_name: d.meta.doc_name, doc_type: d.meta.doc_type, body: d.body };
    if (d.body === 'rebuilt-from-chunks') xrag.rebuilt_from_chunks = { chunks: byDoc.get(d.docId)!.length, order: 'chunk_index', separator: rebuild!.separator };
    const additions = { type: options.documentType ?? 'Document', title: stem, documentId: builder.ids.document(`rag:${d.docId}`), extras: { 'x-rag': xrag } };
    const { documentId } = addAdapterDocument(builder, { path, markdown: d.markdown, additions, origin: 'the original' }, warnings);
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

/** `<doc_name without its extension>.md`, else `<doc_id>.md`, as safe file names. */
function defaultDocumentPath(docId: string, meta: RagDocMeta): string {
  const stem = safeFileStem(withoutFileExtension(meta.doc_name)) || safeFileStem(docId) || 'document';
  return `${stem}.md`;
}
