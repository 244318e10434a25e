/**
 * One page of a docs tree on its way to a knowledge document, in two steps:
 * - {@link readPage}: what the page *is* — UTF-8 text, TOML/JSON frontmatter read as YAML, MDX
 *   turned into Markdown, mdBook helpers expanded — enough to decide what an `index.md` is;
 * - {@link finishPage}: what links and frontmatter it gets once every page's final path is known —
 *   Hugo `ref`s resolved, links to renamed pages rewritten, and the frontmatter keys the
 *   conventions call for (`source_path` of a renamed page, a title without its heading anchor,
 *   the generator's own `type` moved under the generator's name).
 * The body is changed only where a step says so; each change is counted for the report.
 */
import { dirname, join, posix } from 'node:path';
import { yamlQuote } from '../../knowledge/document.js';
import { parseFrontmatter, splitFrontmatter, stripBom } from '../../knowledge/frontmatter.js';
import type { rewriteLinkDestinations, RewrittenLink } from '../../knowledge/link-destinations.js';
import { resolveLocalLink } from '../../knowledge/local-links.js';
import type { MdxChangeCounts } from '../../knowledge/mdx/mdx-to-markdown.js';
import { deriveTitle } from '../../knowledge/title.js';
import type { DocsSite } from '../docs-site/detect.js';
import { applyHugoShortcodes } from '../docs-site/hugo.js';
import { expandMdbookHelpers } from '../docs-site/mdbook.js';
import { toYamlFrontmatter } from '../foreign-frontmatter.js';
import type { NavPage } from '../docs-site/navigation.js';

/** How `.mdx` pages are read: converted to Markdown (default), or kept as their source bytes. */
export type MdxMode = 'markdown' | 'verbatim';

/** The accepted {@link MdxMode} values. */
export const MDX_MODES: readonly MdxMode[] = ['markdown', 'verbatim'];

/** What every page of one load shares. */
export interface PageContext {
  /** The folder read (mdBook includes may reach anywhere inside it, never outside). */
  readonly dir: string;
  /** The knowledge tree's folder, as a path (`dir` joined with the tree). */
  readonly treeDir: string;
  readonly site: DocsSite | undefined;
  readonly mdx: MdxMode;
  readonly maxFrontmatterBytes: number;
}

/** A page after {@link readPage}. */
export interface ReadPage {
  /** The text, or `undefined` when the file is not UTF-8 (the builder names the problem). */
  readonly text: string | undefined;
  /** The file's bytes, for a file that is not UTF-8. */
  readonly bytes: Uint8Array;
  readonly converted?: 'toml' | 'json';
  /** The MDX conversion's counts (`.mdx` pages in `markdown` mode). */
  readonly mdx?: MdxChangeCounts;
  /** Why an `.mdx` page was kept verbatim after all: it does not parse. */
  readonly mdxFailure?: { readonly line: number; readonly column: number; readonly reason: string };
  /** mdBook helpers: expanded per kind, kept as written with why, and a `{{#title}}`. */
  readonly mdbook?: { readonly expanded: Readonly<Record<string, number>>; readonly failed: readonly { helper: string; reason: string }[]; readonly title?: string };
  /** MkDocs blocks converted per kind, and `--8<--` snippets kept (`docs-site/mkdocs-blocks.ts`). */
  readonly mkdocs?: { readonly admonitions: number; readonly details: number; readonly tabs: number; readonly snippets: number };
  /** Docusaurus admonitions converted, other container directives and unread `:::` paragraphs kept (`docs-site/docusaurus.ts`). */
  readonly docusaurus?: { readonly converted: number; readonly others: Readonly<Record<string, number>>; readonly unread: number };
}

const utf8Strict = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** The text from the start to the end of its frontmatter block (`''` without one), and the body. */
function frontAndBody(text: string): { front: string; body: string } {
  const split = splitFrontmatter(text);
  if (!split.ok) return { front: '', body: text };
  return { front: text.slice(0, text.length - split.parts.body.length), body: split.parts.body };
}

/**
 * Reads a page: decoded, its frontmatter as YAML, its MDX as Markdown, its mdBook helpers expanded.
 * @param original the page's path in the knowledge tree
 * @param pkg the page's `knowledge/…` path, for errors
 * @throws OctxError `OCTX_DOCUMENT_FRONTMATTER` for a TOML/JSON block that does not parse
 */
export async function readPage(original: string, pkg: string, bytes: Uint8Array, ctx: PageContext): Promise<ReadPage> {
  let text: string;
  try {
    text = stripBom(utf8Strict.decode(bytes));
  } catch {
    return { text: undefined, bytes };
  }
  let converted: 'toml' | 'json' | undefined;
  const yaml = toYamlFrontmatter(text, pkg);
  if (yaml.syntax === 'toml' || yaml.syntax === 'json') {
    converted = yaml.syntax;
    text = yaml.text;
  }
  let mdx: MdxChangeCounts | undefined;
  let mdxFailure: ReadPage['mdxFailure'];
  if (original.endsWith('.mdx') && ctx.mdx === 'markdown') {
    const { front, body } = frontAndBody(text);
    // The MDX parser (micromark's MDX extensions, acorn) loads with the first .mdx page.
    const { mdxToMarkdown } = await import('../../knowledge/mdx/mdx-to-markdown.js');
    const result = mdxToMarkdown(body);
    if (result.ok) {
      mdx = result.changes;
      text = front + result.markdown;
    } else {
      // Lines are counted in the file, frontmatter included.
      const frontLines = front === '' ? 0 : front.split('\n').length - 1;
      mdxFailure = { line: result.line + frontLines, column: result.column, reason: result.reason };
    }
  }
  let docusaurus: ReadPage['docusaurus'];
  if (ctx.site?.generator === 'docusaurus' && text.includes(':::')) {
    const { front, body } = frontAndBody(text);
    // The directive parser loads with the first page that has an admonition fence.
    const { convertAdmonitions } = await import('../docs-site/docusaurus.js');
    const result = convertAdmonitions(body);
    text = front + result.text;
    docusaurus = { converted: result.converted, others: result.others, unread: result.unread };
  }
  let mkdocs: ReadPage['mkdocs'];
  if (ctx.site?.generator === 'mkdocs' && /!!!|\?\?\?|===|8</.test(text)) {
    const { front, body } = frontAndBody(text);
    const { convertMkdocsBlocks } = await import('../docs-site/mkdocs-blocks.js');
    const { text: converted, ...counts } = convertMkdocsBlocks(body);
    text = front + converted;
    mkdocs = counts;
  }
  let mdbook: ReadPage['mdbook'];
  if (ctx.site?.generator === 'mdbook') {
    const expansion = await expandMdbookHelpers(text, ctx.dir, dirname(join(ctx.treeDir, original)));
    text = expansion.text;
    mdbook = { expanded: expansion.expanded, failed: expansion.failed, ...(expansion.title !== undefined ? { title: expansion.title } : {}) };
  }
  return {
    text,
    bytes,
    ...(converted ? { converted } : {}),
    ...(mdx ? { mdx } : {}),
    ...(mdxFailure ? { mdxFailure } : {}),
    ...(mdbook ? { mdbook } : {}),
    ...(docusaurus ? { docusaurus } : {}),
    ...(mkdocs ? { mkdocs } : {}),
  };
}

/** A page after {@link finishPage}. */
export interface FinishedPage {
  readonly text: string;
  /** Links rewritten to renamed pages (and Hugo `ref`s resolved are counted in `hugo`). */
  readonly rewritten: readonly RewrittenLink[];
  readonly hugo?: { readonly resolved: number; readonly unresolved: readonly string[]; readonly others: Readonly<Record<string, number>> };
  /** Frontmatter keys added or moved, by what they are (`source_path`, `title`, `type`). */
  readonly keys: readonly string[];
  /** Generator keys that could not be moved (kept as written), with why. */
  readonly keptKeys: readonly string[];
  /** What a site's navigation shows for the page (set for a docs site's concept pages). */
  readonly nav?: NavPage;
}

/** Where the pages of the tree end up, for links and `ref`s. */
export interface PagePaths {
  /** A tree path's final path when the page was renamed (`a/index.md` → `a/_index.md`, `b.mdx` → `b.md`). */
  readonly renamedTo: ReadonlyMap<string, string>;
  /** Whether a tree path is a page of the package (under its original path). */
  readonly isPage: (path: string) => boolean;
  /**
   * The link rewriter, present when `renamedTo` is not empty: loaded only then, since its
   * CommonMark parser (micromark, ~100 modules) costs every build a few hundred milliseconds to load.
   */
  readonly rewriteLinks?: typeof rewriteLinkDestinations;
}

/**
 * Finishes a page whose final path is known: Hugo `ref`s, links to renamed pages, frontmatter keys.
 * @param original the page's path in the tree
 * @param path its final path in the tree (differs when it was renamed)
 * @param reserved the page is kept as an OKF index/log file (no frontmatter keys are added)
 */
export function finishPage(original: string, path: string, text: string, page: ReadPage, paths: PagePaths, ctx: PageContext, reserved: boolean): FinishedPage {
  let { front, body } = frontAndBody(text);
  let hugo: FinishedPage['hugo'];
  if (ctx.site?.generator === 'hugo') {
    const result = applyHugoShortcodes(body, (target) => hugoTarget(original, target, paths));
    body = result.text;
    hugo = { resolved: result.resolved, unresolved: result.unresolved, others: result.others };
  }
  let rewritten: RewrittenLink[] = [];
  // Renames only turn `.mdx` into `.md` and `index.md`/`log.md` into `_index.md`/`_log.md`: a body
  // naming neither has no link to rewrite, and is not parsed for its links.
  if (paths.rewriteLinks !== undefined && paths.renamedTo.size > 0 && /\.mdx|(?:index|log)\.md/i.test(body)) {
    const result = paths.rewriteLinks(body, (target) => renamedTarget(original, target, paths.renamedTo));
    body = result.body;
    rewritten = result.rewritten;
  }
  const keys: string[] = [];
  const keptKeys: string[] = [];
  let nav: NavPage | undefined;
  // A page of a plain folder that keeps its path has no key to add: its frontmatter is not parsed here.
  if (!reserved && (path !== original || ctx.site !== undefined)) {
    const append: string[] = [];
    const data = frontmatterData(front, ctx.maxFrontmatterBytes);
    if (path !== original && data.source_path === undefined) {
      append.push(`source_path: ${yamlQuote(original)}`);
      keys.push('source_path');
    }
    if (ctx.site !== undefined) {
      const derived = deriveTitle(body, posix.basename(path));
      const title = page.mdbook?.title ?? withoutHeadingAnchor(derived);
      if (data.title === undefined && title !== undefined) {
        append.push(`title: ${yamlQuote(title)}`);
        keys.push('title');
      }
      const text = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined);
      const docusaurus = ctx.site.generator === 'docusaurus';
      const id = docusaurus ? text(data.id) : undefined;
      nav = { title: (docusaurus ? text(data.sidebar_label) : undefined) ?? text(data.title) ?? title ?? derived, ...(id !== undefined ? { id } : {}) };
    }
    if (ctx.site !== undefined && data.type !== undefined) {
      const moved = moveGeneratorType(front, data, ctx.site.generator);
      if (moved === undefined) keptKeys.push('type');
      else {
        front = moved.front;
        append.push(...moved.lines);
        keys.push('type');
      }
    }
    if (append.length > 0) front = withKeys(front, body, append);
  }
  return { text: front + body, rewritten, ...(hugo ? { hugo } : {}), keys, keptKeys, ...(nav ? { nav } : {}) };
}

/** The frontmatter's data, or `{}` when there is none or it does not parse (the builder reports that). */
function frontmatterData(front: string, maxBytes: number): Record<string, unknown> {
  if (front === '') return {};
  const split = splitFrontmatter(front);
  if (!split.ok || split.parts.frontmatter === undefined) return {};
  const parsed = parseFrontmatter(split.parts.frontmatter, { maxBytes });
  return parsed.ok ? parsed.value.data : {};
}

/** A derived title with its heading-anchor syntax (`Title {#anchor}`) removed; `undefined` when it had none. */
function withoutHeadingAnchor(title: string): string | undefined {
  const stripped = title.replace(/\s*\{#[^}\s]*\}\s*$/, '');
  return stripped !== title && stripped !== '' ? stripped : undefined;
}

/** The frontmatter block with `lines` added before its closing fence (a new block when there is none). */
function withKeys(front: string, body: string, lines: readonly string[]): string {
  const newline = (front || body).includes('\r\n') ? '\r\n' : '\n';
  const added = lines.map((l) => `${l}${newline}`).join('');
  if (front === '') return `---${newline}${added}---${newline}`;
  const close = front.lastIndexOf('---');
  const before = front.slice(0, close);
  return `${before}${before.endsWith('\n') ? '' : newline}${added}${front.slice(close)}`;
}

/**
 * A generator's `type` key (a layout or content type, never the OKF document type) moved under
 * the generator's name: `type: docs` → `hugo:\n  type: "docs"`. Only a one-line top-level key is
 * moved; `undefined` when it cannot be (the key spans lines, or the generator's key exists).
 */
function moveGeneratorType(front: string, data: Record<string, unknown>, generator: string): { front: string; lines: string[] } | undefined {
  const value = data.type;
  if (data[generator] !== undefined || (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean')) return undefined;
  const line = /^type[ \t]*:[^\n]*\n(?![ \t])/m.exec(front);
  if (!line) return undefined;
  return { front: front.slice(0, line.index) + front.slice(line.index + line[0].length), lines: [`${generator}:`, `  type: ${yamlQuote(String(value))}`] };
}

/** A link's new destination when it names a renamed page: its last segment renamed the same way. */
function renamedTarget(from: string, target: string, renamedTo: ReadonlyMap<string, string>): string | undefined {
  const local = resolveLocalLink(from, target);
  if (local === undefined) return undefined;
  const to = renamedTo.get(local.normalize('NFC'));
  if (to === undefined) return undefined;
  const cut = target.search(/[?#]/);
  const path = cut < 0 ? target : target.slice(0, cut);
  const rest = cut < 0 ? '' : target.slice(cut);
  const slash = path.lastIndexOf('/');
  const segment = path.slice(slash + 1);
  const oldName = posix.basename(local);
  const newName = posix.basename(to);
  // Renames keep the folder: only the file name changes, in the spelling the link used.
  let renamed = segment;
  if (newName.startsWith('_') && !oldName.startsWith('_')) renamed = `_${renamed}`;
  if (oldName.endsWith('.mdx') && newName.endsWith('.md')) renamed = renamed.replace(/x$/i, '');
  let decoded = renamed;
  try {
    decoded = decodeURIComponent(renamed);
  } catch {
    // a stray "%": compared as written
  }
  if (decoded !== newName) renamed = encodeURI(newName);
  return `${path.slice(0, slash + 1)}${renamed}${rest}`;
}

/** Hugo's lookup of a `ref` path: from the page's folder, then from the content root; with or without `.md`, or a section. */
function hugoTarget(from: string, target: string, paths: PagePaths): string | undefined {
  const clean = target.replace(/^\.\//, '');
  const bases = clean.startsWith('/') ? [clean.slice(1)] : [posix.join(posix.dirname(from), clean), clean];
  for (const base of bases) {
    const norm = posix.normalize(base).replace(/\/$/, '');
    if (norm.startsWith('..')) continue;
    for (const candidate of [norm, `${norm}.md`, `${norm}/_index.md`, `${norm}/index.md`]) {
      if (!paths.isPage(candidate)) continue;
      const final = paths.renamedTo.get(candidate) ?? candidate;
      const self = paths.renamedTo.get(from) ?? from;
      return final === self ? '' : posix.relative(posix.dirname(self), final);
    }
  }
  return undefined;
}

/** A refusal for an `.mdx` page that does not parse, as the warning names it. */
export function mdxFailureMessage(pkg: string, original: string, failure: NonNullable<ReadPage['mdxFailure']>): string {
  return `${original} does not parse as MDX at line ${failure.line}, column ${failure.column} (${failure.reason}); kept verbatim as ${pkg}`;
}
