import { parseFrontmatter, splitFrontmatter, type FrontmatterBounds } from './frontmatter.js';

/**
 * Checks a reserved OKF file (`index.md` or `log.md`) against the structure the reference
 * enforces (OCTX-REFERENCE §8.2, `OCTX_OKF_RESERVED_INVALID`). Returns the problems; empty
 * means the file is acceptable.
 *
 * @param logicalPath the package path, e.g. `knowledge/index.md` or `knowledge/a/log.md`
 * @param text the file text with any BOM already removed
 * @param bounds the root index.md's frontmatter above these bounds is refused unparsed (a number
 *   is the byte bound alone)
 */
export function reservedDocumentProblems(logicalPath: string, text: string, bounds?: number | FrontmatterBounds): string[] {
  const problems: string[] = [];
  const isRootIndex = logicalPath === 'knowledge/index.md';
  const isLog = logicalPath.endsWith('/log.md');
  const split = splitFrontmatter(text);
  if (!split.ok) return [split.reason];
  let body = split.parts.body;
  if (split.parts.frontmatter !== undefined) {
    if (!isRootIndex) {
      problems.push('only the bundle-root index.md may carry frontmatter');
    } else {
      const parsed = parseFrontmatter(split.parts.frontmatter, bounds);
      if (!parsed.ok) problems.push(`frontmatter: ${parsed.reason}`);
      else {
        const keys = Object.keys(parsed.value.data);
        const extra = keys.filter((k) => k !== 'okf_version');
        if (extra.length > 0) problems.push(`root index.md frontmatter may only hold okf_version (found ${extra.join(', ')})`);
      }
    }
  } else {
    body = text;
  }
  const lines = body.split('\n').map((l) => l.replace(/\r$/, ''));
  if (!lines.some((l) => /^#\s+\S/.test(l))) problems.push('a level-one heading (# Title) is required');
  if (!isLog) {
    if (!lines.some((l) => /^\s*[*+-]\s+\[[^\]]+\]\([^)]+\)/.test(l))) {
      problems.push('index.md needs at least one list item with a Markdown link, like "* [Title](path.md) - description"');
    }
    return problems;
  }
  // log.md: date groups, newest first, each with at least one list item.
  const groups: { date: string; items: number }[] = [];
  for (const l of lines) {
    const h = /^##\s+(\d{4}-\d{2}-\d{2})\s*$/.exec(l);
    if (h) {
      groups.push({ date: h[1]!, items: 0 });
      continue;
    }
    if (groups.length > 0 && /^\s*[*+-]\s+\S/.test(l)) groups[groups.length - 1]!.items += 1;
  }
  if (groups.length === 0) problems.push('log.md needs at least one "## YYYY-MM-DD" date heading');
  for (let i = 1; i < groups.length; i++) {
    if (groups[i]!.date > groups[i - 1]!.date) {
      problems.push(`log.md date groups must be newest first (${groups[i]!.date} comes after ${groups[i - 1]!.date})`);
      break;
    }
  }
  for (const g of groups) if (g.items === 0) problems.push(`log.md date group ${g.date} has no list item`);
  return problems;
}

/**
 * The first line of an `index.md` body that is not part of an index's shape — headings, list
 * entries (and their indented continuation lines), HTML comments and blank lines — as `{ line,
 * text }` (1-based, counted in `text`), or `undefined` for a pure index. A README-like page (a
 * paragraph, a code block, a table) can pass the OKF index rules (one heading, one link item)
 * while being content: plain-folder builds keep such a page as a document.
 *
 * @param text the file text with any BOM already removed
 */
export function indexProseLine(text: string): { line: number; text: string } | undefined {
  const split = splitFrontmatter(text);
  const body = split.ok ? split.parts.body : text;
  const offset = split.ok && split.parts.frontmatter !== undefined ? text.slice(0, text.length - body.length).split('\n').length - 1 : 0;
  const lines = body.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i]!.replace(/\r$/, '');
    if (l.trim() === '' || /^ {0,3}#{1,6}(\s|$)/.test(l) || /^ {0,3}[*+-]\s+\S/.test(l) || /^\s+\S/.test(l) || /^ {0,3}<!--.*-->\s*$/.test(l)) continue;
    return { line: offset + i + 1, text: l.length > 60 ? `${l.slice(0, 57)}…` : l };
  }
  return undefined;
}
