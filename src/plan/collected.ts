import type { OctxIssue } from '../model/errors.js';
import type { SpilledEntry } from '../package/payload-spill.js';
import type { PreparedVectorConfig } from '../vectors/config.js';
import type { VectorTarget } from '../vectors/targets.js';
import type { VectorSpill } from '../vectors/vector-spill.js';
import type { IdRegistry } from '../structure/id-registry.js';
import type { StructureStore } from '../structure/structure-store.js';

/** A knowledge document as collected: its bytes are already spilled (hashed, being compressed). */
export interface CollectedDocument {
  readonly path: string;
  readonly kind: 'concept' | 'reserved';
  readonly documentId?: string;
  /** Dense id in the registry (concepts only). */
  readonly dense?: number;
  readonly title?: string;
  /** UTF-8 bytes of the frontmatter block (concepts): checked against the export's `limits.maxFrontmatterBytes`. */
  readonly frontmatterBytes?: number;
  /** YAML nodes of that block (concepts): checked against the export's `limits.maxFrontmatterNodes`. */
  readonly frontmatterNodes?: number;
  readonly entry: SpilledEntry;
  readonly size: number;
  readonly sha256: string;
}

/** A private extension file (`extensions/<namespace>/<major.minor>/…`). */
export interface CollectedExtension {
  readonly path: string;
  readonly entry: SpilledEntry;
  readonly size: number;
  readonly sha256: string;
}

/**
 * Everything the builder collected, read-only: the planner's whole input. The builder owns and
 * mutates these; the planner and writer only read them.
 */
export interface Collected {
  readonly ids: IdRegistry;
  readonly documents: readonly CollectedDocument[];
  readonly extensions: readonly CollectedExtension[];
  readonly structure: StructureStore;
  readonly vectorConfig?: PreparedVectorConfig;
  readonly vectorSpills: ReadonlyMap<VectorTarget, VectorSpill>;
  /** Folder holding the spills; the writer may put generated files (Arrow) there. */
  readonly workDir: string;
  /** Warnings reported to the builder by an adapter; they join the export's warnings (and `strict`). */
  readonly warnings?: readonly OctxIssue[];
}
