/**
 * The documents phase of `loadWorkdir`: every Markdown file of the knowledge tree, read a few
 * pages ahead in path order, its TOML/JSON frontmatter rewritten as YAML, non-OKF `index.md` /
 * `log.md` files handled by the `indexFiles` mode, and added to the builder; then the extension
 * files. Every document that cannot be added is named in one error.
 */
import { readFile } from 'node:fs/promises';
import { join, posix } from 'node:path';
import { OctxError, issue, type OctxIssue } from '../../model/errors.js';
import type { ArchiveLimits } from '../../model/limits.js';
import { RESERVED_DOCUMENT_NAMES } from '../../model/paths.js';
import type { ProgressListener } from '../../model/progress.js';
import { splitFrontmatter, stripBom } from '../../knowledge/frontmatter.js';
import { linkTargets, resolveLocalLink } from '../../knowledge/local-links.js';
import { indexProseLine, reservedDocumentProblems } from '../../knowledge/reserved.js';
import { ByteBudget } from '../../read/byte-budget.js';
import { inOrder } from '../../read/in-order.js';
import { frontmatterSyntax, toYamlFrontmatter } from '../foreign-frontmatter.js';
import type { PackageBuilder } from '../package-builder.js';
import type { WorkdirScan } from './scan.js';
import { renamedReservedPath, type ConvertedFrontmatter, type DanglingLink, type IndexFilesMode } from './types.js';

/** Pages of a working folder read ahead of the one being added (the libuv pool has four threads). */
const DOCUMENTS_READ_AHEAD = 8;
/** Bytes of pages read ahead at most (from the listing's sizes; a larger page is read alone). */
const DOCUMENTS_READ_AHEAD_BYTES = 16 * 1024 * 1024;

const utf8Strict = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** What {@link loadDocuments} added and adjusted. */
export interface LoadedDocuments {
  /** Markdown files added (concepts, renamed index pages and valid OKF index/log files). */
  readonly documents: number;
  /** Original path under the knowledge tree (NFC) → the path it was added at (differs for renamed files). */
  readonly addedAt: ReadonlyMap<string, string>;
  /** Each added document's local link targets (tree-relative), for the dangling-link count. */
  readonly links: readonly { readonly from: string; readonly targets: readonly string[] }[];
  readonly renamed: readonly { readonly from: string; readonly to: string }[];
  readonly skipped: readonly string[];
  readonly reserved: readonly string[];
  readonly converted: readonly ConvertedFrontmatter[];
  readonly warnings: readonly OctxIssue[];
}

/** How {@link loadDocuments} reads the tree. */
export interface DocumentsOptions {
  readonly indexFiles: IndexFilesMode;
  /** `indexFiles` was not given: the mode's adjustments are warnings of the export too. */
  readonly defaulted: boolean;
  readonly limits: ArchiveLimits;
  readonly onProgress?: ProgressListener | undefined;
}

/**
 * Adds every document of the scanned tree to the builder.
 * @throws OctxError naming every document that could not be added (see `documentRefusal`)
 */
export async function loadDocuments(builder: PackageBuilder, dir: string, scan: WorkdirScan, options: DocumentsOptions): Promise<LoadedDocuments> {
  const { layout, tree, files, sizes, isDocument } = scan;
  const { indexFiles, defaulted, limits, onProgress } = options;
  const renamed: { from: string; to: string }[] = [];
  const skipped: string[] = [];
  const reserved: string[] = [];
  const converted: ConvertedFrontmatter[] = [];
  const warnings: OctxIssue[] = [];
  const refusals: OctxIssue[] = [];
  // An adjustment the caller asked for (`indexFiles` given) is reported as it happens; one made by
  // the plain-folder default is a warning of the export too, so `strict` refuses it (the export
  // emits it then, once) until the caller accepts it with an explicit `indexFiles`.
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
  return { documents, addedAt, links, renamed, skipped, reserved, converted, warnings };
}

/** Adds the working folder's `extensions/**` files; returns how many. */
export async function loadExtensions(builder: PackageBuilder, dir: string, extensionFiles: readonly string[], onProgress?: ProgressListener): Promise<number> {
  let extensions = 0;
  let bytes = 0;
  for (const rel of extensionFiles) {
    const content = await readFile(join(dir, rel));
    builder.addExtensionFile(rel, content);
    extensions++;
    bytes += content.length;
    onProgress?.({ phase: 'load', kind: 'extensions', completed: extensions, total: extensionFiles.length, bytes });
  }
  return extensions;
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
export function findDanglingLinks(links: readonly { from: string; targets: readonly string[] }[], leftOut: ReadonlySet<string>, tree: string): DanglingLink[] {
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
