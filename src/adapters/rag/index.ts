/** Seed 002 RAG adapter: Chunk and Vector objects → OCTX documents, chunks and chunk vectors. */
export type {
  FromRagOptions,
  RagAdapterReport,
  RagDocumentOutcome,
  RagDocumentResolver,
  RagDocMeta,
  RagLocator,
  RagOriginalDocument,
  RagSample,
  RagVectorsOutcome,
  RebuildDocumentsOptions,
} from './rag-types.js';
export { fromRag, rebuildRefusal, chunkOverlap } from './from-rag.js';
export { loadRagFiles, ragDocumentsFolder, type RagFileInput } from './files.js';
export { RagChunkSchema, RagVectorSchema, isRetrievalResult, ragObjectKind, RETRIEVAL_RESULT_FIELDS, type RagChunk, type RagVector, type RagObjectKind } from './schema.js';
export { readJsonObjects, type LocatedObject } from '../shared/json-input.js';
