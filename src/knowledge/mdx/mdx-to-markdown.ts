/**
 * MDX → Markdown for a knowledge document: the MDX syntax goes, everything else stays byte for
 * byte. The body is parsed with the unified ecosystem's MDX parser (`micromark-extension-mdxjs`
 * through `mdast-util-from-markdown`, as Docusaurus, Starlight and `@mdx-js/mdx` parse it), and
 * the output is the source with edits at the MDX nodes' positions — never a re-serialised tree,
 * so prose, tables and fenced code keep their exact bytes:
 *
 * - ESM `import`/`export` blocks are removed (with their line ending);
 * - `{expressions}` (and `{/* comments *\/}`) are dropped;
 * - JSX elements are unwrapped: their tags go and their Markdown children stay. A tag alone on its
 *   line takes the line with it. What carries meaning is kept as Markdown: a label line
 *   `**Caution: Title**` for an admonition-like component (`Aside`, `Admonition`, `Callout`…) or a
 *   `title`/`label` attribute (a tab's label), `![alt](src)` for `<img>`, `[text](href)` for
 *   `<a href>`, the `text` attribute of an inline self-closing element (`<Badge text="New" />`);
 * - the children of a block element lose the indentation the JSX nesting gave them (MDX has no
 *   indented code, Markdown does: an indented paragraph inside `<TabItem>` would become code).
 */
import { fromMarkdown } from 'mdast-util-from-markdown';
import { mdxFromMarkdown } from 'mdast-util-mdx';
import { mdxjs } from 'micromark-extension-mdxjs';
import { detachedString } from '../../model/detached-string.js';

/** What the conversion of one MDX body changed, by kind. */
export interface MdxChangeCounts {
  /** ESM `import`/`export` blocks removed. */
  readonly esm: number;
  /** `{expressions}` dropped (comments included). */
  readonly expressions: number;
  /** JSX elements unwrapped (their children kept). */
  readonly elements: number;
  /** Labels, links, images and texts kept from the elements' string attributes. */
  readonly attributes: number;
  /** The component names unwrapped, sorted, each once. */
  readonly components: readonly string[];
}

/** Result of {@link mdxToMarkdown}. */
export type MdxConversion =
  | { readonly ok: true; readonly markdown: string; readonly changes: MdxChangeCounts }
  | { readonly ok: false; readonly line: number; readonly column: number; readonly reason: string };

/** Components whose `type` (or own name) says the kind of an admonition. */
const ADMONITIONS = new Set(['Aside', 'Admonition', 'Callout', 'Note', 'Tip', 'Info', 'Warning', 'Caution', 'Danger', 'Important']);
/** Attributes whose string value names a block element (a tab's label, a card's title). */
const LABEL_ATTRIBUTES = ['title', 'label'];

interface Edit {
  start: number;
  end: number;
  text: string;
}

interface Point {
  offset?: number | undefined;
  line: number;
  column: number;
}
interface MdxNode {
  type: string;
  name?: string | null;
  attributes?: { type: string; name?: string; value?: unknown }[];
  children?: MdxNode[];
  position?: { start: Point; end: Point };
}

/**
 * Converts an MDX body (the text after its frontmatter) to Markdown; see the module comment for
 * what is kept. A body that does not parse as MDX gives its first error's line and column
 * (1-based, in the body) instead.
 */
export function mdxToMarkdown(body: string): MdxConversion {
  const tags = new Map<number, number>();
  const mdx = mdxFromMarkdown();
  let tree: MdxNode;
  try {
    tree = fromMarkdown(body, { extensions: [mdxjs()], mdastExtensions: [...mdx, tagRecorder(tags, mdx)] });
  } catch (e) {
    return parseFailure(e);
  }
  const edits: Edit[] = [];
  const dedent = new Map<number, number>();
  const counts = { esm: 0, expressions: 0, elements: 0, attributes: 0 };
  const components = new Set<string>();
  const lineStarts = lineStartsOf(body);
  const visit = (node: MdxNode): void => {
    const start = node.position?.start.offset;
    const end = node.position?.end.offset;
    if (start === undefined || end === undefined) return;
    switch (node.type) {
      case 'code':
      case 'inlineCode':
        return;
      case 'mdxjsEsm':
        counts.esm++;
        edits.push(wholeLines(body, start, end, ''));
        return;
      case 'mdxFlowExpression':
        counts.expressions++;
        edits.push(wholeLines(body, start, end, ''));
        return;
      case 'mdxTextExpression':
        counts.expressions++;
        edits.push({ start, end, text: '' });
        return;
      case 'mdxJsxFlowElement':
      case 'mdxJsxTextElement': {
        counts.elements++;
        if (node.name) components.add(node.name);
        unwrap(node, start, end, node.type === 'mdxJsxFlowElement');
        break;
      }
    }
    for (const child of node.children ?? []) visit(child);
  };
  const unwrap = (node: MdxNode, start: number, end: number, flow: boolean): void => {
    const openEnd = tags.get(start) ?? end;
    const selfClosing = openEnd >= end;
    const closeStart = selfClosing ? end : closingTagStart(tags, start, end);
    const strings = stringAttributes(node);
    const { open, close, kept } = replacements(node.name ?? '', strings, flow, selfClosing);
    if (kept) counts.attributes++;
    if (flow) {
      edits.push(wholeLines(body, start, openEnd, open === '' ? '' : `\n${open}\n\n`));
      if (!selfClosing) {
        edits.push(wholeLines(body, closeStart, end, close));
        // The lines strictly between the tags lose the indentation the nesting gave them.
        const first = lineIndexAt(lineStarts, openEnd) + 1;
        const last = lineIndexAt(lineStarts, closeStart) - 1;
        let min = Infinity;
        for (let i = first; i <= last; i++) {
          const indent = indentAt(body, lineStarts, i);
          if (indent !== undefined) min = Math.min(min, indent);
        }
        if (min !== Infinity && min > 0) for (let i = first; i <= last; i++) dedent.set(i, min);
      }
    } else {
      edits.push({ start, end: openEnd, text: open });
      if (!selfClosing) edits.push({ start: closeStart, end, text: close });
    }
  };
  for (const child of tree.children ?? []) visit(child);
  for (const [line, n] of dedent) {
    const at = lineStarts[line]!;
    let k = 0;
    while (k < n && (body.charCodeAt(at + k) === 32 || body.charCodeAt(at + k) === 9)) k++;
    if (k > 0) edits.push({ start: at, end: at + k, text: '' });
  }
  return {
    ok: true,
    markdown: applyEdits(body, edits),
    changes: { ...counts, components: [...components].sort().map((c) => detachedString(c)) },
  };
}

/** The string attributes of a JSX element, by name (expression attributes are not read). */
function stringAttributes(node: MdxNode): Map<string, string> {
  const out = new Map<string, string>();
  for (const a of node.attributes ?? []) if (a.type === 'mdxJsxAttribute' && a.name !== undefined && typeof a.value === 'string') out.set(a.name, a.value);
  return out;
}

/** What an element's opening and closing tags become, and whether an attribute was kept. */
function replacements(name: string, attrs: Map<string, string>, flow: boolean, selfClosing: boolean): { open: string; close: string; kept: boolean } {
  if (name === 'img' && attrs.has('src')) return { open: `![${attrs.get('alt') ?? ''}](${attrs.get('src')})`, close: '', kept: true };
  if (name === 'a' && attrs.has('href') && !selfClosing) return { open: '[', close: `](${attrs.get('href')})`, kept: true };
  if (!flow) {
    const text = attrs.get('text') ?? attrs.get('label') ?? attrs.get('title');
    return selfClosing && text !== undefined ? { open: text, close: '', kept: true } : { open: '', close: '', kept: false };
  }
  const label = LABEL_ATTRIBUTES.map((a) => attrs.get(a)).find((v) => v !== undefined && v.trim() !== '');
  const kind = ADMONITIONS.has(name) ? capitalise(attrs.get('type') ?? (name === 'Aside' || name === 'Admonition' || name === 'Callout' ? 'note' : name)) : undefined;
  const parts = [kind, label].filter((p): p is string => p !== undefined);
  return parts.length === 0 ? { open: '', close: '', kept: false } : { open: `**${parts.join(': ')}**`, close: '', kept: true };
}

function capitalise(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/**
 * An edit over `[start, end)` widened to whole lines when only white space shares them with it
 * (the line's indentation before, the line ending after), so a removed block leaves no blank line.
 */
function wholeLines(body: string, start: number, end: number, text: string): Edit {
  let s = start;
  while (s > 0 && (body[s - 1] === ' ' || body[s - 1] === '\t')) s--;
  let e = end;
  while (e < body.length && (body[e] === ' ' || body[e] === '\t')) e++;
  const alone = (s === 0 || body[s - 1] === '\n') && (e === body.length || body[e] === '\n' || body[e] === '\r');
  if (!alone) return { start, end, text: text.replace(/\n+$/, '') };
  if (body[e] === '\r') e++;
  if (body[e] === '\n') e++;
  return { start: s, end: e, text };
}

/** The start of the closing tag of the element spanning `[start, end)`: the recorded tag that ends at `end`. */
function closingTagStart(tags: ReadonlyMap<number, number>, start: number, end: number): number {
  let best = start;
  for (const [s, e] of tags) if (e === end && s > best) best = s;
  return best;
}

/** Offsets of each line's first character. */
function lineStartsOf(text: string): number[] {
  const out = [0];
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) out.push(i + 1);
  return out;
}

/** The index of the line holding `offset`. */
function lineIndexAt(starts: readonly number[], offset: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid]! <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** Leading spaces and tabs of line `i` (each one character), or `undefined` for a blank line. */
function indentAt(text: string, starts: readonly number[], i: number): number | undefined {
  const at = starts[i]!;
  const end = i + 1 < starts.length ? starts[i + 1]! : text.length;
  let k = at;
  while (k < end && (text.charCodeAt(k) === 32 || text.charCodeAt(k) === 9)) k++;
  const rest = text.slice(k, end).trim();
  return rest === '' ? undefined : k - at;
}

/**
 * The text with the edits applied, by start (the longer first where two start together); an edit
 * inside an earlier one is dropped (a dedent of a line a removed tag takes whole).
 */
function applyEdits(text: string, edits: Edit[]): string {
  edits.sort((a, b) => a.start - b.start || b.end - a.end);
  let out = '';
  let at = 0;
  for (const e of edits) {
    if (e.start < at) continue;
    out += text.slice(at, e.start) + e.text;
    at = e.end;
  }
  return out + text.slice(at);
}

/**
 * An mdast extension that records each JSX tag's source range (start → end offset), wrapping the
 * MDX extension's own handlers: the tree gives an element's span, not where its tags end.
 */
function tagRecorder(tags: Map<number, number>, mdx: ReturnType<typeof mdxFromMarkdown>): { exit: Record<string, (this: unknown, token: { start: Point; end: Point }) => void> } {
  const jsx = mdx.find((e) => e.exit?.mdxJsxFlowTag !== undefined)!;
  const wrap = (name: 'mdxJsxFlowTag' | 'mdxJsxTextTag') => {
    const original = jsx.exit![name]!;
    return function (this: unknown, token: { start: Point; end: Point }): void {
      tags.set(token.start.offset!, token.end.offset!);
      (original as (this: unknown, token: unknown) => void).call(this, token);
    };
  };
  return { exit: { mdxJsxFlowTag: wrap('mdxJsxFlowTag'), mdxJsxTextTag: wrap('mdxJsxTextTag') } };
}

/** The line and column of an MDX parse error (a `VFileMessage`), and its reason. */
function parseFailure(e: unknown): MdxConversion {
  const m = e as { reason?: string; message?: string; line?: number; column?: number; place?: { line?: number; column?: number; start?: { line: number; column: number } } };
  const reason = String(m.reason ?? m.message ?? e);
  // The JSX tree builder's errors (an unclosed tag) carry the place only in their text: `(3:1-3:6)`.
  const inText = /\((\d+):(\d+)-\d+:\d+\)\s*$/.exec(reason);
  const line = m.line ?? m.place?.start?.line ?? m.place?.line ?? (inText ? Number(inText[1]) : 1);
  const column = m.column ?? m.place?.start?.column ?? m.place?.column ?? (inText ? Number(inText[2]) : 1);
  return { ok: false, line, column, reason: detachedString(reason) };
}
