/**
 * A docs site's navigation order as the knowledge root's OKF `index.md`: the format's own place
 * for a table of contents (headings grouping `* [Title](path.md)` items, OKF v0.1 §index). The
 * order comes from the generator's navigation file — mdBook's `SUMMARY.md`, MkDocs' `nav`,
 * Docusaurus' sidebars (`docusaurus.ts`) — and
 * the links are the pages' paths in the package (after any rename). Entries that name no page of
 * the package (a draft chapter, an external URL) are listed without a link.
 */
import type { Literal } from './js-config.js';
import type { SummaryEntry } from './mdbook.js';

/** What a navigation needs of a page: the title it shows, and a Docusaurus frontmatter `id`. */
export interface NavPage {
  readonly title: string | undefined;
  readonly id?: string;
}

/** A navigation tree: sections (a heading or a nested item) and pages. */
export type NavItem = { readonly title: string; readonly path?: string | undefined; readonly children?: readonly NavItem[] };

/** mdBook `SUMMARY.md` entries as a navigation tree: parts are top-level sections. */
export function summaryNavigation(entries: readonly SummaryEntry[]): NavItem[] {
  const root: { title: string; path?: string | undefined; children: NavItem[] }[] = [];
  let section = { title: '', children: [] as NavItem[] };
  root.push(section);
  const stack: { depth: number; children: NavItem[] }[] = [];
  for (const e of entries) {
    if (e.kind === 'part') {
      section = { title: e.title, children: [] };
      root.push(section);
      stack.length = 0;
      continue;
    }
    while (stack.length > 0 && stack[stack.length - 1]!.depth >= e.depth) stack.pop();
    const item = { title: e.title, path: e.path, children: [] as NavItem[] };
    (stack.length > 0 ? stack[stack.length - 1]!.children : section.children).push(item);
    stack.push({ depth: e.depth, children: item.children });
  }
  return root.filter((s) => s.children.length > 0);
}

/**
 * MkDocs `nav` (a list of `path`, `{Title: path}` or `{Section: [...]}`) as a navigation tree, in
 * its order: top-level sections become headings when every top-level page comes before them (the
 * usual `Home` first), otherwise the whole nav is one nested list (a heading would take in the
 * pages after it).
 * @param titleOf the title MkDocs shows for a page listed without one (its `title` or first heading)
 */
export function mkdocsNavigation(nav: Literal | undefined, titleOf: (path: string) => string | undefined = () => undefined): NavItem[] {
  const items = (list: Literal | undefined): NavItem[] => {
    if (!Array.isArray(list)) return [];
    const out: NavItem[] = [];
    for (const entry of list as Literal[]) {
      if (typeof entry === 'string') out.push({ title: titleOf(entry) ?? entry.replace(/\.md$/, '').split('/').pop()!, path: entry });
      else if (entry !== null && typeof entry === 'object' && !Array.isArray(entry)) {
        for (const [title, value] of Object.entries(entry)) {
          if (typeof value === 'string') out.push({ title, path: value });
          else out.push({ title, children: items(value) });
        }
      }
    }
    return out;
  };
  const top = items(nav);
  const firstSection = top.findIndex((i) => i.children !== undefined);
  const pageAfterSection = firstSection >= 0 && top.slice(firstSection).some((i) => i.children === undefined);
  if (pageAfterSection) return [{ title: '', children: top }];
  const pages = top.filter((i) => i.children === undefined);
  const sections = top.filter((i) => i.children !== undefined);
  return [...(pages.length > 0 ? [{ title: '', children: pages }] : []), ...sections];
}

/**
 * The OKF `index.md` text of a navigation tree.
 * @param finalPath a navigation path's page in the package (relative to `knowledge/`), or `undefined`
 */
export function navigationIndex(siteName: string, sections: readonly NavItem[], finalPath: (path: string) => string | undefined): { text: string; links: number } {
  const lines = [`# ${siteName}`, ''];
  let links = 0;
  const list = (items: readonly NavItem[], depth: number): void => {
    for (const item of items) {
      const target = item.path === undefined ? undefined : finalPath(item.path);
      const indent = '  '.repeat(depth);
      if (target !== undefined) links++;
      lines.push(target !== undefined ? `${indent}* [${item.title}](${encodeURI(target)})` : `${indent}* ${item.title}`);
      if (item.children) list(item.children, depth + 1);
    }
  };
  for (const section of sections) {
    if (section.title !== '') lines.push(`## ${section.title}`, '');
    list(section.children ?? [], 0);
    lines.push('');
  }
  return { text: `${lines.join('\n').trimEnd()}\n`, links };
}
