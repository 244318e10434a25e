/**
 * The options and the report of `loadWorkdir`, shared by its phases (scan, documents, records,
 * vectors) and re-exported by `builder/load-workdir.ts`.
 */
import { posix } from 'node:path';
import type { OctxIssue } from '../../model/errors.js';
import type { ArchiveLimits } from '../../model/limits.js';
import type { ProgressListener } from '../../model/progress.js';
import type { RecordCountKey } from '../../model/record-kinds.js';
import type { VectorTarget } from '../../vectors/targets.js';
import type { LeftOutGroup } from '../non-document-files.js';
import type { DocsGenerator } from '../docs-site/detect.js';
import type { MdxMode } from './page-text.js';
import type { ShardSpec } from './shard.js';

/**
 * What to do with an `index.md` or `log.md` that is not a valid OKF reserved file (a docs-site
 * section page, say). Valid OKF index and log files are always kept as they are.
 * - `okf` (default): refuse it (`OCTX_OKF_RESERVED_INVALID`), as OCTX-REFERENCE §8.2 asks;
 * - `as-documents`: keep it as a Concept Document renamed to `_index.md` / `_log.md` in the same
 *   folder (so its relative links still resolve), with an `OCTX_INDEX_FILE_RENAMED` warning;
 * - `skip`: leave it out, with an `OCTX_INDEX_FILE_SKIPPED` warning.
 */
export type IndexFilesMode = 'okf' | 'as-documents' | 'skip';

/** The accepted {@link IndexFilesMode} values. */
export const INDEX_FILES_MODES: readonly IndexFilesMode[] = ['okf', 'as-documents', 'skip'];

/** Options of {@link loadWorkdir}. */
export interface LoadWorkdirOptions {
  /** Progress of the `scan` and `load` steps (and warnings), e.g. `terminalProgress()`. */
  readonly onProgress?: ProgressListener;
  /**
   * Non-OKF `index.md`/`log.md` files: see {@link IndexFilesMode} (default `okf` for a working
   * folder, `as-documents` for a plain Markdown folder, see {@link WorkdirMode}).
   */
  readonly indexFiles?: IndexFilesMode;
  /**
   * The folder (relative to `dir`, POSIX separators) whose Markdown files are the documents, in
   * any layout: `'docs'` takes `dir/docs/**.md` as `knowledge/**.md`. Default: `knowledge` in a
   * working folder, `dir` itself in a plain Markdown folder.
   */
  readonly knowledge?: string;
  /**
   * The resource limits the package must fit (default: the reference's, as in `export({ limits })`;
   * pass the same value to both). The folder's listing is checked against them before any file
   * is read: more documents and extension files than `maxEntries` allows, or one larger than
   * `maxFileSize`, is refused at once with `OCTX_RESOURCE_LIMIT`.
   */
  readonly limits?: Partial<ArchiveLimits>;
  /**
   * `.mdx` pages (documents like `.md` ones, at the same path ending in `.md`): `markdown`
   * (default) turns their MDX syntax into Markdown (imports and expressions removed, components
   * unwrapped to their Markdown children, see `mdxToMarkdown`); `verbatim` keeps their source bytes.
   */
  readonly mdx?: MdxMode;
  /**
   * Recognise the docs generator of a plain folder from its config file (VitePress, Docusaurus,
   * Starlight, mdBook, Hugo, MkDocs) and apply its conventions: its pages' folder as the default
   * `knowledge`, mdBook includes, Hugo `ref`s, titles without heading anchors, its own `type` key
   * kept apart from the OKF type, its navigation as the root `index.md` (default `true`;
   * docs/docs-sites.md).
   */
  readonly docsSite?: boolean;
  /**
   * With the builder's producer state: a page whose path is new and whose body is similar to a
   * page gone since the last release (git's rename detection) keeps that page's document id.
   * `true` (default) is git's 50%; a number from 0 to 1 is the least similarity; `false` turns it off.
   */
  readonly findRenames?: boolean | number;
  /**
   * Build one shard of the folder (`{ index, count }`, `0 ≤ index < count`): its documents (cut by
   * `shardOfPath`, a SHA-256 of the package path), their chunks, the events linked to those
   * chunks (with their parents), the entities those events name, the relations between them and
   * their vectors; events and entities no chunk reaches go to shard 0, extension files to every
   * shard. Merged (`mergePackages`), the shards built with the same asset id, release and ids give
   * the package of the whole folder. A shard of one is the whole folder. docs/distributed.md.
   */
  readonly shard?: ShardSpec;
}

/**
 * How a folder was read:
 * - `working-folder`: it has the package layout (a `knowledge/` folder, a record file such as
 *   `data/chunks.jsonl`, or `vectors/config.json`); the documents are `knowledge/**.md` (or the
 *   `knowledge` option's folder);
 * - `plain-folder`: it has none of them, so it is a plain Markdown tree (a VitePress, Docusaurus,
 *   Hugo or MkDocs docs folder): its `.md` files are the documents, at their paths under
 *   `knowledge/`. Hidden folders and `node_modules` are not scanned there.
 */
export type WorkdirMode = 'working-folder' | 'plain-folder';

/** A document whose TOML or JSON frontmatter was rewritten as YAML frontmatter. */
export interface ConvertedFrontmatter {
  /** The document, under `knowledge/` (its path in the package before any index rename). */
  readonly path: string;
  /** The syntax of the file's block. */
  readonly from: 'toml' | 'json';
}

/** A link in a document to a file that was left out of the package: it dangles there. */
export interface DanglingLink {
  /** The linking document, as `knowledge/…` (its path in the folder's tree). */
  readonly from: string;
  /** The left-out file, relative to the folder read. */
  readonly to: string;
}

/** An `.mdx` page: where it went and what its conversion changed (see `mdxToMarkdown`). */
export interface MdxPage {
  /** The document, under `knowledge/` (`.md`). */
  readonly path: string;
  /** The page in the tree, under `knowledge/` (`.mdx`). */
  readonly from: string;
  readonly esm: number;
  readonly expressions: number;
  readonly elements: number;
  readonly attributes: number;
  readonly components: readonly string[];
  /** Kept as its source bytes: `mdx: 'verbatim'`, or it does not parse (an `OCTX_MDX_UNPARSED` warning). */
  readonly verbatim: boolean;
}

/** A link rewritten because the page it names was renamed (`guide/index.md` → `guide/_index.md`, `a.mdx` → `a.md`). */
export interface RewrittenLinkEntry {
  /** The linking document, under `knowledge/` (its package path). */
  readonly in: string;
  /** The line of the link in the document's body (1-based). */
  readonly line: number;
  readonly from: string;
  readonly to: string;
}

/** One kind of docs-generator convention, how often it was met and where (`knowledge/…` paths, in order). */
export interface ConventionCount {
  readonly kind: string;
  readonly count: number;
  readonly files: readonly string[];
}

/** A page whose id was carried over from the path it had in the previous release (a rename). */
export interface CarriedId {
  /** The previous path, under `knowledge/`. */
  readonly from: string;
  /** The new path, under `knowledge/`. */
  readonly to: string;
  readonly id: string;
  /** The similarity of the two bodies, in percent (one decimal; git's measure). */
  readonly similarity: number;
}

/** The docs generator a plain folder was recognised as (see `detectDocsSite`). */
export interface DocsSiteReport {
  readonly generator: DocsGenerator;
  /** The generator's name as people write it (`mdBook`, `Docusaurus`…). */
  readonly label: string;
  /** Its config file, relative to the folder read. */
  readonly config: string;
  /** The site's name from the config, when it is a literal there (the default asset name). */
  readonly name?: string;
  /** The pages' folder its config names (the default `knowledge` folder). */
  readonly contentDir: string;
}

/** The name a non-OKF reserved file gets with `indexFiles: 'as-documents'`: `a/index.md` → `a/_index.md`. */
export function renamedReservedPath(path: string): string {
  const dir = posix.dirname(path);
  const name = `_${posix.basename(path)}`;
  return dir === '.' ? name : `${dir}/${name}`;
}

/**
 * What {@link loadWorkdir} read from a folder. The records read of every kind of `RECORD_KINDS`
 * are counted under the export report's count keys (`chunks`, `events`, `entities`,
 * `chunkEvents`, `eventEntities`).
 */
export interface WorkdirLoadReport extends Readonly<Record<RecordCountKey, number>> {
  /** How the folder was read: see {@link WorkdirMode}. */
  readonly mode: WorkdirMode;
  /** The folder whose Markdown files are the documents, relative to the folder read (`.` for itself). */
  readonly knowledgeDir: string;
  /** The `indexFiles` mode applied (given, or the default of {@link WorkdirLoadReport.mode}). */
  readonly indexFiles: IndexFilesMode;
  /** Markdown files added (concepts, renamed index pages and valid OKF index/log files). */
  readonly documents: number;
  readonly extensions: number;
  readonly vectors: Readonly<Record<VectorTarget, number>>;
  /** Files outside the knowledge tree that are not part of the package layout and were not read. */
  readonly ignored: readonly string[];
  /** Files in the knowledge tree that cannot be documents (images, components, data…), by kind. */
  readonly leftOut: readonly LeftOutGroup[];
  /** Valid OKF `index.md`/`log.md` files kept as reserved files (not concepts: nothing can name them), under `knowledge/`. */
  readonly reserved: readonly string[];
  /** Documents whose TOML (`+++`) or JSON frontmatter was rewritten as YAML frontmatter. */
  readonly converted: readonly ConvertedFrontmatter[];
  /** Links in documents to files that were left out (or skipped index files). */
  readonly danglingLinks: readonly DanglingLink[];
  /** Non-OKF index/log files renamed (`indexFiles: 'as-documents'`), as `{ from, to }` under `knowledge/`. */
  readonly renamed: readonly { readonly from: string; readonly to: string }[];
  /** Non-OKF index/log files left out (`indexFiles: 'skip'`), under `knowledge/`. */
  readonly skipped: readonly string[];
  /** The docs generator recognised (plain folders), or absent. */
  readonly site?: DocsSiteReport;
  /** The `.mdx` pages, with what their conversion changed. */
  readonly mdx: readonly MdxPage[];
  /** Links rewritten because the page they name was renamed (the only body change besides MDX and generator syntax). */
  readonly rewrittenLinks: readonly RewrittenLinkEntry[];
  /** The generator's conventions met: applied, and kept as written (each kind also an `OCTX_CONVENTION_NOT_APPLIED` warning). */
  readonly conventions: { readonly applied: readonly ConventionCount[]; readonly notApplied: readonly ConventionCount[] };
  /** Pages whose id was carried over a rename from the producer state's last release. */
  readonly carried: readonly CarriedId[];
  /** The root OKF `index.md` written from the site's navigation, when one was. */
  readonly navigation?: string;
  /**
   * `OCTX_INDEX_FILE_RENAMED` / `OCTX_INDEX_FILE_SKIPPED` warnings. When `indexFiles` was not
   * given (the folder's default mode applied), they are also the export's warnings
   * (`report.warnings`), so `strict` refuses them until `indexFiles` is given explicitly.
   */
  readonly warnings: readonly OctxIssue[];
  /** The shard built (the `shard` option), when one was given; the counts above are the shard's. */
  readonly shard?: ShardSpec;
}
