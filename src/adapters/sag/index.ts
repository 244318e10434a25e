/** zleap-sag engine database adapter: one source of a SAG SQLite database → OCTX. */
export { fromSagDatabase, sagDocumentBody, sagSlug, sagTime, type FromSagOptions, type SagAdapterReport, type SagIdMode } from './from-sag.js';
export { sagCompatibleId, preservedRecordId } from './sag-ids.js';
