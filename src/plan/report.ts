import type { RecordCountKey, VectorTarget } from '../model/record-kinds.js';
import type { OctxIssue } from '../model/errors.js';
import type { OctxCode } from '../model/codes.js';
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

/** One record behind a degradation: an orphan of the coverage rules, or a record without a vector. */
export interface DegradationSample {
  readonly id: string;
  /** The document's path, for a document without chunks. */
  readonly path?: string;
  /** What is wrong with it, in words: `document without chunks`, `chunk without events`, `record without a vector`, … */
  readonly problem: string;
}

/**
 * Something the caller added that the package leaves out, and why (the planner's decision, as
 * data). A deliberate choice (`documentsOnly`, `vectors: 'omit'`, a consumer that drops vectors)
 * is not a degradation.
 */
export interface Degradation {
  /** The code of the matching warning in `report.warnings`. */
  readonly code: OctxCode;
  /** The layer left out: the whole structure layer, or one vector target. */
  readonly layer: 'structure' | 'vectors';
  /** The vector target, for `layer: 'vectors'`. */
  readonly target?: VectorTarget;
  /**
   * `coverage-incomplete`: some records are linked to nothing (seed §6), so no structure record
   * ships; `vectors-incomplete`: some records of the target have no vector; `structure-omitted`:
   * the vectors depend on a structure layer that is not written.
   */
  readonly cause: 'coverage-incomplete' | 'vectors-incomplete' | 'structure-omitted';
  /** How many records (structure) or vectors (vectors) the caller added that are left out. */
  readonly dropped: number;
  /** How many records cause it (orphans, or records without a vector); 0 when another layer is the cause. */
  readonly orphans: number;
  /** The first few of those records (at most 5: `DEGRADATION_SAMPLE_SIZE`). */
  readonly sample: readonly DegradationSample[];
  /** One sentence for a person. */
  readonly message: string;
}

/** What a degradation left out, in words: `structure layer` or `chunks vectors`. */
export function degradationName(d: Degradation): string {
  return d.layer === 'structure' ? 'structure layer' : `${d.target ?? ''} vectors`.trim();
}

/** Records listed in a {@link Degradation}'s sample. */
export const DEGRADATION_SAMPLE_SIZE = 5;

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
  /** True when anything the caller added was left out; `degradations` says what and why. */
  readonly degraded: boolean;
  /** Everything the caller added that the package leaves out (empty when `degraded` is false). */
  readonly degradations: readonly Degradation[];
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
