/**
 * `loadWorkdir`: a working folder or a plain Markdown tree into a builder, in four phases —
 * scan (`workdir/scan.ts`), documents (`workdir/documents.ts`), records (`workdir/records.ts`)
 * and vectors (`workdir/vectors.ts`) — and the report of what was read, adjusted and left out.
 */
import { join } from 'node:path';
import { OctxError } from '../model/errors.js';
import { assertKnownKeys, keysOf } from '../model/option-keys.js';
import type { PackageBuilder } from './package-builder.js';
import { STRUCTURE_PATHS } from '../model/paths.js';
import { resolveLimits } from '../model/limits.js';
import { groupLeftOut } from './non-document-files.js';
import { hasLayout, scanWorkdir } from './workdir/scan.js';
import { detectDocsSite } from './docs-site/detect.js';
import { MDX_MODES } from './workdir/page-text.js';
import { renameThresholdOption } from '../knowledge/rename-similarity.js';
import { findDanglingLinks, loadDocuments, loadExtensions, type LoadedDocuments } from './workdir/documents.js';
import { checkShard, shardOfPath, shardRecords } from './workdir/shard.js';
import { loadRecords } from './workdir/records.js';
import { loadVectors } from './workdir/vectors.js';
import { INDEX_FILES_MODES, type IndexFilesMode, type LoadWorkdirOptions, type WorkdirLoadReport } from './workdir/types.js';

export { MDX_MODES, type MdxMode } from './workdir/page-text.js';
export { detectDocsSite, type DocsGenerator, type DocsSite } from './docs-site/detect.js';
export { shardOfPath, type ShardSpec } from './workdir/shard.js';
export {
  INDEX_FILES_MODES,
  renamedReservedPath,
  type CarriedId,
  type ConventionCount,
  type ConvertedFrontmatter,
  type DocsSiteReport,
  type MdxPage,
  type RewrittenLinkEntry,
  type DanglingLink,
  type IndexFilesMode,
  type LoadWorkdirOptions,
  type WorkdirLoadReport,
  type WorkdirMode,
} from './workdir/types.js';

const RECORD_PATHS: ReadonlySet<string> = new Set(STRUCTURE_PATHS);

/**
 * Reads an OCTX working folder — the package layout without a manifest — into a builder:
 * `knowledge/**.md`, `data/*.jsonl`, `relations/*.jsonl`, `extensions/**`, and
 * `vectors/config.json` with vectors as `vectors/<target>.arrow` (Arrow IPC) or
 * `vectors/<target>.jsonl` (`{"record_id", "vector"}` lines). A folder with none of these parts
 * is a plain Markdown tree (`mode: 'plain-folder'`): its `.md` files are the documents, at their
 * paths under `knowledge/`, and non-OKF `index.md`/`log.md` files are kept as documents by
 * default. The `knowledge` option names the documents' folder in either layout. TOML (`+++`) and
 * JSON frontmatter is rewritten as YAML frontmatter; every document's body is kept byte for byte.
 * Files of the tree that cannot be documents are counted by kind (`leftOut`), and links to them
 * as `danglingLinks`. Files are read in UTF-8 path order so the same folder always gives the
 * same package. Every record goes through the builder's checks; an error names the file and
 * line. A chunk line may name its document by path (`"document": "guides/setup.md"`, relative
 * to `knowledge/`) instead of `document_id`: it is resolved to that document's
 * `octx.document_id` (minted by the builder when the file has none). The format is documented in
 * docs/working-folder.md. The listing is checked against the resource limits before any file is
 * read.
 * @throws OctxError `OCTX_SECURITY_ERROR` (every symbolic link, at once; every FIFO, socket or device, at once), `OCTX_RESOURCE_LIMIT`
 *   (from the listing, nothing read), `OCTX_OKF_RESERVED_INVALID` / `OCTX_FILE_PATH_DUPLICATE` /
 *   the builder's document codes naming every offending file at once, the builder's record codes
 *   with `path` and `line`; `OCTX_REFERENCE_UNKNOWN` on field `document` for a path that names no
 *   Concept Document
 */
export async function loadWorkdir(builder: PackageBuilder, dir: string, options: LoadWorkdirOptions = {}): Promise<WorkdirLoadReport> {
  assertKnownKeys(
    options,
    keysOf<LoadWorkdirOptions>({ onProgress: true, indexFiles: true, knowledge: true, limits: true, mdx: true, docsSite: true, findRenames: true, shard: true }),
    'loadWorkdir options',
  );
  const { onProgress } = options;
  const limits = resolveLimits(options.limits);
  if (options.indexFiles !== undefined && !INDEX_FILES_MODES.includes(options.indexFiles)) {
    throw OctxError.of({
      code: 'OCTX_OPTIONS_INVALID',
      field: 'indexFiles',
      message: `indexFiles must be one of ${INDEX_FILES_MODES.join(', ')} (got ${JSON.stringify(options.indexFiles)})`,
    });
  }
  if (options.mdx !== undefined && !MDX_MODES.includes(options.mdx)) {
    throw OctxError.of({ code: 'OCTX_OPTIONS_INVALID', field: 'mdx', message: `mdx must be one of ${MDX_MODES.join(', ')} (got ${JSON.stringify(options.mdx)})` });
  }
  const renameThreshold = renameThresholdOption(options.findRenames, true);
  const shard = options.shard === undefined ? undefined : checkShard(options.shard);
  // One shard of one is the whole folder: no cut, so the same package as without the option.
  const cutShard = shard !== undefined && shard.count > 1 ? { index: shard.index, of: (path: string) => shardOfPath(path, shard.count) } : undefined;
  // A docs generator's conventions apply to a plain docs folder, never to a working folder.
  const site = options.docsSite !== false && !(await hasLayout(dir)) ? await detectDocsSite(dir) : undefined;
  const scan = await scanWorkdir(dir, options.knowledge, limits, onProgress, site?.contentDir);
  const { layout, mode, knowledgeDir, tree, files, isDocument } = scan;
  // A section page named index.md is the normal case in a docs tree, so a plain folder keeps them
  // as documents by default (each reported); a working folder follows OKF strictly unless told.
  const indexFiles: IndexFilesMode = options.indexFiles ?? (layout ? 'okf' : 'as-documents');
  const fileSet = new Set(files);
  const page = { dir, treeDir: join(dir, knowledgeDir), site, mdx: options.mdx ?? 'markdown', maxFrontmatterBytes: limits.maxFrontmatterBytes } as const;
  const loaded = await loadDocuments(builder, dir, scan, { indexFiles, defaulted: options.indexFiles === undefined, limits, onProgress, page, renameThreshold, shard: cutShard });
  const extensions = await loadExtensions(builder, dir, layout ? files.filter((rel) => rel.startsWith('extensions/')) : [], onProgress);
  const ignored: string[] = [];
  const treeLeftOut: string[] = [];
  for (const rel of files) {
    if (isDocument(rel)) continue;
    if (rel.startsWith(tree)) treeLeftOut.push(rel);
    else if (!rel.startsWith('extensions/') && !RECORD_PATHS.has(rel) && !rel.startsWith('vectors/')) ignored.push(rel);
  }
  const leftOut = groupLeftOut(treeLeftOut, scan.unscanned);
  const danglingLinks = findDanglingLinks(loaded.links, new Set([...treeLeftOut.map((f) => f.slice(tree.length)), ...loaded.skipped]), tree);
  const documentIdAt = (p: string): string | undefined => {
    const at = loaded.addedAt.get(p.normalize('NFC'));
    if (at === undefined) return undefined;
    try {
      return builder.documentId(at);
    } catch {
      return undefined; // a reserved file: it has no id
    }
  };
  const cut = shard !== undefined && cutShard !== undefined ? await shardRecords(dir, fileSet, shard, chunkInShard(builder, loaded)) : undefined;
  const counts = await loadRecords(builder, dir, fileSet, documentIdAt, new Set(loaded.skipped), onProgress, cut?.keep);
  const vectors = await loadVectors(builder, dir, files, fileSet, ignored, limits, onProgress, cut?.keepVector);
  return {
    mode,
    knowledgeDir,
    indexFiles,
    documents: loaded.documents,
    ...counts,
    extensions,
    vectors,
    ignored,
    leftOut,
    reserved: loaded.reserved,
    converted: loaded.converted,
    danglingLinks,
    renamed: loaded.renamed,
    skipped: loaded.skipped,
    ...(site !== undefined
      ? { site: { generator: site.generator, label: site.label, config: site.config, ...(site.name !== undefined ? { name: site.name } : {}), contentDir: site.contentDir } }
      : {}),
    mdx: loaded.mdx,
    rewrittenLinks: loaded.rewrittenLinks,
    conventions: { applied: loaded.conventions.applied, notApplied: loaded.conventions.kept },
    carried: loaded.carried,
    ...(loaded.navigation !== undefined ? { navigation: loaded.navigation } : {}),
    warnings: loaded.warnings,
    ...(shard !== undefined ? { shard } : {}),
  };
}

/**
 * Whether a chunk line belongs to this shard: its document (by `document_id`, or by path with
 * `document`) was added by this shard. A path no page of the folder has stays in, so the loader
 * reports it; an id no page of this shard has is another shard's.
 */
function chunkInShard(builder: PackageBuilder, loaded: LoadedDocuments): (value: Record<string, unknown>) => boolean {
  const ids = new Set<string>();
  for (const path of loaded.addedAt.values()) {
    try {
      ids.add(builder.documentId(path));
    } catch {
      // a reserved file: it has no id
    }
  }
  return (value) => {
    if (typeof value.document === 'string') {
      const target = (value.document.startsWith('knowledge/') ? value.document.slice('knowledge/'.length) : value.document).normalize('NFC');
      return !loaded.elsewhere.has(target);
    }
    return typeof value.document_id !== 'string' || ids.has(value.document_id);
  };
}
