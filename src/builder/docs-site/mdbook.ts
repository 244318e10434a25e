/**
 * mdBook's conventions: its link helpers expanded as mdBook's `links` preprocessor does, and its
 * `SUMMARY.md` read as the book's navigation.
 *
 * Helpers (mdBook's own syntax and rules, `src/preprocess/links.rs`): `{{#include file}}` with
 * `file:N` (one line), `file:N:M`, `file::M`, `file:N:` (1-based line ranges) or `file:anchor`
 * (the lines between `ANCHOR: anchor` and `ANCHOR_END: anchor`, anchor lines dropped);
 * `{{#rustdoc_include …}}` (the same, with the lines outside the range kept behind `# `);
 * `{{#playground file attrs}}` (the file as a ```` ```rust ```` block); `{{#title …}}` (the page
 * title); `\{{#…}}` is the escaped, literal form. Paths are relative to the including file, and
 * included text is expanded again (10 levels deep at most). A helper that cannot be read is kept
 * as written (as mdBook keeps it) and reported.
 */
import { lstat, readFile, realpath } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';

/** The helpers expanded in one page, and the ones left as written, with why. */
export interface MdbookExpansion {
  readonly text: string;
  /** `{{#title}}` given on the page. */
  readonly title?: string;
  /** Helpers expanded, by kind (`include`, `rustdoc_include`, `playground`, `title`). */
  readonly expanded: Readonly<Record<string, number>>;
  /** Helpers kept as written: the helper's text and why. */
  readonly failed: readonly { readonly helper: string; readonly reason: string }[];
}

// mdBook's own pattern (links.rs `find_links`): an escaped helper, or `{{#type target props}}`.
const HELPER = /\\\{\{#.*\}\}|\{\{\s*#([a-zA-Z0-9_]+)\s+([^}]+)\}\}/g;
const ANCHOR_START = /ANCHOR:\s*([\w_-]+)/u;
const ANCHOR_END = /ANCHOR_END:\s*([\w_-]+)/u;
const MAX_DEPTH = 10;

type Range = { readonly start?: number; readonly end?: number } | { readonly anchor: string };

/** mdBook's `parse_range_or_anchor`: 1-based `N`, `N:M`, `:M`, `N:` (end exclusive after the shift), or an anchor name. */
function rangeOf(spec: string | undefined): Range {
  const parts = (spec ?? '').split(':');
  const first = parts[0];
  const rest = parts.length > 1 ? parts.slice(1).join(':') : undefined;
  const endText = rest?.split(':')[0];
  let start: number | undefined;
  if (first !== undefined && /^\d+$/.test(first)) start = Math.max(0, Number(first) - 1);
  else if (first !== undefined && first !== '') return { anchor: first };
  const end = endText !== undefined && /^\d+$/.test(endText) ? Number(endText) : undefined;
  if (start !== undefined && endText === undefined) return { start, end: start + 1 };
  if (start !== undefined) return end !== undefined ? { start, end } : { start };
  return end !== undefined ? { end } : {};
}

/** Rust's `str::lines`: split on `\n`, a trailing `\r` dropped, no empty last line. */
function lines(s: string): string[] {
  const out = s.split('\n').map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
  if (out.length > 0 && out[out.length - 1] === '') out.pop();
  return out;
}

function inRange(i: number, r: { start?: number; end?: number }): boolean {
  return i >= (r.start ?? 0) && (r.end === undefined || i < r.end);
}

/** `take_lines` / `take_anchored_lines`. */
function takeLines(s: string, range: Range): string {
  if ('anchor' in range) {
    const kept: string[] = [];
    let found = false;
    for (const l of lines(s)) {
      if (found) {
        const end = ANCHOR_END.exec(l);
        if (end) {
          if (end[1] === range.anchor) break;
        } else if (!ANCHOR_START.test(l)) kept.push(l);
      } else if (ANCHOR_START.exec(l)?.[1] === range.anchor) found = true;
    }
    return kept.join('\n');
  }
  return lines(s)
    .filter((_, i) => inRange(i, range))
    .join('\n');
}

/** `take_rustdoc_include_lines` / `take_rustdoc_include_anchored_lines`. */
function takeRustdocLines(s: string, range: Range): string {
  const out: string[] = [];
  if ('anchor' in range) {
    let within = false;
    for (const l of lines(s)) {
      if (within) {
        const end = ANCHOR_END.exec(l);
        if (end) {
          if (end[1] === range.anchor) within = false;
        } else if (!ANCHOR_START.test(l)) out.push(l);
      } else if (ANCHOR_START.test(l)) {
        // Another anchor's start line outside the range is dropped, as mdBook drops it.
        if (ANCHOR_START.exec(l)![1] === range.anchor) within = true;
      } else if (!ANCHOR_END.test(l)) out.push(`# ${l}`);
    }
    return out.join('\n');
  }
  lines(s).forEach((l, i) => out.push(inRange(i, range) ? l : `# ${l}`));
  return out.join('\n');
}

/** Reads an included file, refusing one outside `root` (the folder being built) or not a regular file. */
async function readIncluded(root: string, file: string): Promise<string> {
  const st = await lstat(file);
  if (!st.isFile()) throw new Error('not a regular file (symbolic links are not followed)');
  const real = await realpath(file);
  const rel = relative(await realpath(root), real);
  if (rel.startsWith(`..${sep}`) || rel === '..') throw new Error('outside the folder being built');
  return readFile(real, 'utf8');
}

/**
 * Expands the mdBook helpers of a page's text.
 * @param root the folder being built: no file outside it is read
 * @param base the folder the page (or included file) is in
 */
export async function expandMdbookHelpers(text: string, root: string, base: string): Promise<MdbookExpansion> {
  const expanded: Record<string, number> = {};
  const failed: { helper: string; reason: string }[] = [];
  let title: string | undefined;
  const expand = async (s: string, dir: string, depth: number): Promise<string> => {
    let out = '';
    let at = 0;
    for (const m of s.matchAll(HELPER)) {
      const [whole, kind, rest] = m;
      out += s.slice(at, m.index);
      at = m.index + whole.length;
      if (kind === undefined) {
        out += whole.slice(1); // escaped: the helper's text without the backslash
        continue;
      }
      if (kind === 'title') {
        title = rest!.trim();
        expanded.title = (expanded.title ?? 0) + 1;
        continue;
      }
      const [target, ...props] = rest!.trim().split(/\s+/);
      const [path, ...specParts] = target!.split(':');
      const spec = specParts.length > 0 ? specParts.join(':') : undefined;
      const known = kind === 'include' || kind === 'rustdoc_include' || kind === 'playground' || kind === 'playpen';
      if (!known) {
        out += whole;
        failed.push({ helper: whole, reason: `{{#${kind}}} is not an mdBook helper this applies` });
        continue;
      }
      const file = join(dir, path!);
      let content: string;
      try {
        content = await readIncluded(root, file);
      } catch (e) {
        out += whole;
        failed.push({ helper: whole, reason: `cannot read ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}` });
        continue;
      }
      let rendered: string;
      if (kind === 'include') rendered = takeLines(content, rangeOf(spec));
      else if (kind === 'rustdoc_include') rendered = takeRustdocLines(content, rangeOf(spec));
      else rendered = `\`\`\`${props.length > 0 ? `rust,${props.join(',')}` : 'rust'}\n${content.endsWith('\n') ? content : `${content}\n`}\`\`\`\n`;
      const name = kind === 'playpen' ? 'playground' : kind;
      expanded[name] = (expanded[name] ?? 0) + 1;
      out += depth < MAX_DEPTH ? await expand(rendered, dirname(file), depth + 1) : rendered;
    }
    return out + s.slice(at);
  };
  const result = await expand(text, base, 0);
  return { text: result, ...(title !== undefined ? { title } : {}), expanded, failed };
}

/** One entry of an mdBook `SUMMARY.md`: a chapter (with its nested chapters) or a part title. */
export type SummaryEntry =
  { readonly kind: 'part'; readonly title: string } | { readonly kind: 'chapter'; readonly title: string; readonly path: string | undefined; readonly depth: number };

/**
 * The entries of a `SUMMARY.md`, in order: `# Part` headings (the first `# Summary` heading
 * is the file's own title and is skipped), prefix/suffix chapters (`[Title](path.md)` lines)
 * and numbered chapters (`- [Title](path.md)` list items, nested by indentation); a draft
 * chapter (`[Title]()`) has no path.
 */
export function parseSummary(text: string): SummaryEntry[] {
  const out: SummaryEntry[] = [];
  let sawTitle = false;
  // Nesting by indentation, whatever its width: each deeper indentation is one level more.
  const indents: number[] = [];
  for (const line of lines(text)) {
    const heading = /^#\s+(.+?)\s*#*\s*$/.exec(line);
    if (heading) {
      if (sawTitle) out.push({ kind: 'part', title: heading[1]! });
      sawTitle = true;
      continue;
    }
    const item = /^(\s*)(?:[-*]\s+)?\[([^\]]+)\]\(([^)]*)\)\s*$/.exec(line);
    if (!item) continue;
    const indent = item[1]!.replace(/\t/g, '    ').length;
    while (indents.length > 0 && indents[indents.length - 1]! > indent) indents.pop();
    if (indents.length === 0 || indents[indents.length - 1]! < indent) indents.push(indent);
    out.push({ kind: 'chapter', title: item[2]!, path: item[3]! === '' ? undefined : item[3]!, depth: indents.length - 1 });
  }
  return out;
}
