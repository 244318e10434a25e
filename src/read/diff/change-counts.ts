/**
 * The counts of a diff without its lists and samples: what `export({ previous })` puts in
 * `result.report.changes`, and what the one-line summary of `build --state`/`derive` prints.
 */
import type { DiffRelation, PackageDiff, RecordChanges, VectorChanges } from './diff-result.js';

/** The counts of a {@link PackageDiff}, against the package it was compared with. */
export interface PackageChangeCounts {
  /** The package compared with (the previous release, or the source of a derived asset). */
  readonly against: { readonly path: string; readonly assetId: string | null; readonly version: string | null; readonly packageDigest: string | null };
  readonly relation: DiffRelation;
  readonly hasChanges: boolean;
  readonly documents: { readonly added: number; readonly removed: number; readonly changed: number; readonly moved: number; readonly unchanged: number };
  readonly records: RecordChanges;
  readonly vectors: VectorChanges;
  readonly capabilities: { readonly added: readonly string[]; readonly removed: readonly string[] };
}

/** The counts of a diff (lists become their lengths; samples are dropped). */
export function changeCounts(diff: PackageDiff): PackageChangeCounts {
  const d = diff.documents;
  return {
    against: { path: diff.old.path, assetId: diff.old.assetId, version: diff.old.version, packageDigest: diff.old.packageDigest },
    relation: diff.relation,
    hasChanges: diff.hasChanges,
    documents: { added: d.added.length, removed: d.removed.length, changed: d.changed.length, moved: d.moved.length, unchanged: d.unchanged },
    records: diff.records,
    vectors: diff.vectors,
    capabilities: diff.capabilities,
  };
}
