/**
 * Public surface of the `vectors/0.1` producer support: config and fingerprint, embedders,
 * input templates. The spill and Arrow writer are internal building blocks of the exporter.
 */
export type { VectorTarget } from './targets.js';
export { VECTOR_TARGETS, isVectorTarget } from './targets.js';
export type { VectorConfigInput, PreparedVectorConfig, ForbiddenVectorConfigEntry, RecommendedVectorConfigKey } from './config.js';
export { computeVectorFingerprint, prepareVectorConfig, vectorConfigIssues, forbiddenVectorConfigEntries, RECOMMENDED_VECTOR_CONFIG_KEYS } from './config.js';
export type { Embedder, EmbedItem, EmbeddedVector, EmbedAllOptions, EmbedAllResult } from './embedder.js';
export { embedAll } from './embedder.js';
export type { HttpEmbedderOptions, HttpEmbedderRetry } from './http-embedder.js';
export { HttpEmbedder, defaultMaxResponseBytes, HTTP_EMBEDDER_MAX_REDIRECTS } from './http-embedder.js';
export type { HashingTextEmbedderOptions } from './hashing-embedder.js';
export { HashingTextEmbedder } from './hashing-embedder.js';
export type { InputTemplateRenderer } from './template.js';
export { renderInputTemplate, templateForTarget, DEFAULT_INPUT_TEMPLATES } from './template.js';
export { INPUT_HASH_DECLARATION, INPUT_SHA256_COLUMN, inputSha256, normalizeEmbeddingInput, inputHashDeclaration, withInputHash } from './input-digest.js';
