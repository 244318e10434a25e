/** The extension namespace the ingest adapter uses when none is given (reverse-DNS, configurable). */
export const DEFAULT_INGEST_NAMESPACE = 'org.octx-export.ingest-candidate';
