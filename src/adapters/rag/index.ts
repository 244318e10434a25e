/** Seed 002 RAG adapter: Chunk and Vector objects → OCTX documents, chunks and chunk vectors. */
export {
  fromRag,
  rebuildRefusal,
  chunkOverlap,
  type FromRagOptions,
  type RagAdapterReport,
  type RagDocumentOutcome,
  type RagDocumentResolver,
  type RagDocMeta,
  type RagLocator,
  type RagOriginalDocument,
  type RagSample,
  type RagVectorsOutcome,
  type RebuildDocumentsOptions,
} from './from-rag.js';
export { loadRagFiles, ragDocumentsFolder, type RagFileInput } from './files.js';
export { RagChunkSchema, RagVectorSchema, isRetrievalResult, ragObjectKind, RETRIEVAL_RESULT_FIELDS, type RagChunk, type RagVector, type RagObjectKind } from './schema.js';
export { readJsonObjects, type LocatedObject } from './json-input.js';
