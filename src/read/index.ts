/**
 * The read side of the SDK: open `.octx` packages (ZIP or folder) safely, stream their content,
 * and validate them against every OCTX 0.1 rule.
 */
export { DEFAULT_ARCHIVE_LIMITS, resolveLimits, type ArchiveLimits } from '../model/limits.js';
export { openPackage, type JsonlRecord, type ListedFile, type ManifestInfo, type OctxPackage, type OpenPackageOptions, type VectorRow } from './open-package.js';
export { validatePackage, type LayerResult, type ValidateOptions, type ValidationReport } from './validate-package.js';
export type { ConsumerReport } from './consumer-check.js';
export { readJsonlLines, JsonlSplitter, parseJsonlLine, parseJsonlRange, type JsonlLine, type JsonlLineCallback, type JsonlSplitOptions, type ParsedJsonlLine } from './jsonl.js';
export { parseStrictJson, type StrictJsonOptions, type StrictJsonResult } from './strict-json.js';
export type { DocumentReading, PackageDocument } from './documents.js';
export type { PackageKind } from './source.js';
export { diffPackages } from './diff/diff-packages.js';
export type {
  DiffOptions,
  DiffRelation,
  DiffSamples,
  DiffSide,
  DocumentChanges,
  DocumentMove,
  DocumentRef,
  FileChanges,
  IdSamples,
  LinkPair,
  LinkSamples,
  PackageDiff,
  RecordChangeCounts,
  RecordChanges,
  RenameDetection,
  VectorChangeCounts,
  VectorChanges,
  VectorSamples,
} from './diff/diff-result.js';
export { changeCounts, type PackageChangeCounts } from './diff/change-counts.js';
export { changeLine } from './diff/change-line.js';
