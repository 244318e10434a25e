/**
 * octx-export: produce Open Context (`.octx`) packages.
 *
 * Start with {@link PackageBuilder}; read and check packages with `openPackage` and
 * `validatePackage`. Every failure is an {@link OctxError} with a stable `code` and a list of
 * `issues`.
 *
 * The adapters of outside formats are separate entry points, so that importing the core loads
 * none of them (nor `better-sqlite3`): `octx-export/adapters/rag` (seed 002 RAG objects),
 * `octx-export/adapters/ingest` (seed 004 ingest-candidate envelopes) and
 * `octx-export/adapters/sag` (zleap-sag databases).
 * @packageDocumentation
 */
export { PackageBuilder, type ExportResult, type EmbedOptions, type AddVectorOptions } from './builder/package-builder.js';
export type { ExportOptions, PackageBuilderOptions } from './builder/options.js';
export type { DocumentInput } from './knowledge/document.js';
export type { ChunkRecord, EventRecord, EntityRecord, ChunkEventLink, EventEntityLink, RecordKind, RecordShapes, RecordOf } from './model/records.js';
export { ChunkRecordSchema, EventRecordSchema, EntityRecordSchema, ChunkEventLinkSchema, EventEntityLinkSchema } from './structure/record-schemas.js';
export type {
  ExportReport,
  StructureReport,
  StructureStatus,
  StructureCounts,
  VectorsReport,
  VectorTargetReport,
  ReportFile,
  Degradation,
  DegradationSample,
} from './plan/report.js';
export { PROGRESS_PHASES, type ProgressEvent, type ProgressStep, type ProgressWarning, type ProgressPhase, type ProgressListener } from './model/progress.js';
export { terminalProgress, ProgressLine, type TerminalProgress, type TerminalProgressOptions, type ProgressLineOptions, type ProgressStream } from './terminal/progress.js';
export {
  loadWorkdir,
  shardOfPath,
  type ShardSpec,
  renamedReservedPath,
  detectDocsSite,
  INDEX_FILES_MODES,
  MDX_MODES,
  type MdxMode,
  type DocsGenerator,
  type DocsSite,
  type DocsSiteReport,
  type MdxPage,
  type RewrittenLinkEntry,
  type ConventionCount,
  type CarriedId,
  type LoadWorkdirOptions,
  type WorkdirLoadReport,
  type IndexFilesMode,
  type WorkdirMode,
  type ConvertedFrontmatter,
  type DanglingLink,
} from './builder/load-workdir.js';
export type { LeftOutGroup, LeftOutKind } from './builder/non-document-files.js';
export type { CoverageReport, OrphanList, OrphanListByDocument } from './structure/coverage.js';

export { OctxError, isOctxError, formatIssue, type OctxIssue, type IssueSeverity } from './model/errors.js';
export { OCTX_CODES, type OctxCode } from './model/codes.js';
export { newId, isUuidV7, UUID_V7_PATTERN } from './model/ids.js';
export { isSemVer, parseSemVer, compareSemVer, bumpSemVer, SEMVER_PATTERN, type SemVer } from './model/semver.js';
export { isOctxTime, toOctxTime } from './model/time.js';
export { jcsBytes, jcsDigest, type JsonValue, type JsonObject } from './model/json.js';

export { computePackageDigest } from './package/digest.js';
export type { Manifest, ManifestFile, DerivedFrom, Capabilities } from './package/manifest.js';
export { compareUtf8, STRUCTURE_PATHS, VECTOR_CONFIG_PATH, VECTOR_TARGET_PATHS } from './model/paths.js';

export * from './vectors/index.js';
export * from './read/index.js';

export {
  CONSUMER_NAMES,
  CONSUMER_PROFILES,
  consumerProfile,
  ConsumerChecker,
  SAG_1_7_PROFILE,
  SEED_PROFILE,
  sagEntityIdentity,
  type ConsumerName,
  type ConsumerProfile,
  type ConsumerRule,
  type ConsumerSubject,
  type VectorPolicy,
} from './consumers/index.js';
export { casefold, nfcCasefold } from './model/casefold.js';
export { ProducerState, IdLedger, nextVersion, LEDGER_KINDS, type ProducerStateData, type ReleaseRecord, type LedgerKind } from './release/producer-state.js';
export { entityIdentityKey, type EntityIdentity } from './release/id-ledger.js';
export type { IdLedgerStore, LedgerReservation } from './release/ledger-store.js';
export type { LedgerIds } from './release/ledger-kinds.js';
export { repackPackage, type RepackOptions, type RepackResult } from './export/repack.js';
export { mergePackages, type MergeOptions, type MergeResult } from './builder/merge-packages.js';
export type { DeriveOptions, DerivationSummary } from './builder/derive.js';
