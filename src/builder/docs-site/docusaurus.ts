/**
 * Docusaurus's conventions:
 * - admonitions, the container directives Docusaurus parses with `remark-directive`
 *   (`:::note[Title]` … `:::`): parsed with the same micromark extension, each becomes a bold
 *   label line (`**Note: Title**`, as an MDX `<Admonition>` becomes) with its content kept as it
 *   is; the closing fence goes. Every other byte stays (edits at the directives' positions only);
 *   a container directive of another name is counted and kept as written;
 * - the sidebars file (`sidebars.js`), read without running it: when every value is a literal,
 *   its sidebars are the site's navigation (doc ids resolved as Docusaurus resolves them: the
 *   path without its extension and number prefixes, the last segment replaced by the page's
 *   frontmatter `id`).
 */
import { parse, postprocess, preprocess } from 'micromark';
import { directive } from 'micromark-extension-directive';
import type { Literal } from './js-config.js';
import type { NavItem } from './navigation.js';

/** Docusaurus's default admonition keywords (`admonitions.keywords`). */
const ADMONITION_KEYWORDS = new Set(['note', 'tip', 'info', 'warning', 'danger', 'caution', 'important', 'success', 'secondary']);

/** What {@link convertAdmonitions} did to one page. */
export interface DocusaurusAdmonitions {
  readonly text: string;
  /** Admonitions turned into a label line and their content. */
  readonly converted: number;
  /** Other container directives (`:::details`), by name, kept as written. */
  readonly others: Readonly<Record<string, number>>;
  /** Paragraphs that open like an admonition but are no directive (Docusaurus 2's `:::note Title`), kept as written. */
  readonly unread: number;
}

interface Container {
  name: string;
  label: string | undefined;
  fences: { start: number; end: number }[];
}

const capitalise = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);

/** The admonitions of a page's body as Markdown (see the module comment). */
export function convertAdmonitions(body: string): DocusaurusAdmonitions {
  const events = postprocess(
    parse({ extensions: [directive()] })
      .document()
      .write(preprocess()(body, undefined, true)),
  );
  const stack: Container[] = [];
  const edits: { start: number; end: number; text: string }[] = [];
  const others: Record<string, number> = {};
  let converted = 0;
  let unread = 0;
  for (const [kind, token] of events) {
    const start = token.start.offset;
    const end = token.end.offset;
    const top = stack[stack.length - 1];
    if (kind === 'enter') {
      if (token.type === 'directiveContainer') stack.push({ name: '', label: undefined, fences: [] });
      else if (token.type === 'directiveContainerFence') top?.fences.push({ start, end });
      else if (token.type === 'directiveContainerName' && top) top.name = body.slice(start, end);
      else if (token.type === 'directiveContainerLabelString' && top && top.fences.length === 1) top.label = body.slice(start, end);
      else if (token.type === 'paragraph' && /^:{3,}[A-Za-z]/.test(body.slice(start, start + 16))) unread++;
      continue;
    }
    if (token.type !== 'directiveContainer') continue;
    const c = stack.pop()!;
    if (!ADMONITION_KEYWORDS.has(c.name)) {
      others[c.name] = (others[c.name] ?? 0) + 1;
      continue;
    }
    converted++;
    const [open, close] = c.fences;
    const label = c.label?.trim() ? `${capitalise(c.name)}: ${c.label.trim()}` : capitalise(c.name);
    edits.push({ start: open!.start, end: open!.end, text: `**${label}**` });
    if (close) edits.push(lineOf(body, close.start, close.end));
  }
  if (edits.length === 0) return { text: body, converted, others, unread };
  edits.sort((a, b) => a.start - b.start);
  let out = '';
  let at = 0;
  for (const e of edits) {
    out += body.slice(at, e.start) + e.text;
    at = e.end;
  }
  return { text: out + body.slice(at), converted, others, unread };
}

/** The removal of a closing fence: its whole line when only white space shares it, else the fence. */
function lineOf(body: string, start: number, end: number): { start: number; end: number; text: string } {
  let s = start;
  while (s > 0 && (body[s - 1] === ' ' || body[s - 1] === '\t')) s--;
  let e = end;
  while (e < body.length && (body[e] === ' ' || body[e] === '\t')) e++;
  if (s > 0 && body[s - 1] !== '\n') return { start, end, text: '' };
  if (body[e] === '\r') e++;
  if (body[e] === '\n') e++;
  return { start: s, end: e, text: '' };
}

/** A Docusaurus doc id (`guides/deploying`) from a page's path in the docs folder and its frontmatter `id`. */
export function docusaurusDocId(path: string, frontmatterId: string | undefined): string {
  const segments = path
    .replace(/\.mdx?$/i, '')
    .split('/')
    .map(withoutNumberPrefix);
  if (frontmatterId !== undefined) segments[segments.length - 1] = frontmatterId;
  return segments.join('/');
}

/** Docusaurus's default number prefix parser: `01-intro` → `intro` (a date such as `2024-05-01-x` is no prefix). */
function withoutNumberPrefix(name: string): string {
  if (/^\d{4}-\d{2}-\d{2}/.test(name)) return name;
  const m = /^\d+\s*[-_.]+\s*([^-_.\s].*)$/.exec(name);
  return m ? m[1]! : name;
}

/** What the sidebars file says, or why it cannot be read. */
export type SidebarsReading = { readonly ok: true; readonly sidebars: readonly NavSidebar[] } | { readonly ok: false; readonly reason: string };

/** One sidebar as a navigation tree. */
export interface NavSidebar {
  readonly id: string;
  readonly items: readonly NavItem[];
}

/**
 * The sidebars of a sidebars file's exported object, as navigation trees.
 * @param value the file's exported value (literal values only; `undefined` when it is computed)
 * @param page the tree path and title of the page a doc id names, or `undefined`
 */
export function readSidebars(value: Literal | undefined, page: (docId: string) => { path: string; title: string } | undefined): SidebarsReading {
  if (value === undefined || value === null || typeof value !== 'object' || Array.isArray(value)) return { ok: false, reason: 'it exports no object of sidebars' };
  const sidebars: NavSidebar[] = [];
  const problems: string[] = [];
  const items = (list: Literal | undefined): NavItem[] => {
    if (Array.isArray(list)) return (list as Literal[]).flatMap(item);
    // A sidebar or category written as an object: each key is a category of its items.
    if (list !== null && typeof list === 'object') return Object.entries(list).map(([label, sub]) => ({ title: label, children: items(sub) }));
    problems.push(`a list of items is ${JSON.stringify(list)}`);
    return [];
  };
  const doc = (id: string, label: string | undefined): NavItem[] => {
    const p = page(id);
    return [{ title: label ?? p?.title ?? id, ...(p ? { path: p.path } : {}) }];
  };
  const item = (it: Literal): NavItem[] => {
    if (typeof it === 'string') return doc(it, undefined);
    if (it === null || typeof it !== 'object' || Array.isArray(it)) {
      problems.push(`an item is ${JSON.stringify(it)}`);
      return [];
    }
    const o = it as Record<string, Literal>;
    const label = typeof o.label === 'string' ? o.label : undefined;
    switch (o.type) {
      case 'doc':
      case 'ref':
        return typeof o.id === 'string' ? doc(o.id, label) : [];
      case 'link':
        return [{ title: label ?? (typeof o.href === 'string' ? o.href : 'link') }];
      case 'html':
        return [];
      case 'category': {
        const link = o.link as Record<string, Literal> | undefined;
        const linked = link?.type === 'doc' && typeof link.id === 'string' ? page(link.id) : undefined;
        return [{ title: label ?? '', ...(linked ? { path: linked.path } : {}), children: items(o.items) }];
      }
      case 'autogenerated':
        problems.push(
          `{type: 'autogenerated'${typeof o.dirName === 'string' ? `, dirName: '${o.dirName}'` : ''}} (its order comes from the pages' sidebar_position and _category_.json)`,
        );
        return [];
      case undefined:
        // `{ 'Category label': [items] }` inside a list
        return Object.entries(o).map(([title, sub]) => ({ title, children: items(sub) }));
      default:
        problems.push(`an item of type ${JSON.stringify(o.type)}`);
        return [];
    }
  };
  for (const [id, list] of Object.entries(value)) sidebars.push({ id, items: items(list) });
  return problems.length > 0 ? { ok: false, reason: problems.join('; ') } : { ok: true, sidebars };
}
