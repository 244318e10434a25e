/**
 * The documents phase of `loadWorkdir`: every Markdown (`.md`) and MDX (`.mdx`) page of the
 * knowledge tree, read a few pages ahead in path order (`workdir/page-text.ts` reads and finishes
 * each), non-OKF `index.md` / `log.md` files handled by the `indexFiles` mode, renamed pages'
 * links rewritten, ids carried over renames (with a producer state), and added to the builder;
 * then the site's navigation as the root `index.md`, and the extension files. Every document
 * that cannot be added is named in one error.
 */
import { readFile } from 'node:fs/promises';
import { join, posix } from 'node:path';
import { OctxError, issue, type OctxIssue } from '../../model/errors.js';
import type { ArchiveLimits } from '../../model/limits.js';
import { RESERVED_DOCUMENT_NAMES } from '../../model/paths.js';
import type { ProgressListener } from '../../model/progress.js';
import { splitFrontmatter } from '../../knowledge/frontmatter.js';
import { linkTargets, resolveLocalLink } from '../../knowledge/local-links.js';
import { encodeSignature, similaritySignature } from '../../knowledge/rename-similarity.js';
import { indexProseLine, reservedDocumentProblems } from '../../knowledge/reserved.js';
import { ByteBudget } from '../../read/byte-budget.js';
import { inOrder } from '../../read/read-ahead.js';
import { frontmatterSyntax } from '../foreign-frontmatter.js';
import type { PackageBuilder } from '../package-builder.js';
import { Conventions } from './conventions.js';
import { carryRenamedIds } from './carry-ids.js';
import { siteNavigation } from './site-navigation.js';
import type { NavPage } from '../docs-site/navigation.js';
import { finishPage, mdxFailureMessage, readPage, type PageContext, type PagePaths, type ReadPage } from './page-text.js';
import type { WorkdirScan } from './scan.js';
import { caseCollisions } from '../workdir-names.js';
import { readListedFile } from './read-listed-file.js';
import { renamedReservedPath, type ConvertedFrontmatter, type DanglingLink, type IndexFilesMode, type CarriedId, type MdxPage, type RewrittenLinkEntry } from './types.js';

/** Pages of a working folder read ahead of the one being added (the libuv pool has four threads). */
const DOCUMENTS_READ_AHEAD = 8;
/** Bytes of pages read ahead at most (from the listing's sizes; a larger page is read alone). */
const DOCUMENTS_READ_AHEAD_BYTES = 16 * 1024 * 1024;

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
  readonly mdx: readonly MdxPage[];
  readonly rewrittenLinks: readonly RewrittenLinkEntry[];
  readonly conventions: Conventions;
  readonly carried: readonly CarriedId[];
  /** The root `index.md` written from the site's navigation, when one was. */
  readonly navigation?: string;
  readonly warnings: readonly OctxIssue[];
  /** Pages of the tree left to other shards (their original paths under the tree, NFC). */
  readonly elsewhere: ReadonlySet<string>;
}

/** How {@link loadDocuments} reads the tree. */
export interface DocumentsOptions {
  readonly indexFiles: IndexFilesMode;
  /** `indexFiles` was not given: the mode's adjustments are warnings of the export too. */
  readonly defaulted: boolean;
  readonly limits: ArchiveLimits;
  readonly onProgress?: ProgressListener | undefined;
  readonly page: PageContext;
  /** The least similarity of a renamed page whose id is carried (git's units), or `undefined` to carry none. */
  readonly renameThreshold: number | undefined;
  /**
   * A shard build: this shard's number and the shard of a page's package path (`knowledge/…`,
   * after renames); pages of other shards are not read. A shard writes no navigation page (it
   * would list only its pages).
   */
  readonly shard?: { readonly index: number; readonly of: (packagePath: string) => number } | undefined;
}

/** The fate of an `index.md`/`log.md` page, decided before any page is added (links to it depend on it). */
type ReservedFate = { readonly kind: 'reserved' } | { readonly kind: 'skip' | 'rename' | 'refuse'; readonly problems: readonly string[] };

/**
 * Adds every document of the scanned tree to the builder.
 * @throws OctxError naming every document that could not be added (see `documentRefusal`)
 */
export async function loadDocuments(builder: PackageBuilder, dir: string, scan: WorkdirScan, options: DocumentsOptions): Promise<LoadedDocuments> {
  const { layout, tree, files, sizes, isDocument } = scan;
  const { indexFiles, defaulted, limits, onProgress, page: ctx } = options;
  const renamed: { from: string; to: string }[] = [];
  const skipped: string[] = [];
  const reserved: string[] = [];
  const converted: ConvertedFrontmatter[] = [];
  const mdx: MdxPage[] = [];
  const rewrittenLinks: RewrittenLinkEntry[] = [];
  const conventions = new Conventions(ctx.site);
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
  // A package unpacked on a case-insensitive file system keeps one of two such files.
  for (const w of caseCollisions(files)) {
    warnings.push(w);
    builder.reportWarning(w);
  }
  /** Original path under knowledge/ → the path it was added at (differs for renamed files). */
  const addedAt = new Map<string, string>();
  /** Each document's local link targets (tree-relative), for the dangling-link count. */
  const links: { from: string; targets: string[] }[] = [];
  /** What the site's navigation needs of each added page, by its path in the tree (NFC). */
  const navPages = new Map<string, NavPage>();
  // mdBook's SUMMARY.md is the book's navigation, not a chapter: it becomes the root index.md.
  const summary = ctx.site?.generator === 'mdbook' ? `${tree}SUMMARY.md` : undefined;
  const markdown = files.filter((rel) => isDocument(rel) && rel !== summary);
  /** Each page's path once `.mdx` is `.md`, by its path in the tree. */
  const asMd = new Map<string, string>();
  const mdTaken = new Set<string>();
  for (const rel of markdown) {
    const original = rel.slice(tree.length);
    const md = original.endsWith('.mdx') ? original.slice(0, -1) : original;
    asMd.set(original, md);
  }
  for (const rel of markdown) if (!rel.endsWith('.mdx')) mdTaken.add(rel.slice(tree.length));
  const markdownSet = new Set(markdown);
  const read = (rel: string): Promise<Uint8Array> => readListedFile(join(dir, rel), sizes.get(rel));
  const prepared = new Map<string, ReadPage>();
  const prepare = async (original: string, bytes?: Uint8Array): Promise<ReadPage> => {
    const cached = prepared.get(original);
    if (cached) return cached;
    return readPage(original, `knowledge/${original}`, bytes ?? (await read(`${tree}${original}`)), ctx);
  };
  // The fate of each index.md/log.md first: whether it is renamed decides the links to it.
  const fates = new Map<string, ReservedFate>();
  const finalPath = new Map<string, string>();
  for (const rel of markdown) {
    const original = rel.slice(tree.length);
    const md = asMd.get(original)!;
    if (original.endsWith('.mdx') && mdTaken.has(md)) {
      refusals.push(
        issue({
          code: 'OCTX_FILE_PATH_DUPLICATE',
          path: `knowledge/${original}`,
          message: `knowledge/${original} would be kept as knowledge/${md}, but that file exists too; rename one of them`,
        }),
      );
      continue;
    }
    finalPath.set(original, md);
    const name = posix.basename(md);
    if (name !== 'index.md' && name !== 'log.md') continue;
    let page: ReadPage;
    try {
      page = await prepare(original);
    } catch (e) {
      if (!(e instanceof OctxError)) throw e;
      continue; // refused again, in order, by the main loop
    }
    prepared.set(original, page);
    if (page.text === undefined) continue;
    const problems = reservedDocumentProblems(`knowledge/${md}`, page.text, limits.maxFrontmatterBytes);
    if (problems.length === 0 && !layout && name === 'index.md' && indexFiles !== 'okf') {
      // A README-like page passes the OKF index rules (a heading, one link item) and is content.
      const prose = indexProseLine(page.text);
      if (prose) problems.push(`it holds text besides headings and link lists, line ${prose.line}: ${JSON.stringify(prose.text)}`);
    }
    const fate: ReservedFate = problems.length === 0 ? { kind: 'reserved' } : { kind: indexFiles === 'okf' ? 'refuse' : indexFiles === 'skip' ? 'skip' : 'rename', problems };
    fates.set(original, fate);
    if (fate.kind === 'rename') finalPath.set(original, renamedReservedPath(md));
  }
  const renamedTo = new Map<string, string>();
  for (const [original, path] of finalPath) if (path !== original) renamedTo.set(original.normalize('NFC'), path);
  const rewriteLinks = renamedTo.size > 0 ? (await import('../../knowledge/link-destinations.js')).rewriteLinkDestinations : undefined;
  const pagePaths: PagePaths = {
    renamedTo,
    isPage: (p) => finalPath.has(p) && fates.get(p)?.kind !== 'skip' && fates.get(p)?.kind !== 'refuse',
    ...(rewriteLinks !== undefined ? { rewriteLinks } : {}),
  };
  const carried = await carryRenamedIds(builder, finalPath, pagePaths, options.renameThreshold, async (original) => {
    if (fates.has(original)) return undefined; // index/log files: reserved, or renamed by rule
    const page = await prepare(original);
    prepared.set(original, page);
    if (page.text === undefined) return undefined;
    const text = finishPage(original, finalPath.get(original)!, page.text, page, pagePaths, ctx, false).text;
    const split = splitFrontmatter(text);
    // A page that names its own id keeps it: nothing to carry.
    if (split.ok && split.parts.frontmatter?.includes('document_id') === true) return undefined;
    return split.ok ? split.parts.body : text;
  });
  const { shard } = options;
  const elsewhere = new Set<string>();
  // A reserved page (index.md, log.md) is no concept document: cut by its own path, it could be
  // alone in a shard, which is then refused as empty and the page lost from the merge. Reserved
  // pages go to the lowest shard that holds a concept document instead — the same in every shard,
  // since it is computed from the listing.
  let home: number | undefined;
  const homeShard = (): number => {
    if (home !== undefined) return home;
    let lowest = Infinity;
    for (const path of finalPath.values()) if (!RESERVED_DOCUMENT_NAMES.has(posix.basename(path))) lowest = Math.min(lowest, shard!.of(`knowledge/${path}`));
    home = Number.isFinite(lowest) ? lowest : 0;
    return home;
  };
  const mine = (rel: string): boolean => {
    const path = finalPath.get(rel.slice(tree.length));
    // A page refused above stays in every shard, so every shard reports it.
    if (path === undefined || shard === undefined) return true;
    const at = RESERVED_DOCUMENT_NAMES.has(posix.basename(path)) ? homeShard() : shard.of(`knowledge/${path}`);
    if (at === shard.index) return true;
    elsewhere.add(rel.slice(tree.length).normalize('NFC'));
    return false;
  };
  const pageFiles = shard === undefined ? markdown : markdown.filter(mine);
  // A shared ledger mints the ids of pages that name none: fetch them before the pages are added.
  if (builder.ids.store !== undefined) {
    const keys = pageFiles.map((rel) => finalPath.get(rel.slice(tree.length))).filter((p): p is string => p !== undefined && !RESERVED_DOCUMENT_NAMES.has(posix.basename(p)));
    await builder.ids.reserve({ document: keys.map((p) => `knowledge/${p}`) });
  }
  let documents = 0;
  let done = 0;
  let bytes = 0;
  onProgress?.({ phase: 'load', kind: 'documents', completed: 0, total: pageFiles.length, bytes });
  // Read a few pages ahead (bounded by the listing's sizes): one readFile at a time was four
  // libuv round trips per page while the main thread waited (2,000 pages: ~0.4 s of a 3 s build).
  const pages = inOrder(pageFiles, DOCUMENTS_READ_AHEAD, (file) => (prepared.has(file.slice(tree.length)) ? Promise.resolve(new Uint8Array(0)) : read(file)), {
    bytes: new ByteBudget(DOCUMENTS_READ_AHEAD_BYTES),
    cost: (file) => sizes.get(file) ?? DOCUMENTS_READ_AHEAD_BYTES,
  });
  for await (const [rel, bytesOfFile] of pages) {
    done++;
    bytes += bytesOfFile.length;
    const progressed = (): void => onProgress?.({ phase: 'load', kind: 'documents', completed: done, total: pageFiles.length, bytes });
    const original = rel.slice(tree.length);
    const pkg = `knowledge/${original}`;
    const path = finalPath.get(original);
    if (path === undefined) {
      progressed(); // refused above (an .mdx beside its .md)
      continue;
    }
    let page: ReadPage;
    try {
      page = await prepare(original, bytesOfFile);
    } catch (e) {
      if (!(e instanceof OctxError)) throw e;
      refusals.push(...e.issues);
      progressed();
      continue;
    }
    prepared.delete(original);
    if (page.converted) converted.push({ path: pkg, from: page.converted });
    if (page.mdxFailure) {
      const w = issue({
        code: 'OCTX_MDX_UNPARSED',
        severity: 'warning',
        path: pkg,
        line: page.mdxFailure.line,
        message: mdxFailureMessage(`knowledge/${path}`, pkg, page.mdxFailure),
      });
      warnings.push(w);
      builder.reportWarning(w);
    }
    if (original.endsWith('.mdx')) {
      mdx.push({ path: `knowledge/${path}`, from: pkg, ...(page.mdx ?? { esm: 0, expressions: 0, elements: 0, attributes: 0, components: [] }), verbatim: page.mdx === undefined });
    }
    conventions.countPage(pkg, page);
    const fate = fates.get(original);
    const name = posix.basename(path);
    if (fate !== undefined && fate.kind !== 'reserved') {
      if (fate.kind === 'refuse') {
        refusals.push(issue({ code: 'OCTX_OKF_RESERVED_INVALID', path: pkg, message: `${pkg} is not an OKF ${name}: ${fate.problems.join('; ')}` }));
        progressed();
        continue;
      }
      if (fate.kind === 'skip') {
        skipped.push(original);
        warn(
          issue({ code: 'OCTX_INDEX_FILE_SKIPPED', severity: 'warning', path: pkg, message: `${pkg} is not an OKF ${name} (${fate.problems[0]}); left out (indexFiles: skip)` }),
        );
        progressed();
        continue;
      }
      if (markdownSet.has(`${tree}${path}`)) {
        refusals.push(
          issue({
            code: 'OCTX_FILE_PATH_DUPLICATE',
            path: pkg,
            message: `${pkg} is not an OKF ${posix.basename(asMd.get(original)!)} and would be kept as knowledge/${path}, but that file exists too; rename one of them, or leave the non-OKF files out (indexFiles: skip)`,
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
          message: `${pkg} is not an OKF ${posix.basename(asMd.get(original)!)} (${fate.problems[0]}); kept as the concept document knowledge/${path} (indexFiles: as-documents)`,
        }),
      );
      renamed.push({ from: original, to: path });
    }
    let markdownInput: string | Uint8Array = page.bytes;
    let targets: string[] = [];
    let nav: NavPage | undefined;
    const isReserved = fate?.kind === 'reserved';
    if (page.text !== undefined) {
      const finished = finishPage(original, path, page.text, page, pagePaths, ctx, isReserved);
      conventions.countFinished(pkg, finished);
      nav = finished.nav;
      for (const r of finished.rewritten) rewrittenLinks.push({ in: `knowledge/${path}`, line: r.line, from: r.from, to: r.to });
      let text = finished.text;
      const split = splitFrontmatter(text);
      const body = split.ok ? split.parts.body : text;
      targets = linkTargets(body);
      if (!RESERVED_DOCUMENT_NAMES.has(posix.basename(path)) && frontmatterSyntax(text) === 'none') {
        // An empty block for the builder to complete: the body after it stays the file's, byte for
        // byte (a file without one would get a blank line between the new block and its text).
        const newline = text.includes('\r\n') ? '\r\n' : '\n';
        text = `---${newline}---${newline}${text}`;
      }
      // The file's own bytes when nothing changed (the builder drops a BOM itself).
      if (text !== page.text || page.converted !== undefined || page.mdx !== undefined || page.mdbook !== undefined || page.docusaurus !== undefined || page.mkdocs !== undefined)
        markdownInput = text;
      if (builder.state !== undefined && !isReserved) builder.state.recordSignature(`knowledge/${path}`, encodeSignature(similaritySignature(Buffer.from(body, 'utf8'))));
    }
    if (isReserved) reserved.push(`knowledge/${path}`);
    try {
      builder.addDocument({ path, markdown: markdownInput });
    } catch (e) {
      if (!(e instanceof OctxError)) throw e;
      refusals.push(...e.issues.map((i) => (i.path === undefined ? { ...i, path: pkg } : i)));
      progressed();
      continue;
    }
    addedAt.set(original.normalize('NFC'), path);
    if (nav !== undefined) navPages.set(original.normalize('NFC'), nav);
    // Only documents in the package count: a skipped page's links go nowhere.
    if (targets.length > 0) links.push({ from: original, targets });
    documents++;
    progressed();
    // Small pages are read synchronously, so this loop may never leave the microtask queue: let
    // the background compression deliver, or its bound fills and every later page is left for
    // the export to compress, one pool job each.
    await builder.drain();
  }
  if (refusals.length > 0) throw documentRefusal(refusals);
  const navigation = shard === undefined ? await siteNavigation(builder, dir, scan, ctx, addedAt, navPages, conventions) : undefined;
  if (navigation !== undefined) {
    reserved.push(navigation);
    documents++;
  }
  for (const w of conventions.warnings()) {
    warnings.push(w);
    builder.reportWarning(w);
  }
  return {
    documents,
    addedAt,
    links,
    renamed,
    skipped,
    reserved,
    converted,
    mdx,
    rewrittenLinks,
    conventions,
    carried,
    ...(navigation !== undefined ? { navigation } : {}),
    warnings,
    elsewhere,
  };
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
