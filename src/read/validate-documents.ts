/**
 * The documents layer of `validatePackage` (step 3): knowledge documents read, hashed and parsed
 * together, a few at a time, issues kept in manifest order, and the ids they introduce; the
 * other format-only files (extensions) hashed.
 */
import { createHash } from 'node:crypto';
import { issue } from '../model/errors.js';
import { isUuidV7 } from '../model/ids.js';
import { IdKind, describeIdKind } from '../model/id-kind.js';
import { STRUCTURE_PATHS, VECTOR_CONFIG_PATH, VECTOR_TARGET_PATHS, isConceptPath, payloadKind } from '../model/paths.js';
import { ByteBudget } from './byte-budget.js';
import { ConceptDocumentScanner, readKnowledgeDocument, type ConceptScan } from './documents.js';
import { IdSpace } from './id-space.js';
import { documentRuns } from './document-runs.js';
import { inOrder } from './read-ahead.js';
import { OctxError } from '../model/errors.js';
import { ContainerFailure, FORMAT, toOctxError, type ValidationContext } from './validation-context.js';

/**
 * Bytes of documents the validator holds at once (read ahead, or being parsed). A document
 * larger than this is read alone. Concept Documents cost only their kept frontmatter and stream
 * buffers; `index.md`/`log.md` are read whole.
 */
export const DOCUMENT_READ_BUDGET = 64 * 1024 * 1024;
/** What one streamed document holds besides its kept head: the verify and inflate buffers. */
const STREAM_BUFFER_BYTES = 2 * 1024 * 1024;
const VECTOR_PATHS: ReadonlySet<string> = new Set([VECTOR_CONFIG_PATH, ...Object.values(VECTOR_TARGET_PATHS)]);
const STRUCTURE_SET: ReadonlySet<string> = new Set(STRUCTURE_PATHS);

async function scanConcept(ctx: ValidationContext, path: string): Promise<{ sha: string; scan: ConceptScan }> {
  const hash = createHash('sha256');
  const scanner = new ConceptDocumentScanner(path, ctx.limits.maxFrontmatterBytes, ctx.limits.maxFrontmatterNodes);
  try {
    for await (const chunk of ctx.source.open(path)) {
      hash.update(chunk as Buffer);
      scanner.push(chunk as Buffer);
    }
  } catch (e) {
    throw new ContainerFailure(toOctxError(e));
  }
  return { sha: hash.digest('hex'), scan: scanner.finish() };
}

/** Reads every listed knowledge document: digest, OKF rules, and the document ids (`ctx.concepts`). */
export async function readDocuments(ctx: ValidationContext, m: Record<string, unknown>): Promise<void> {
  const asset = m.asset as Record<string, unknown> | undefined;
  if (asset && isUuidV7(asset.id)) ctx.ids.register(asset.id, IdKind.asset);
  const paths = [...ctx.listed.keys()].filter((p) => payloadKind(p) === 'knowledge' && ctx.present(p));
  const max = ctx.limits.maxFrontmatterBytes;
  // A Concept Document is streamed (its body is never held); index.md/log.md are read whole.
  const read = async (p: string): Promise<{ sha: string; scan: ConceptScan }> => {
    if (isConceptPath(p)) return scanConcept(ctx, p);
    const bytes = await ctx.readAll(p);
    const sha = createHash('sha256').update(bytes).digest('hex');
    const doc = readKnowledgeDocument(p, bytes, { maxFrontmatterBytes: max, maxFrontmatterNodes: ctx.limits.maxFrontmatterNodes });
    return { sha, scan: { issues: doc.issues } };
  };
  const cost = (p: string): number => {
    const size = ctx.source.size(p);
    return STREAM_BUFFER_BYTES + (isConceptPath(p) ? Math.min(size, max + 16) : 2 * size);
  };
  const step = ctx.stepper('documents', paths);
  const budget = new ByteBudget(DOCUMENT_READ_BUDGET);
  // Runs of small documents are read together, the others streamed a few at a time; either way
  // they are settled in manifest order.
  for (const run of documentRuns(ctx.source, paths, ctx.limits.maxFileSize)) {
    const group = paths.slice(run.start, run.end);
    if (!run.small) {
      for await (const [path, { sha, scan }] of inOrder(group, 8, read, { bytes: budget, cost })) settleDocument(ctx, path, sha, scan, step);
      continue;
    }
    const results = new Map<string, { sha: string; scan: ConceptScan } | OctxError>();
    try {
      await ctx.source.readMany!(group, (p, bytes) => results.set(p, bytes instanceof OctxError ? bytes : scanWhole(ctx, p, bytes)));
    } catch (e) {
      throw new ContainerFailure(toOctxError(e));
    }
    for (const p of group) {
      const r = results.get(p)!;
      if (r instanceof OctxError) throw new ContainerFailure(r);
      settleDocument(ctx, p, r.sha, r.scan, step);
    }
  }
}

/**
 * The digest and the findings of a whole document read in memory (the bytes are valid only
 * during the call: nothing of them is kept).
 */
function scanWhole(ctx: ValidationContext, path: string, bytes: Buffer): { sha: string; scan: ConceptScan } {
  const sha = createHash('sha256').update(bytes).digest('hex');
  const { maxFrontmatterBytes, maxFrontmatterNodes } = ctx.limits;
  if (!isConceptPath(path)) return { sha, scan: { issues: readKnowledgeDocument(path, bytes, { maxFrontmatterBytes, maxFrontmatterNodes }).issues } };
  const scanner = new ConceptDocumentScanner(path, maxFrontmatterBytes, maxFrontmatterNodes);
  scanner.push(bytes);
  return { sha, scan: scanner.finish() };
}

/** Settles one document read: its digest, then (when it is the listed one) its findings and its id. */
function settleDocument(ctx: ValidationContext, path: string, sha: string, doc: ConceptScan, step: (p?: string) => void): void {
  step(path);
  // A document whose bytes are not the listed ones is untrusted: its findings are dropped
  // (it was read in the same pass as its digest; the frontmatter limit bounds that work).
  if (!ctx.settle(path, sha)) return;
  for (const i of doc.issues) ctx.add(FORMAT, i);
  if (doc.documentId === undefined) return;
  const index = ctx.ids.register(doc.documentId, IdKind.document);
  if (index < 0) {
    const holder = IdSpace.kindOf(-1 - index);
    ctx.add(
      FORMAT,
      issue({
        code: 'OCTX_ID_DUPLICATE',
        path,
        field: 'octx.document_id',
        recordId: doc.documentId,
        message: `document_id ${doc.documentId} is already used by ${describeIdKind(holder)}; ids are unique across the asset, documents and records`,
      }),
    );
    return;
  }
  ctx.concepts.push({ path, documentId: doc.documentId });
}

/** Hashes the listed files no layer parses (extension files). */
export async function hashFormatOnlyFiles(ctx: ValidationContext): Promise<void> {
  const paths = [...ctx.listed.keys()].filter((p) => ctx.present(p) && payloadKind(p) !== 'knowledge' && !STRUCTURE_SET.has(p) && !VECTOR_PATHS.has(p));
  const step = ctx.stepper('files', paths);
  for await (const [path, sha] of inOrder(paths, 4, (p) => ctx.hashFile(p))) {
    ctx.settle(path, sha);
    step(path);
  }
}
