/**
 * The typed result of `diffPackages`: what changed from one package to another, by identity
 * (document ids, record ids, link pairs, vector record ids), as counts, complete document lists
 * and the first ids of every other category.
 */
import type { ArchiveLimits } from '../../model/limits.js';
import type { ProgressListener } from '../../model/progress.js';
import { recordFileStem, type RecordFileStem, type RecordKind, type RecordKindWithRole, type VectorTarget } from '../../model/record-kinds.js';

/** `chunk_events` for `chunk-events`: a file stem as a JSON key. */
type Underscored<S extends string> = S extends `${infer A}-${infer B}` ? `${A}_${Underscored<B>}` : S;

/** The key of a record kind in a diff's `records` and `samples`: its file name, `_` for `-` (`chunks`, `chunk_events`). */
export type DiffKey<K extends RecordKind = RecordKind> = K extends RecordKind ? Underscored<RecordFileStem<K>> : never;

/** {@link DiffKey}: `chunk_events` for `chunk-event`. */
export function diffKey<K extends RecordKind>(kind: K): DiffKey<K> {
  return recordFileStem(kind).replaceAll('-', '_') as DiffKey<K>;
}

/** One side of a diff: who the package says it is. Fields the manifest lacks are `null`. */
export interface DiffSide {
  /** The path the package was opened from. */
  readonly path: string;
  readonly assetId: string | null;
  readonly assetName: string | null;
  readonly version: string | null;
  readonly createdAt: string | null;
  readonly packageDigest: string | null;
  /** Bytes of the `.octx` file (of every file, for an unpacked folder). */
  readonly size: number;
  /** `asset.derived_from`, when the manifest has one. */
  readonly derivedFrom: { readonly assetId: string | null; readonly version: string | null; readonly packageDigest: string | null } | null;
}

/**
 * How the two packages relate: `derived` when the new manifest's `asset.derived_from` names the
 * old package (asset id, version and package digest); `same-asset` when both have the same
 * `asset.id` (two releases of one asset); otherwise `unrelated`.
 */
export type DiffRelation = 'same-asset' | 'derived' | 'unrelated';

/** A knowledge document, named by its `octx.document_id` (`null` for `index.md`/`log.md` and documents without a valid id, which are matched by path). */
export interface DocumentRef {
  readonly id: string | null;
  readonly path: string;
}

/**
 * A document whose path changed: the same `octx.document_id` at a new path or, with
 * `findRenames`, a removed document and an added one whose contents are similar enough.
 */
export interface DocumentMove {
  /** The document's id (in the new package). */
  readonly id: string;
  readonly from: string;
  readonly to: string;
  /**
   * Only on a move found by content (`findRenames`): the old document's id — the two builds
   * minted their own — or `null` when it had no valid one.
   */
  readonly fromId?: string | null;
  /** Only on a move found by content: git's similarity of the two documents, in percent (one decimal, rounded down). */
  readonly similarity?: number;
}

/** How documents were paired by content (present only when `findRenames` was on). */
export interface RenameDetection {
  /** The least similarity of a rename, in percent. */
  readonly threshold: number;
  /** Removed and added documents at the same path, taken as one document (changed or unchanged), before renames are looked for. */
  readonly samePath: number;
  /** Pairs found with identical contents (the document ids aside). */
  readonly exact: number;
  /** Pairs found at or above the threshold but not identical. */
  readonly similar: number;
  /**
   * The inexact pass was skipped: more than `limit` × `limit` candidate pairs were left after the
   * exact one (git's `diff.renameLimit`, 1000), so only identical contents were paired.
   */
  readonly skipped: boolean;
  /** Removed and added documents compared by content (the exact pass), after the same-path pairs. */
  readonly candidates: { readonly removed: number; readonly added: number };
  readonly limit: number;
}

/**
 * The knowledge documents. Complete lists (a package holds at most `maxEntries` files), in the
 * new package's manifest order (`removed`: the old one's). A moved document whose bytes also
 * changed is listed in both `moved` and `changed` (with its new path); `unchanged` counts the
 * documents with the same path and the same bytes.
 */
export interface DocumentChanges {
  readonly added: readonly DocumentRef[];
  readonly removed: readonly DocumentRef[];
  readonly changed: readonly DocumentRef[];
  readonly moved: readonly DocumentMove[];
  readonly unchanged: number;
  /** What `findRenames` compared and found (absent without it). */
  readonly renames?: RenameDetection;
}

/** Counts of one record kind or link kind. A record is `changed` when its canonical (RFC 8785) JSON differs. */
export interface RecordChangeCounts {
  readonly added: number;
  readonly removed: number;
  readonly changed: number;
  readonly unchanged: number;
}

/**
 * Counts of one vector target, by record id. A row is `changed` when its values or its
 * `input_sha256` differ. `stale` counts unchanged rows whose record changed: vectors that must be
 * re-embedded if the change touched the embedded text (a change of another field, such as a
 * chunk's `ordinal`, counts too). `configChanged`: the `vectors/config.json` fingerprints differ
 * (or only one package has a config).
 */
export interface VectorChangeCounts extends RecordChangeCounts {
  readonly stale: number;
  readonly configChanged: boolean;
}

/**
 * Counts per record kind and link kind, for every kind of `RECORD_KINDS` (keys as the spec's file
 * names: `chunks`, `events`, `entities`, `chunk_events`, `event_entities`).
 */
export type RecordChanges = { readonly [K in RecordKind as DiffKey<K>]: RecordChangeCounts };

/** Counts per vector target (`chunks`, `events`, `entities`). */
export type VectorChanges = { readonly [T in VectorTarget]: VectorChangeCounts };

/** The first record ids of each category, in file order (`removed`: the old file's). */
export interface IdSamples {
  readonly added: readonly string[];
  readonly removed: readonly string[];
  readonly changed: readonly string[];
}

/** A link named by its two ids: `[chunk_id, event_id]` or `[event_id, entity_id]`. */
export type LinkPair = readonly [string, string];

/** The first link pairs of each category. */
export interface LinkSamples {
  readonly added: readonly LinkPair[];
  readonly removed: readonly LinkPair[];
  readonly changed: readonly LinkPair[];
}

/** The first record ids of each vector category. */
export interface VectorSamples extends IdSamples {
  readonly stale: readonly string[];
}

/**
 * The first ids per category (at most `sampleSize` each): record ids for each record kind, link
 * pairs for each relation (keyed as {@link RecordChanges}), and per vector target under `vectors`.
 */
export type DiffSamples = { readonly [K in RecordKindWithRole<'record'> as DiffKey<K>]: IdSamples } & {
  readonly [K in RecordKindWithRole<'relation'> as DiffKey<K>]: LinkSamples;
} & { readonly vectors: { readonly [T in VectorTarget]: VectorSamples } };

/** Paths of files under `extensions/`, compared by their manifest SHA-256. */
export interface FileChanges {
  readonly added: readonly string[];
  readonly removed: readonly string[];
  readonly changed: readonly string[];
}

/** What changed from the old package to the new one. */
export interface PackageDiff {
  readonly old: DiffSide;
  readonly new: DiffSide;
  readonly relation: DiffRelation;
  /**
   * True when anything of the content differs: a document, an extension file, a record, a link,
   * a vector row, the vector config or a capability. A new version or release time alone is not a change.
   */
  readonly hasChanges: boolean;
  readonly documents: DocumentChanges;
  readonly extensions: FileChanges;
  readonly records: RecordChanges;
  readonly vectors: VectorChanges;
  /** Capability names declared by one package and not the other. */
  readonly capabilities: { readonly added: readonly string[]; readonly removed: readonly string[] };
  readonly samples: DiffSamples;
}

/** Options of `diffPackages`. */
export interface DiffOptions {
  /** Ids kept per sample category (default 10, at most 1000; 0 keeps none). */
  readonly sampleSize?: number;
  /**
   * Progress: `phase: 'diff'`, `kind` such as `old chunks` or `new vectors events`, `completed`
   * records read so far; for the new side `total` is the old side's count (an estimate that is
   * exact for a release that only edits), for the old side the count so far.
   */
  readonly onProgress?: ProgressListener;
  /** Resource limits for packages given as paths (as `openPackage`); missing fields take the defaults. */
  readonly limits?: Partial<ArchiveLimits>;
  /**
   * Also pair a removed document with an added one by content, as git's `-M` does for two trees
   * without ids in common (two builds without a producer state): `true` (git's 50%), or the least
   * similarity from 0 to 1. A pair is reported in `moved` (with `fromId` and `similarity`) and in
   * `changed` when its bytes differ other than the document id; a removed and an added document at
   * the same path are first one document (`changed` or `unchanged`). Default: off (documents are
   * matched by `octx.document_id` only). See docs/docs-sites.md for the measure and the order.
   */
  readonly findRenames?: boolean | number;
}
