import type { OctxIssue } from '../model/errors.js';
import type { SpilledEntry } from '../package/payload-spill.js';
import type { CopiedDeflate } from '../package/payload-source.js';
import type { PreparedVectorConfig } from '../vectors/config.js';
import type { VectorTarget } from '../vectors/targets.js';
import type { VectorRows } from '../vectors/vector-spill.js';
import type { IdView } from '../structure/frozen-ids.js';
import type { StructureSnapshot } from '../structure/structure-snapshot.js';

/** A knowledge document as collected: its bytes are already spilled (hashed, being compressed). */
export interface CollectedDocument {
  readonly path: string;
  readonly kind: 'concept' | 'reserved';
  readonly documentId?: string;
  /** Dense id in the registry (concepts only). */
  readonly dense?: number;
  readonly title?: string;
  /** The frontmatter `title` value when it is not a string (see `PreparedDocument`). */
  readonly titleValue?: unknown;
  /** The title a Python reader takes when `title` is not a non-blank string (see `PreparedDocument`). */
  readonly titleFallback?: string;
  /** UTF-8 bytes of the frontmatter block (concepts): checked against the export's `limits.maxFrontmatterBytes`. */
  readonly frontmatterBytes?: number;
  /** YAML nodes of that block (concepts): checked against the export's `limits.maxFrontmatterNodes`. */
  readonly frontmatterNodes?: number;
  /** Its bytes: spilled by the builder, or an entry of another archive copied as it is (a merge). */
  readonly entry: SpilledEntry | CopiedDeflate;
  readonly size: number;
  readonly sha256: string;
}

/** A private extension file (`extensions/<namespace>/<major.minor>/…`). */
export interface CollectedExtension {
  readonly path: string;
  /** Its bytes, as a document's. */
  readonly entry: SpilledEntry | CopiedDeflate;
  readonly size: number;
  readonly sha256: string;
}

/**
 * Everything the builder collected, frozen at one point: the planner's and the writer's whole
 * input. The builder takes it synchronously when `export()` is called (`PackageBuilder`'s
 * `#snapshot`), before any await or callback, and the coverage gate, the vector completeness, the
 * consumer checks, the report's counts, the degradations and the bytes are all read from it, never
 * from the builder's live state. So whatever happens to the builder while the export runs, the
 * package and its report describe the same records.
 *
 * Nothing large is copied: the spills only grow, so the snapshot is their lengths, byte sizes and
 * digests at that point (see `StructureStore.freeze`, `VectorSpill.freeze`, `FrozenIds`).
 */
export interface Collected {
  /** The id space as it stood: an id defined by a later record is only a reference here. */
  readonly ids: IdView;
  readonly documents: readonly CollectedDocument[];
  readonly extensions: readonly CollectedExtension[];
  /** The structure records and links, their JSONL files and their field warnings. */
  readonly structure: StructureSnapshot;
  readonly vectorConfig?: PreparedVectorConfig;
  /** Each target's vectors, frozen with the rest. */
  readonly vectorSpills: ReadonlyMap<VectorTarget, VectorRows>;
  /**
   * Targets that got an input digest from the caller (`addVector` with `{ input }` or
   * `{ inputSha256 }`): the export recomputes theirs before writing.
   */
  readonly callerDigests: ReadonlySet<VectorTarget>;
  /** Folder holding the spills; the writer may put generated files (Arrow) there. */
  readonly workDir: string;
  /** Warnings reported to the builder by an adapter; they join the export's warnings (and `strict`). */
  readonly warnings?: readonly OctxIssue[];
}
