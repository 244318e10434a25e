import { createReadStream } from 'node:fs';
import { lstat, readdir, readFile, stat } from 'node:fs/promises';
import { join, posix, relative, sep } from 'node:path';
import { OctxError, issue, type OctxIssue } from '../model/errors.js';
import { assertKnownKeys, keysOf } from '../model/option-keys.js';
import type { PackageBuilder } from './package-builder.js';
import { parseStrictJson } from '../read/strict-json.js';
import { parseJsonlLine, readJsonlLines } from '../read/jsonl.js';
import { STRUCTURE_PATHS, compareUtf8 } from '../model/paths.js';
import { RECORD_KINDS, RECORD_KIND_ORDER, type RecordCountKey } from '../model/record-kinds.js';
import { VECTOR_TARGETS, type VectorTarget } from '../vectors/targets.js';
import type { VectorConfigInput } from '../vectors/config.js';
import { resolveLimits, type ArchiveLimits } from '../model/limits.js';
import { SDK_LIMITS_HINT, checkListedInput } from '../plan/limits-check.js';
import type { ProgressListener } from '../model/progress.js';
import { indexProseLine, reservedDocumentProblems } from '../knowledge/reserved.js';
import { splitFrontmatter, stripBom } from '../knowledge/frontmatter.js';
import { linkTargets, resolveLocalLink } from '../knowledge/local-links.js';
import { RESERVED_DOCUMENT_NAMES } from '../model/paths.js';
import { frontmatterSyntax, toYamlFrontmatter } from './foreign-frontmatter.js';
import { groupLeftOut, type LeftOutGroup } from './left-out.js';
import { ByteBudget } from '../read/byte-budget.js';
import { inOrder } from '../read/in-order.js';
import { fileKind } from '../package/regular-file.js';

/** Pages of a working folder read ahead of the one being added (the libuv pool has four threads). */
const DOCUMENTS_READ_AHEAD = 8;
/** Bytes of pages read ahead at most (from the listing's sizes; a larger page is read alone). */
const DOCUMENTS_READ_AHEAD_BYTES = 16 * 1024 * 1024;

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
  /**
   * `OCTX_INDEX_FILE_RENAMED` / `OCTX_INDEX_FILE_SKIPPED` warnings. When `indexFiles` was not
   * given (the folder's default mode applied), they are also the export's warnings
   * (`report.warnings`), so `strict` refuses them until `indexFiles` is given explicitly.
   */
  readonly warnings: readonly OctxIssue[];
}

const RECORD_PATHS: ReadonlySet<string> = new Set(STRUCTURE_PATHS);

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}

/** What a walk found besides the files. */
interface WalkFindings {
  /** Symbolic links met (never followed), relative to the root. */
  readonly links: string[];
  /** Folders not scanned (plain-folder mode: hidden folders and `node_modules`), relative to the root. */
  readonly unscanned: string[];
  /** FIFOs, sockets and devices met (never opened: a FIFO would block), with what each is. */
  readonly special: { readonly path: string; readonly kind: string }[];
}

/** Folders a plain Markdown tree holds that are never documentation: tool caches, builds, VCS. */
function unscannedFolder(name: string): boolean {
  return name.startsWith('.') || name === 'node_modules';
}

/**
 * Every regular file below `dir`, as POSIX paths relative to `root`. Symbolic links are
 * collected (and refused by the caller, all at once); with `skipTools`, hidden folders and
 * `node_modules` are listed as not scanned instead of walked.
 */
async function walk(root: string, dir: string, out: string[], found: WalkFindings, skipTools: boolean, onFolder?: () => void): Promise<void> {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    const rel = relative(root, full).split(sep).join('/');
    if (entry.isSymbolicLink()) found.links.push(rel);
    else if (entry.isDirectory() && skipTools && unscannedFolder(entry.name)) found.unscanned.push(rel);
    else if (entry.isDirectory()) await walk(root, full, out, found, skipTools, onFolder);
    else if (entry.isFile()) out.push(rel);
    else found.special.push({ path: rel, kind: fileKind(entry) });
  }
  onFolder?.();
}

/**
 * What makes a folder a working folder: a `knowledge/` folder, a record file or the vector
 * config. A docs tree's own `data/` or `vectors/` folder (of JSON, images) does not.
 */
const LAYOUT_MARKERS: readonly string[] = [...STRUCTURE_PATHS, 'vectors/config.json'];

async function hasLayout(dir: string): Promise<boolean> {
  if (await isFolder(join(dir, 'knowledge'))) return true;
  return (await Promise.all(LAYOUT_MARKERS.map((p) => exists(join(dir, p))))).some(Boolean);
}

async function isFolder(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}

/** The `knowledge` option as a clean relative folder of `dir`. */
async function knowledgeOption(dir: string, value: unknown): Promise<string> {
  const bad = (message: string): never => {
    throw OctxError.of({ code: 'OCTX_OPTIONS_INVALID', field: 'knowledge', message });
  };
  if (typeof value !== 'string' || value.trim() === '') bad('knowledge must name a folder inside the folder read, e.g. "docs"');
  const clean = posix.normalize((value as string).split(sep).join('/')).replace(/\/+$/, '');
  if (clean.startsWith('/') || clean === '..' || clean.startsWith('../') || /^[A-Za-z]:/.test(clean)) {
    bad(`knowledge must be a folder inside the folder read (got ${JSON.stringify(value)})`);
  }
  if (
    await lstat(join(dir, clean)).then(
      (st) => st.isSymbolicLink(),
      () => false,
    )
  ) {
    throw OctxError.of({
      code: 'OCTX_SECURITY_ERROR',
      path: clean,
      field: 'knowledge',
      message: `knowledge folder ${clean} is a symbolic link, never followed: name the folder it points to`,
    });
  }
  if (!(await isFolder(join(dir, clean)))) {
    throw OctxError.of({ code: 'OCTX_OPEN_ERROR', path: join(dir, clean), field: 'knowledge', message: `knowledge folder ${clean} is not a folder in ${dir}` });
  }
  return clean;
}

const utf8Strict = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Reference by path (`"document": "guides/setup.md"`) → `document_id`, on a chunk line. */
function resolveDocumentPath(
  value: Record<string, unknown>,
  documentIdAt: (path: string) => string | undefined,
  skipped: ReadonlySet<string>,
  path: string,
  line: number,
): Record<string, unknown> {
  if (!Object.hasOwn(value, 'document')) return value;
  const { document, ...rest } = value;
  const recordId = typeof value.id === 'string' ? { recordId: value.id } : {};
  if (Object.hasOwn(value, 'document_id')) {
    throw OctxError.of({
      code: 'OCTX_RECORD_INVALID',
      path,
      line,
      ...recordId,
      field: 'document',
      message: 'give the document either by path (document) or by id (document_id), not both',
    });
  }
  if (typeof document !== 'string' || document === '') {
    throw OctxError.of({
      code: 'OCTX_RECORD_INVALID',
      path,
      line,
      ...recordId,
      field: 'document',
      message: 'document must be the path of a Markdown file under knowledge/, e.g. "guides/setup.md"',
    });
  }
  const target = (document.startsWith('knowledge/') ? document.slice('knowledge/'.length) : document).normalize('NFC');
  const id = documentIdAt(target);
  if (id === undefined) {
    const why = skipped.has(target) ? ': it was left out (indexFiles: skip)' : ' (document paths are relative to knowledge/)';
    throw OctxError.of({
      code: 'OCTX_REFERENCE_UNKNOWN',
      path,
      line,
      ...recordId,
      field: 'document',
      message: `no Concept Document at knowledge/${target}${why}`,
    });
  }
  return { ...rest, document_id: id };
}

/** Adds `path:line` to an error raised for one JSONL line. */
function atLine(e: unknown, path: string, line: number): unknown {
  if (!(e instanceof OctxError)) return e;
  const issues: OctxIssue[] = e.issues.map((i) => issue({ ...i, path, line }));
  return new OctxError(e.code, `${path}:${line}: ${e.message}`, { issues, cause: e });
}

async function* jsonlRecords(file: string, path: string): AsyncGenerator<{ line: number; value: Record<string, unknown>; size: number }> {
  // The package reader's strict splitter: exact UTF-8 (no silent U+FFFD), no BOM, no blank lines,
  // no duplicate keys — the same rules a consumer applies to the written file.
  for await (const line of readJsonlLines(createReadStream(file), { path, maxLines: Number.MAX_SAFE_INTEGER })) {
    const parsed = parseJsonlLine(line);
    if (!parsed.ok) throw OctxError.of({ code: parsed.code, path, line: line.line, message: parsed.message });
    yield { line: line.line, value: parsed.record, size: line.bytes.length + 1 };
  }
}

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
  assertKnownKeys(options, keysOf<LoadWorkdirOptions>({ onProgress: true, indexFiles: true, knowledge: true, limits: true }), 'loadWorkdir options');
  const { onProgress } = options;
  const limits = resolveLimits(options.limits);
  if (options.indexFiles !== undefined && !INDEX_FILES_MODES.includes(options.indexFiles)) {
    throw OctxError.of({
      code: 'OCTX_OPTIONS_INVALID',
      field: 'indexFiles',
      message: `indexFiles must be one of ${INDEX_FILES_MODES.join(', ')} (got ${JSON.stringify(options.indexFiles)})`,
    });
  }
  if (!(await exists(dir))) throw OctxError.of({ code: 'OCTX_OPEN_ERROR', path: dir, message: `working folder ${dir} does not exist` });
  const layout = await hasLayout(dir);
  const mode: WorkdirMode = layout ? 'working-folder' : 'plain-folder';
  const knowledgeDir = options.knowledge !== undefined ? await knowledgeOption(dir, options.knowledge) : layout ? 'knowledge' : '.';
  // A section page named index.md is the normal case in a docs tree, so a plain folder keeps them
  // as documents by default (each reported); a working folder follows OKF strictly unless told.
  const indexFiles: IndexFilesMode = options.indexFiles ?? (layout ? 'okf' : 'as-documents');
  const tree = knowledgeDir === '.' ? '' : `${knowledgeDir}/`;
  const files: string[] = [];
  const found: WalkFindings = { links: [], unscanned: [], special: [] };
  let folders = 0;
  // A plain folder is walked from its knowledge tree only; a working folder whole (its layout).
  await walk(dir, layout ? dir : join(dir, knowledgeDir), files, found, !layout, () => {
    // Listing is quick per folder; report every 64 folders so a huge tree still shows life.
    if (++folders % 64 === 0) onProgress?.({ phase: 'scan', kind: 'files', completed: files.length, total: files.length });
  });
  if (found.links.length > 0) {
    found.links.sort(compareUtf8);
    throw OctxError.aggregate(
      'OCTX_SECURITY_ERROR',
      `${found.links.length} symbolic link${found.links.length === 1 ? '' : 's'} in ${dir}, never followed (a link can reach outside the folder): replace each with a copy of what it points at (cp -RL copies a tree with its links resolved), or build the folder it points to:`,
      found.links.map((path) =>
        issue({
          code: 'OCTX_SECURITY_ERROR',
          path,
          message: `${path} is a symbolic link, never followed: copy what it points at into the folder (cp -RL), or build that folder itself`,
        }),
      ),
    );
  }
  if (found.special.length > 0) {
    // Named, not skipped: a page that is a FIFO would otherwise be missing from the package without a word.
    found.special.sort((a, b) => compareUtf8(a.path, b.path));
    throw OctxError.aggregate(
      'OCTX_SECURITY_ERROR',
      `${found.special.length} file${found.special.length === 1 ? '' : 's'} in ${dir} that cannot be read as files (FIFOs, sockets, devices): remove or replace each with a regular file:`,
      found.special.map(({ path, kind }) =>
        issue({ code: 'OCTX_SECURITY_ERROR', path, message: `${path} is ${kind}, not a regular file: only regular files and folders are read` }),
      ),
    );
  }
  files.sort(compareUtf8);
  found.unscanned.sort(compareUtf8);
  const isDocument = (rel: string): boolean => rel.startsWith(tree) && rel.endsWith('.md') && posix.basename(rel) !== '.md';
  const sizes = await checkListing(dir, files, limits, isDocument);
  onProgress?.({ phase: 'scan', kind: 'files', completed: files.length, total: files.length });
  const fileSet = new Set(files);
  const ignored: string[] = [];
  const treeLeftOut: string[] = [];
  const renamed: { from: string; to: string }[] = [];
  const skipped: string[] = [];
  const reserved: string[] = [];
  const converted: ConvertedFrontmatter[] = [];
  const warnings: OctxIssue[] = [];
  const refusals: OctxIssue[] = [];
  // An adjustment the caller asked for (`indexFiles` given) is reported as it happens; one made by
  // the plain-folder default is a warning of the export too, so `strict` refuses it (the export
  // emits it then, once) until the caller accepts it with an explicit `indexFiles`.
  const defaulted = options.indexFiles === undefined;
  const warn = (w: OctxIssue): void => {
    warnings.push(w);
    if (defaulted) builder.reportWarning(w);
    else onProgress?.({ phase: 'warning', issue: w });
  };
  /** Original path under knowledge/ → the path it was added at (differs for renamed index files). */
  const addedAt = new Map<string, string>();
  /** Each document's local link targets (tree-relative), for the dangling-link count. */
  const links: { from: string; targets: string[] }[] = [];
  const markdown = files.filter(isDocument);
  const markdownSet = new Set(markdown);
  const extensionFiles = layout ? files.filter((rel) => rel.startsWith('extensions/')) : [];
  let documents = 0;
  let read = 0;
  let bytes = 0;
  onProgress?.({ phase: 'load', kind: 'documents', completed: 0, total: markdown.length, bytes });
  // Read a few pages ahead (bounded by the listing's sizes): one readFile at a time was four
  // libuv round trips per page while the main thread waited (2,000 pages: ~0.4 s of a 3 s build).
  const pages = inOrder(markdown, DOCUMENTS_READ_AHEAD, (file) => readFile(join(dir, file)), {
    bytes: new ByteBudget(DOCUMENTS_READ_AHEAD_BYTES),
    cost: (file) => sizes.get(file) ?? DOCUMENTS_READ_AHEAD_BYTES,
  });
  for await (const [rel, bytesOfFile] of pages) {
    read++;
    bytes += bytesOfFile.length;
    const progressed = (): void => onProgress?.({ phase: 'load', kind: 'documents', completed: read, total: markdown.length, bytes });
    const original = rel.slice(tree.length);
    const pkg = `knowledge/${original}`;
    let path = original;
    let markdownInput: string | Uint8Array = bytesOfFile;
    let text: string | undefined;
    let targets: string[] = [];
    try {
      text = stripBom(utf8Strict.decode(bytesOfFile));
    } catch {
      text = undefined; // not UTF-8: addDocument names the problem
    }
    if (text !== undefined) {
      try {
        const yaml = toYamlFrontmatter(text, pkg);
        if (yaml.syntax === 'toml' || yaml.syntax === 'json') {
          converted.push({ path: pkg, from: yaml.syntax });
          text = yaml.text;
          markdownInput = text;
        }
      } catch (e) {
        if (!(e instanceof OctxError)) throw e;
        refusals.push(...e.issues);
        progressed();
        continue;
      }
      const split = splitFrontmatter(text);
      targets = linkTargets(split.ok ? split.parts.body : text);
    }
    const name = posix.basename(path);
    if (text !== undefined && (name === 'index.md' || name === 'log.md')) {
      const problems = reservedDocumentProblems(pkg, text, limits.maxFrontmatterBytes);
      if (problems.length === 0 && !layout && name === 'index.md' && indexFiles !== 'okf') {
        // A README-like page passes the OKF index rules (a heading, one link item) and is content.
        const prose = indexProseLine(text);
        if (prose) problems.push(`it holds text besides headings and link lists, line ${prose.line}: ${JSON.stringify(prose.text)}`);
      }
      if (problems.length === 0) {
        reserved.push(pkg);
      } else if (indexFiles === 'okf') {
        refusals.push(issue({ code: 'OCTX_OKF_RESERVED_INVALID', path: pkg, message: `${pkg} is not an OKF ${name}: ${problems.join('; ')}` }));
        progressed();
        continue;
      } else if (indexFiles === 'skip') {
        skipped.push(path);
        warn(issue({ code: 'OCTX_INDEX_FILE_SKIPPED', severity: 'warning', path: pkg, message: `${pkg} is not an OKF ${name} (${problems[0]}); left out (indexFiles: skip)` }));
        progressed();
        continue;
      } else {
        const to = renamedReservedPath(path);
        if (markdownSet.has(`${tree}${to}`)) {
          refusals.push(
            issue({
              code: 'OCTX_FILE_PATH_DUPLICATE',
              path: pkg,
              message: `${pkg} is not an OKF ${name} and would be kept as knowledge/${to}, but that file exists too; rename one of them, or leave the non-OKF files out (indexFiles: skip)`,
            }),
          );
          progressed();
          continue;
        }
        warn(
          issue({
            code: 'OCTX_INDEX_FILE_RENAMED',
            severity: 'warning',
            path: pkg,
            message: `${pkg} is not an OKF ${name} (${problems[0]}); kept as the concept document knowledge/${to} (indexFiles: as-documents)`,
          }),
        );
        renamed.push({ from: path, to });
        path = to;
      }
    }
    if (text !== undefined && !RESERVED_DOCUMENT_NAMES.has(posix.basename(path)) && frontmatterSyntax(text) === 'none') {
      // An empty block for the builder to complete: the body after it stays the file's, byte for
      // byte (a file without one would get a blank line between the new block and its text).
      const newline = text.includes('\r\n') ? '\r\n' : '\n';
      markdownInput = `---${newline}---${newline}${text}`;
    }
    try {
      builder.addDocument({ path, markdown: markdownInput });
    } catch (e) {
      if (!(e instanceof OctxError)) throw e;
      refusals.push(...e.issues.map((i) => (i.path === undefined ? { ...i, path: pkg } : i)));
      progressed();
      continue;
    }
    addedAt.set(original.normalize('NFC'), path);
    // Only documents in the package count: a skipped page's links go nowhere.
    if (targets.length > 0) links.push({ from: original, targets });
    documents++;
    progressed();
  }
  if (refusals.length > 0) throw documentRefusal(refusals);
  let extensions = 0;
  bytes = 0;
  for (const rel of extensionFiles) {
    const content = await readFile(join(dir, rel));
    builder.addExtensionFile(rel, content);
    extensions++;
    bytes += content.length;
    onProgress?.({ phase: 'load', kind: 'extensions', completed: extensions, total: extensionFiles.length, bytes });
  }
  for (const rel of files) {
    if (isDocument(rel)) continue;
    if (rel.startsWith(tree)) treeLeftOut.push(rel);
    else if (!rel.startsWith('extensions/') && !RECORD_PATHS.has(rel) && !rel.startsWith('vectors/')) ignored.push(rel);
  }
  const leftOut = groupLeftOut(treeLeftOut, found.unscanned);
  const danglingLinks = findDanglingLinks(links, new Set([...treeLeftOut.map((f) => f.slice(tree.length)), ...skipped]), tree);
  const documentIdAt = (p: string): string | undefined => {
    const at = addedAt.get(p.normalize('NFC'));
    if (at === undefined) return undefined;
    try {
      return builder.documentId(at);
    } catch {
      return undefined; // a reserved file: it has no id
    }
  };
  const skippedSet = new Set(skipped);
  const counts = {} as Record<RecordCountKey, number>;
  for (const kind of RECORD_KIND_ORDER) {
    const { path, countKey: key } = RECORD_KINDS[kind];
    // Progress names the file (`chunks`, `chunk-events`), as the user sees it in the folder.
    const step = posix.basename(path, '.jsonl');
    counts[key] = 0;
    if (!fileSet.has(path)) continue;
    const totalBytes = (await stat(join(dir, path))).size;
    let read = 0;
    onProgress?.({ phase: 'load', kind: step, completed: 0, total: 0, bytes: 0, totalBytes });
    for await (const { line, value, size } of jsonlRecords(join(dir, path), path)) {
      try {
        builder.recordSource({ path, line });
        builder.addRecord(kind, kind === 'chunk' ? resolveDocumentPath(value, documentIdAt, skippedSet, path, line) : value);
      } catch (e) {
        throw atLine(e, path, line);
      } finally {
        builder.recordSource(undefined);
      }
      counts[key] += 1;
      read += size;
      if (counts[key] % 1000 === 0) onProgress?.({ phase: 'load', kind: step, completed: counts[key], total: counts[key], bytes: read, totalBytes });
    }
    onProgress?.({ phase: 'load', kind: step, completed: counts[key], total: counts[key], bytes: totalBytes, totalBytes });
  }
  const vectors = { chunks: 0, events: 0, entities: 0 } as Record<VectorTarget, number>;
  if (fileSet.has('vectors/config.json')) {
    const text = await readFile(join(dir, 'vectors/config.json'), 'utf8');
    const parsed = parseStrictJson(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
    if (!parsed.ok) throw OctxError.of({ code: 'OCTX_VECTOR_CONFIG_INVALID', path: 'vectors/config.json', message: parsed.message });
    builder.setVectorConfig(parsed.value as VectorConfigInput);
    for (const target of VECTOR_TARGETS) {
      const arrow = fileSet.has(`vectors/${target}.arrow`);
      const file = arrow ? `vectors/${target}.arrow` : `vectors/${target}.jsonl`;
      if (!fileSet.has(file)) continue;
      const totalBytes = (await stat(join(dir, file))).size;
      onProgress?.({ phase: 'load', kind: `vectors ${target}`, completed: 0, total: 0, bytes: 0, totalBytes });
      vectors[target] = arrow ? await loadArrowVectors(builder, target, join(dir, file), limits) : await loadJsonlVectors(builder, target, join(dir, file));
      onProgress?.({ phase: 'load', kind: `vectors ${target}`, completed: vectors[target], total: vectors[target], bytes: totalBytes, totalBytes });
    }
  }
  for (const rel of files) {
    if (rel.startsWith('vectors/') && rel !== 'vectors/config.json' && !VECTOR_TARGETS.some((t) => rel === `vectors/${t}.arrow` || rel === `vectors/${t}.jsonl`)) ignored.push(rel);
  }
  return {
    mode,
    knowledgeDir,
    indexFiles,
    documents,
    ...counts,
    extensions,
    vectors,
    ignored,
    leftOut,
    reserved,
    converted,
    danglingLinks,
    renamed,
    skipped,
    warnings,
  };
}

/**
 * One error for every document that could not be added: the code of them all when they share
 * it, with a headline that names the way out for index/log files.
 */
function documentRefusal(refusals: readonly OctxIssue[]): OctxError {
  const codes = new Set(refusals.map((r) => r.code));
  const code = refusals[0]!.code;
  const n = refusals.length;
  const files = `${n} file${n === 1 ? '' : 's'}`;
  if (codes.size === 1 && code === 'OCTX_OKF_RESERVED_INVALID') {
    return OctxError.aggregate(
      code,
      `${files} named index.md/log.md ${n === 1 ? 'is' : 'are'} not OKF index/log files; keep them as documents renamed to _index.md/_log.md (indexFiles: as-documents), or leave them out (indexFiles: skip):`,
      refusals,
    );
  }
  return OctxError.aggregate(code, `${files} of the knowledge tree cannot be documents as they are; nothing was written:`, refusals);
}

/** Links to left-out files, per document, in document order. */
function findDanglingLinks(links: readonly { from: string; targets: readonly string[] }[], leftOut: ReadonlySet<string>, tree: string): DanglingLink[] {
  const out: DanglingLink[] = [];
  for (const { from, targets } of links) {
    for (const target of targets) {
      const local = resolveLocalLink(from, target);
      if (local === undefined) continue;
      // Site-absolute links (/logo.svg) name files of the site's public/ or static/ folder.
      const hit = [local, `public/${local}`, `static/${local}`].find((p) => leftOut.has(p));
      if (hit !== undefined && (hit === local || target.startsWith('/'))) out.push({ from: `knowledge/${from}`, to: `${tree}${hit}` });
    }
  }
  return out;
}

/**
 * Refuses a folder whose documents and extension files alone exceed the limits (each becomes one
 * package entry at least as large as the file), from the listing and file sizes, before a byte is read.
 */
async function checkListing(dir: string, files: readonly string[], limits: ArchiveLimits, isDocument: (rel: string) => boolean): Promise<ReadonlyMap<string, number>> {
  const payloads = files.filter((rel) => isDocument(rel) || rel.startsWith('extensions/'));
  let sized: { path: string; size: number }[] = [];
  if (payloads.length + 1 <= limits.maxEntries) sized = await Promise.all(payloads.map(async (path) => ({ path, size: (await stat(join(dir, path))).size })));
  const issues = checkListedInput(payloads.length, () => sized, limits);
  if (issues.length > 0) {
    throw OctxError.aggregate(
      'OCTX_RESOURCE_LIMIT',
      `the working folder ${dir} would make a package over the consumers' resource limits; nothing was read (${SDK_LIMITS_HINT}):`,
      issues,
    );
  }
  return new Map(sized.map(({ path, size }) => [path, size]));
}

async function loadJsonlVectors(builder: PackageBuilder, target: VectorTarget, file: string): Promise<number> {
  const path = `vectors/${target}.jsonl`;
  let n = 0;
  for await (const { line, value } of jsonlRecords(file, path)) {
    if (typeof value.record_id !== 'string' || !Array.isArray(value.vector)) {
      throw OctxError.of({ code: 'OCTX_VECTOR_VALUE_INVALID', path, line, message: 'vector lines are {"record_id": "<uuid>", "vector": [numbers]}' });
    }
    try {
      // An optional input digest travels with its vector (checked, and all-or-none, by addVector).
      builder.addVector(target, value.record_id, value.vector as number[], value.input_sha256 !== undefined ? { inputSha256: value.input_sha256 as string } : undefined);
    } catch (e) {
      throw atLine(e, path, line);
    }
    n++;
  }
  return n;
}

/**
 * Adds the vectors of `vectors/<target>.arrow`, read and checked as the validator reads a
 * package's target (`readVectorFileRows`): the IPC file format, the column table, the `limits`,
 * the width of the folder's vector config, and no null or non-finite value, each refused with the
 * code the validator reports.
 */
async function loadArrowVectors(builder: PackageBuilder, target: VectorTarget, file: string, limits: ArchiveLimits): Promise<number> {
  const path = `vectors/${target}.arrow`;
  let n = 0;
  try {
    // apache-arrow (~20 MiB of RSS once loaded) only for a folder with Arrow vectors.
    const { readVectorFileRows } = await import('../read/arrow-rows.js');
    const dimensions = builder.vectorConfig?.dimensions;
    for await (const row of readVectorFileRows(file, { path, limits, ...(dimensions === undefined ? {} : { expectedDimension: dimensions }) })) {
      builder.addVector(target, row.recordId, row.vector, row.inputSha256 !== undefined ? { inputSha256: row.inputSha256 } : undefined);
      n++;
    }
  } catch (e) {
    if (e instanceof OctxError) throw e;
    throw OctxError.of({ code: 'OCTX_VECTOR_ARROW_INVALID', path, message: `cannot read Arrow vectors: ${(e as Error).message}` });
  }
  return n;
}
