import type { RecordCountKey } from '../model/record-kinds.js';
import type { OctxIssue } from '../model/errors.js';
import type { CoverageReport } from '../structure/coverage.js';

/** Whether the structure layer went into the package, and why not. */
export type StructureStatus =
  /** All five files written and `sag-structured/0.1` declared. */
  | 'written'
  /** Coverage was incomplete under `structure: 'auto'`: no structure file, nothing declared. */
  | 'omitted'
  /** `documentsOnly: true`: structure deliberately left out. */
  | 'not-requested'
  /** No structure record was added: a documents-only package by nature. */
  | 'none';

/** Record counts of the structure layer, one per record kind (`chunks`, `events`, `entities`, `chunkEvents`, `eventEntities`). */
export type StructureCounts = Readonly<Record<RecordCountKey, number>>;

/** What happened to the structure layer. */
export interface StructureReport {
  readonly status: StructureStatus;
  readonly counts: StructureCounts;
  /** The five coverage rules with every orphan (absent for `not-requested` and `none`). */
  readonly coverage?: CoverageReport;
  /** One sentence on the outcome, for logs. */
  readonly reason: string;
}

/** What happened to one vector target. */
export type VectorTargetReport =
  | { readonly status: 'written'; readonly rows: number }
  | { readonly status: 'omitted'; readonly reason: 'incomplete'; readonly records: number; readonly vectors: number; readonly missing: number; readonly sample: readonly string[] }
  | { readonly status: 'omitted'; readonly reason: 'structure-omitted' | 'documents-only' | 'consumer'; readonly vectors: number }
  /** No vector was added for this target. */
  | { readonly status: 'none' };

/** What happened to the vectors layer. */
export interface VectorsReport {
  /** `written` when at least one complete target went in and `vectors/0.1` was declared. */
  readonly status: 'written' | 'omitted' | 'none';
  /** One sentence when every vector was left out on purpose (a consumer profile, or `vectors: 'omit'`). */
  readonly reason?: string;
  /** The config fingerprint when a config was set. */
  readonly fingerprint?: string;
  readonly targets: { readonly chunks: VectorTargetReport; readonly events: VectorTargetReport; readonly entities: VectorTargetReport };
}

/** One file of the written package. */
export interface ReportFile {
  readonly path: string;
  readonly size: number;
  readonly sha256: string;
  readonly compressedSize: number;
  readonly method: 'store' | 'deflate';
}

/**
 * The export report: what went in, what was left out and why, as data. Warnings are issues with
 * severity `warning` (an omitted layer, non-unit vectors, …).
 */
export interface ExportReport {
  readonly documents: { readonly concepts: number; readonly reserved: number };
  readonly structure: StructureReport;
  readonly vectors: VectorsReport;
  readonly capabilities: readonly string[];
  readonly files: readonly ReportFile[];
  readonly archive: { readonly size: number };
  readonly warnings: readonly OctxIssue[];
  /** Milliseconds per phase. */
  readonly timings: Readonly<Record<string, number>>;
}

export type { ProgressEvent, ProgressStep, ProgressWarning, ProgressPhase, ProgressListener } from '../model/progress.js';
