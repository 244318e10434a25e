/** The public types of the SAG adapter: its options and its report. */
import type { AdapterWarnings, ExpectedStructure } from '../shared/adapter-report.js';

/** How record ids are chosen. */
export type SagIdMode = 'ledger' | 'sag-compatible';

/** Options of {@link fromSagDatabase}. */
export interface FromSagOptions {
  /** The source: `source_config.id` (older schema) or `data_source_id` (newer schema). */
  readonly sourceId: string;
  /**
   * `ledger` (default): a preserved `extra_data.octx.record_id`, else a stable UUIDv7 from the
   * id ledger. `sag-compatible`: a preserved record id, else the local id when it is a UUIDv7,
   * else a UUIDv4 local id with its version nibble set to 7 (what SAG's own exporter writes),
   * else the ledger.
   */
  readonly idMode?: SagIdMode;
  /** Only these articles (default: every article of the source with an exported status). */
  readonly articleIds?: readonly string[];
  /**
   * Article statuses exported besides `COMPLETED` (SAG's statuses: `PENDING`, `PROCESSING`,
   * `COMPLETED`, `FAILED`; compared in upper case). Default none: only finished articles; the
   * others are counted per status in {@link SagAdapterReport.articles}.
   */
  readonly includeStatuses?: readonly string[];
  /**
   * Newer schemas (zleap-sag ≥ 0.8.2) only: article id → the `generation_id` to read for it,
   * instead of its active generation in `sag_source_manifest`. The replacement of the removed
   * `generationId` (one generation for the whole export cannot fit: a generation belongs to one
   * article).
   */
  readonly generations?: Readonly<Record<string, string>>;
  /** Read only the articles (documents); no structure. */
  readonly documentsOnly?: boolean;
  /** Frontmatter `type` of the documents (default `Document`). */
  readonly documentType?: string;
}

/** What {@link fromSagDatabase} read and wrote. */
export interface SagAdapterReport extends AdapterWarnings {
  /** Which schema generation the database has. */
  readonly generation: 'source_config_id' | 'data_source_id';
  readonly source: { readonly id: string; readonly name?: string };
  readonly idMode: SagIdMode;
  /** Which articles were exported and which were skipped for their status. */
  readonly articles: {
    /** The statuses exported (`COMPLETED` plus `includeStatuses`). */
    readonly statuses: readonly string[];
    /** Articles of the source left out for their status: status → count (`(none)` for NULL). */
    readonly skippedByStatus: Readonly<Record<string, number>>;
    /** The local ids of the skipped articles with their status, by id. */
    readonly skipped: readonly { readonly id: string; readonly status: string }[];
  };
  /**
   * Newer schemas: the generation read for each exported article (article id → generation id)
   * and where it came from; `none` when the database has no generations.
   */
  readonly generations: { readonly from: 'none' | 'manifest' | 'manifest+override'; readonly active: Readonly<Record<string, string>> };
  /** How the record ids were chosen. */
  readonly ids: { readonly preserved: number; readonly sagCompatible: number; readonly ledger: number };
  readonly documents: { readonly count: number; readonly paths: readonly string[] };
  readonly chunks: {
    readonly count: number;
    /** Chunks without an article (e.g. chat sources): not part of any document. */
    readonly unbound: number;
    /** Chunks of articles that were not selected or not exported (status). */
    readonly otherArticles: number;
    /** Leftover chunks of an article's other generations (newer schemas). */
    readonly otherGenerations: number;
  };
  readonly events: {
    readonly count: number;
    /** Events with `status = 'DELETED'` (exactly, as SAG compares it). */
    readonly softDeleted: number;
    readonly otherArticles: number;
    /** Leftover events of an article's other generations (newer schemas). */
    readonly otherGenerations: number;
    /** OCTX ids of events whose parent was not exported: they became top-level events. */
    readonly detachedFromParent: readonly string[];
    /** OCTX ids of events whose `chunk_id` is missing or not exported. */
    readonly withoutChunk: readonly string[];
  };
  readonly entities: { readonly count: number };
  readonly relations: { readonly chunkEvents: number; readonly eventEntities: number };
  /** What to expect from the export's coverage gate, and why. */
  readonly structure: ExpectedStructure;
}
