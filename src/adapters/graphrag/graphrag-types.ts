/** The public types of the GraphRAG adapter: its options and its report. */
import type { ConsumerName } from '../../consumers/index.js';
import type { ProgressListener } from '../../model/progress.js';
import type { CommonAdapterOptions } from '../shared/adapter-options.js';
import type { AdapterWarnings, ExpectedStructure } from '../shared/adapter-report.js';
import type { GraphRagLayoutVersion, GraphRagTable } from './layout.js';
import type { ParquetLimits } from './parquet/column-guard.js';

/** Where the vectors are read from. */
export type GraphRagVectorSource = 'auto' | 'snapshots' | 'lancedb' | 'none';

/** Options of {@link fromGraphRag}. */
export interface FromGraphRagOptions extends CommonAdapterOptions {
  /**
   * Community reports have no place in the structure layer. `leave-out` (default): counted in the
   * report. `as-documents`: each report becomes a Markdown document under `community-reports/`
   * (its `full_content`, with level and rank in `x-graphrag`); such a document has no chunks, so
   * the package is then documents-only (seed 001 §6, rule 1).
   */
  readonly communityReports?: 'leave-out' | 'as-documents';
  /**
   * Where the embeddings come from: `auto` (default: an `embeddings.<name>.parquet` snapshot when
   * the output has one, else the LanceDB table), `snapshots` (never LanceDB), `lancedb`, `none`.
   */
  readonly vectors?: GraphRagVectorSource;
  /**
   * The embedding model's name for `vectors/config.json`. Default: the one the GraphRAG project's
   * `settings.yaml` names (see {@link FromGraphRagOptions.settings}). Neither: the vectors are
   * left out with a warning (a model name is never guessed).
   */
  readonly embeddingModel?: string;
  /** The GraphRAG project's settings file (default: `settings.yaml` or `settings.yml` in the output folder's parent). */
  readonly settings?: string;
  /** The LanceDB folder (default: `<output>/lancedb`). */
  readonly lancedb?: string;
  /**
   * Where a relationship's `weight` goes: `extension` (default) keeps it on its event as
   * `x-graphrag.weight`; `link` also puts it on both event-entity links as their `weight`.
   * GraphRAG's weight is the relationship's strength summed over its extractions (no upper
   * bound), not how much an entity takes part in the event, and SAG v1.7 refuses a link weight
   * above 9.99.
   */
  readonly relationshipWeight?: 'extension' | 'link';
  /**
   * Where the embeddings are staged while they are checked (one float32 copy of each source's
   * rows, removed when the adapter returns): a private folder made in this one. Default: the OS's
   * temporary folder. Give the builder's `tempDir` when the OS's is small (a tmpfs) or slow.
   */
  readonly tempDir?: string;
  /**
   * The consumer the package is for (the builder's `consumer`): with `sag-1.7` its import rules
   * are checked while the rows are mapped, so a refusal names the GraphRAG file and row.
   */
  readonly consumer?: ConsumerName;
  /** Progress while the tables are read (`{ phase: 'load', kind: 'text units', completed, total }`). */
  readonly onProgress?: ProgressListener;
  /** Bounds of the Parquet reader (defaults: `PARQUET_LIMITS`). */
  readonly parquetLimits?: Partial<ParquetLimits>;
}

/** A count with the first few rows that make it, each named by file and GraphRAG id. */
export interface GraphRagSample {
  readonly count: number;
  /** `<file> id <id> ("<title>")`, at most 10. */
  readonly sample: readonly string[];
}

/** What happened to one vector target. */
export interface GraphRagVectorTarget {
  readonly target: 'chunks' | 'entities';
  /** The embedding (`text_unit_text`, `entity_description`) and where it was read. */
  readonly embedding: string;
  readonly source: 'snapshot' | 'lancedb';
  /** The file or LanceDB table read. */
  readonly from: string;
  readonly status: 'written' | 'omitted';
  /** Why a target was omitted. */
  readonly reason?: string;
  /** Rows of the source. */
  readonly rows: number;
  /** Vectors added (one per exported record). */
  readonly added: number;
  /** Records of the target without a vector. */
  readonly missing: number;
  /** Rows for records that are not exported (left out) or unknown. */
  readonly ignored: number;
  readonly dimensions?: number;
  /** Every vector of the target has unit length (|‖v‖ − 1| ≤ 1e-3). */
  readonly unitLength?: boolean;
}

/** What happened to the vectors. */
export interface GraphRagVectors {
  readonly status: 'written' | 'none' | 'left-out';
  readonly reason?: string;
  readonly model?: string;
  /** Where the model name came from. */
  readonly modelFrom?: 'option' | 'settings';
  readonly dimensions?: number;
  /** Measured over every vector written. */
  readonly normalized?: boolean;
  readonly targets: readonly GraphRagVectorTarget[];
  /** Embeddings with no target in the format (community reports, documents, …): name, source, rows when known. */
  readonly noTarget: readonly { readonly embedding: string; readonly source: 'snapshot' | 'lancedb'; readonly from: string; readonly rows?: number }[];
}

/** What {@link fromGraphRag} read, mapped and left out. */
export interface GraphRagAdapterReport extends AdapterWarnings {
  readonly layout: {
    readonly version: GraphRagLayoutVersion;
    /** `GraphRAG 1.x`, … */
    readonly releases: string;
    readonly dir: string;
    readonly files: Readonly<Partial<Record<GraphRagTable, string>>>;
    /** Compression codecs of the tables read. */
    readonly codecs: readonly string[];
  };
  /** Rows of each table read. */
  readonly rows: Readonly<Partial<Record<GraphRagTable, number>>>;
  readonly documents: { readonly count: number; readonly withoutTextUnits: GraphRagSample };
  readonly chunks: { readonly count: number };
  readonly events: {
    readonly count: number;
    readonly fromRelationships: number;
    readonly fromClaims: number;
    /** Events recording the entities of a text unit that is in no relationship. */
    readonly mentions: number;
    /** Relationships with an empty description (their event says `<source> is related to <target>.`). */
    readonly emptyDescriptions: number;
  };
  readonly entities: { readonly count: number };
  readonly relations: { readonly chunkEvents: number; readonly eventEntities: number };
  /** Rows left out, by reason. */
  readonly leftOut: {
    /** Entities with an empty type (the format needs one; none is invented). */
    readonly untypedEntities: GraphRagSample;
    /** Typed entities in no exported event. */
    readonly entitiesWithoutEvent: GraphRagSample;
    /** Relationships whose source or target names no entity. */
    readonly relationshipsWithUnknownEndpoint: GraphRagSample;
    /** Relationships whose endpoints are all untyped entities. */
    readonly relationshipsWithoutTypedEntity: GraphRagSample;
    /** Relationships whose text units are all unknown. */
    readonly relationshipsWithoutTextUnit: GraphRagSample;
    /** Claims whose text unit is unknown. */
    readonly claimsWithoutTextUnit: GraphRagSample;
    /** Claims that name no typed entity, in a text unit without one. */
    readonly claimsWithoutEntity: GraphRagSample;
    readonly communities: number;
    /** Community reports not exported (the default). */
    readonly communityReports: number;
  };
  /** Community reports exported as documents (`communityReports: 'as-documents'`). */
  readonly communityReportDocuments: number;
  readonly vectors: GraphRagVectors;
  /** What to expect from the export's coverage gate, and the text units that decide it. */
  readonly structure: ExpectedStructure & { readonly textUnitsWithoutEntity: GraphRagSample };
}
