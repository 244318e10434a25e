/** Seed 004 ingest-candidate adapter: envelopes → documents, full-text chunks, events, entities, triplet extension. */
export { fromIngest } from './from-ingest.js';
export { validateEnvelopes, latestPerSource, checkContentHash, parseSourceUri } from './envelopes.js';
export { DEFAULT_INGEST_NAMESPACE } from './defaults.js';
export type {
  FromIngestOptions,
  IngestAdapterReport,
  IngestSourceOutcome,
  IngestSourceContext,
  IngestEventExtractor,
  IngestBodyResolver,
  ExtractedEvent,
  ExtractedEntityRef,
  RefusedEntityLink,
} from './ingest-types.js';
export {
  IngestEnvelopeSchema,
  IngestSourceSchema,
  IngestExtractorSchema,
  IngestNodeSchema,
  IngestTripletSchema,
  INGEST_ENTITY_TYPES,
  envelopeViolations,
  type IngestEnvelope,
  type IngestSource,
  type IngestExtractor,
  type IngestNode,
  type IngestTriplet,
  type IngestSchemaRule,
  type IngestRuleViolation,
} from './schema.js';
export { loadIngestFiles, eventsFromFile, type IngestFileInput } from './files.js';
