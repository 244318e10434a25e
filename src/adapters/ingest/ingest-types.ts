/** The public types of the ingest adapter: its options, the extractor's contract and its report. */
import type { AdapterWarnings, ExpectedStructure } from '../shared/adapter-report.js';
import type { InputLocation } from '../shared/input-issues.js';
import type { IngestEnvelope, IngestSource } from './schema.js';

/** One entity an extracted event involves. */
export interface ExtractedEntityRef {
  /** A node of the envelope, by its `id`, `name` or one of its `aliases`. */
  readonly node?: string;
  /** A name, for an entity that is not one of the envelope's nodes. */
  readonly name?: string;
  /** Entity type; defaults to the node's `entity_type`. Without either the link is refused. */
  readonly type?: string;
  /** Entity description when it is not a node with a `gloss`. */
  readonly entityDescription?: string;
  /** Relation weight (finite number). */
  readonly weight?: number;
  /** What the entity does in the event (the relation's `description`). */
  readonly description?: string;
}

/** One event from the caller's extractor. */
export interface ExtractedEvent {
  /** The extractor's own stable key (keeps the event id across releases); default: title + content. */
  readonly key?: string;
  /** Displayable on its own. */
  readonly title: string;
  /** A complete statement understandable without the chunk. */
  readonly content: string;
  readonly summary?: string;
  readonly category?: string;
  /** Entities taking part (at least one, or the structure cannot be complete). */
  readonly entities: readonly ExtractedEntityRef[];
}

/** What an extractor gets for one source. */
export interface IngestSourceContext {
  readonly uri: string;
  readonly envelope: IngestEnvelope;
  /** `knowledge/…` path of the document. */
  readonly documentPath: string;
  readonly documentId: string;
  /** The Markdown body of the canonical file (without its frontmatter). */
  readonly body: string;
  /** The full-text chunk (absent when the body is empty). */
  readonly chunk?: { readonly id: string; readonly text: string };
}

/** The caller's event extractor: a real extraction run over one source's text. */
export type IngestEventExtractor = (context: IngestSourceContext) => readonly ExtractedEvent[] | Promise<readonly ExtractedEvent[]>;

/** Returns the canonical Markdown of a source, or `undefined` when it is not available. */
export type IngestBodyResolver = (source: IngestSource) => string | Uint8Array | undefined | Promise<string | Uint8Array | undefined>;

/** Options of {@link fromIngest}. */
export interface FromIngestOptions {
  /** Reads a source's canonical Markdown (takes precedence over `sourceRoot`). */
  readonly resolveBody?: IngestBodyResolver;
  /** Folder holding the sources: the file is `<sourceRoot>/<path of the uri>`. */
  readonly sourceRoot?: string;
  /** Reverse-DNS namespace of the extension files (default {@link DEFAULT_INGEST_NAMESPACE}). */
  readonly namespace?: string;
  /** The caller's event extractor; without it (and without `triplesAsEvents`) there are no events. */
  readonly extractEvents?: IngestEventExtractor;
  /**
   * Opt-in (never the default): one event per triplet — title and content "subject predicate
   * object", linked to the full-text chunk and to the subject/object nodes that are typed
   * nodes. It re-expresses extracted facts as events; decide deliberately whether that is an
   * event in your domain (MAPPINGS.md §3.4 option C).
   */
  readonly triplesAsEvents?: boolean;
  /** Check `source.content_hash` against the file when its format is recognised (default true). */
  readonly verifyContentHash?: boolean;
  /** Package path under `knowledge/` for a source (default: the path of the uri). */
  readonly documentPath?: (source: IngestSource) => string;
  /** Frontmatter `type` for documents without one (default `Document`). */
  readonly documentType?: string;
  /** Locates envelopes for error messages (the CLI passes file and line). */
  readonly locate?: (index: number) => InputLocation | undefined;
}

/** What happened to one source. */
export interface IngestSourceOutcome {
  readonly documentPath: string;
  readonly documentId: string;
  readonly chunkId?: string;
  readonly contentHash: 'verified' | 'unverified-format' | 'not-checked';
  readonly events: number;
  readonly triplets: number;
  readonly nodes: number;
}

/** A link from an event to an entity that could not be made, and why. */
export interface RefusedEntityLink {
  readonly uri: string;
  readonly event: string;
  readonly entity: string;
  readonly reason: string;
}

/** What {@link fromIngest} did. */
export interface IngestAdapterReport extends AdapterWarnings {
  readonly envelopes: {
    readonly given: number;
    readonly kept: number;
    /** Envelopes replaced by a later one for the same uri (latest-wins). */
    readonly superseded: readonly { readonly uri: string; readonly contentHash: string; readonly index: number }[];
  };
  readonly sources: Readonly<Record<string, IngestSourceOutcome>>;
  readonly events: { readonly count: number; readonly fromExtractor: number; readonly fromTriplets: number; readonly withoutEntities: readonly string[] };
  readonly entities: { readonly count: number; readonly fromNodes: number; readonly other: number };
  readonly nodes: { readonly total: number; readonly asEntities: number; readonly notLinked: number };
  readonly refusedLinks: readonly RefusedEntityLink[];
  readonly extension: { readonly namespace: string; readonly files: readonly string[]; readonly triplets: number; readonly nodes: number };
  /** Whether the records this adapter added form a complete structure, and why. */
  readonly structure: ExpectedStructure;
}
