/** Microsoft GraphRAG adapter: a GraphRAG output folder (1.x, 2.x, 3.x) → OCTX documents, structure and vectors. */
export { fromGraphRag } from './from-graphrag.js';
export type { FromGraphRagOptions, GraphRagAdapterReport, GraphRagSample, GraphRagVectors, GraphRagVectorSource, GraphRagVectorTarget } from './graphrag-types.js';
export type { GraphRagLayoutVersion, GraphRagTable } from './layout.js';
export { PARQUET_LIMITS, type ParquetLimits } from './parquet/column-guard.js';
export { LANCEDB_INSTALL } from './lancedb.js';
export { embeddingName } from './embeddings.js';
export { claimDate } from './map-claims.js';
