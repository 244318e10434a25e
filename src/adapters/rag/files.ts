/**
 * File helpers for the RAG adapter: read seed 002 objects from JSON/JSONL files (sorting
 * Chunks from Vectors, refusing Retrieval Results with their location), and resolve original
 * documents from a folder.
 */
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { OctxError, type OctxIssue } from '../../model/errors.js';
import { safeFileStem, withoutFileExtension } from '../shared/document-paths.js';
import { inputIssue, throwInputProblems } from '../shared/input-issues.js';
import { locatorOf, readJsonObjects, type LocatedObject } from '../shared/json-input.js';
import type { RagDocMeta, RagDocumentResolver, RagLocator } from './rag-types.js';
import { ragObjectKind, RETRIEVAL_RESULT_REFUSAL } from './schema.js';

/** Seed 002 objects read from files, ready for `fromRag`. */
export interface RagFileInput {
  readonly chunks: unknown[];
  readonly vectors: unknown[];
  /** Points at the file and line of each object. */
  readonly locate: RagLocator;
}

/**
 * Reads seed 002 Chunk and Vector objects from JSON (one object or an array) and JSONL files,
 * in any mix. A Retrieval Result is refused (query output, not knowledge); an object that is
 * neither a Chunk nor a Vector is refused too.
 * @throws OctxError `OCTX_ADAPTER_INPUT_INVALID`, `OCTX_IO_ERROR`, `OCTX_JSON_INVALID`
 */
export async function loadRagFiles(files: readonly string[]): Promise<RagFileInput> {
  const chunks: LocatedObject[] = [];
  const vectors: LocatedObject[] = [];
  const problems: OctxIssue[] = [];
  for (const file of files) {
    for (const o of await readJsonObjects(file)) {
      const at = { path: o.path, ...(o.line !== undefined ? { line: o.line } : {}) };
      switch (ragObjectKind(o.value)) {
        case 'chunk':
          chunks.push(o);
          break;
        case 'vector':
          vectors.push(o);
          break;
        case 'retrieval-result':
          problems.push(inputIssue({ ...at, field: 'retrieval_id', message: RETRIEVAL_RESULT_REFUSAL }));
          break;
        default:
          problems.push(inputIssue({ ...at, message: 'not a seed 002 Chunk (chunk_id, chunk_text, …) or Vector (vector_id, embedding, …) object' }));
      }
    }
  }
  throwInputProblems('some input objects cannot be exported:', problems);
  const chunkAt = locatorOf(chunks);
  const vectorAt = locatorOf(vectors);
  const locate: RagLocator = (kind, index) => (kind === 'chunk' ? chunkAt : vectorAt)(index);
  return { chunks: chunks.map((o) => o.value), vectors: vectors.map((o) => o.value), locate };
}

async function readIfFile(path: string): Promise<Buffer | undefined> {
  try {
    if (!(await stat(path)).isFile()) return undefined;
    return await readFile(path);
  } catch {
    return undefined;
  }
}

/**
 * A resolver for original documents kept in a folder: `<doc_id>.md`, else `<doc_name without
 * its extension>.md` (e.g. `2025一季度营收报告.md` for `2025一季度营收报告.pdf`).
 * @throws OctxError `OCTX_IO_ERROR` when the folder does not exist
 */
export async function ragDocumentsFolder(dir: string): Promise<RagDocumentResolver> {
  try {
    if (!(await stat(dir)).isDirectory()) throw new Error('not a folder');
  } catch (e) {
    throw OctxError.of({ code: 'OCTX_IO_ERROR', path: dir, message: `documents folder ${dir} is not readable: ${(e as Error).message}` });
  }
  return async (docId: string, meta: RagDocMeta) => {
    const byId = safeFileStem(docId);
    if (byId !== '') {
      const bytes = await readIfFile(join(dir, `${byId}.md`));
      if (bytes) return bytes;
    }
    const stem = safeFileStem(withoutFileExtension(meta.doc_name));
    if (stem !== '') return readIfFile(join(dir, `${stem}.md`));
    return undefined;
  };
}
