/**
 * The documents of a package for the report: one pass over the knowledge documents (through the
 * reader, which checks every file's digest), keeping per document only its path, title, size and
 * id — and the Markdown of the rows the page will show, while the text budget lasts.
 */
import { deriveTitle } from '../knowledge/title.js';
import { splitFrontmatter } from '../knowledge/frontmatter.js';
import { IdKind } from '../model/id-kind.js';
import { OctxError } from '../model/errors.js';
import { logicalPathProblem, payloadKind } from '../model/paths.js';
import type { OctxPackage } from '../read/open-package.js';
import type { IdSpace } from '../read/id-space.js';

/** Longest title kept: a title is a label, not a document. */
const MAX_TITLE = 300;

/** The documents read, in manifest order. */
export interface DocumentTable {
  readonly paths: string[];
  readonly titles: string[];
  readonly kinds: ('concept' | 'reserved')[];
  readonly sizes: number[];
  /** Row of each registered document id (index = the id's index in the id space). */
  readonly rowOfId: number[];
  /** Rows the page shows, ascending. */
  readonly shown: readonly number[];
  /** Markdown of shown rows that fit the budget, by row. */
  readonly texts: Map<number, { readonly text: string; readonly cut: number }>;
  /** Knowledge documents the manifest lists. */
  readonly listed: number;
  /** `path: CODE` when the documents could not all be read. */
  readonly unreadable: string[];
}

/** Budgets of the documents table. */
export interface DocumentBudgets {
  /** Rows shown: past it, an evenly spaced sample in manifest order. */
  readonly maxRows: number;
  /** Bytes of Markdown inlined in all. */
  readonly textBudget: number;
  /** Bytes of Markdown inlined per document. */
  readonly textPerDocument: number;
}

/** The knowledge paths `OctxPackage.documents()` yields, in its order (first listing of a path, valid logical paths). */
function knowledgePaths(pkg: OctxPackage): string[] {
  const seen = new Set<string>();
  for (const f of pkg.listedFiles()) {
    if (seen.has(f.path) || logicalPathProblem(f.path) !== undefined || payloadKind(f.path) !== 'knowledge') continue;
    seen.add(f.path);
  }
  return [...seen];
}

/** `count` rows out of `total`, evenly spaced, first and last included. */
export function sampleRows(total: number, count: number): number[] {
  if (total <= count) return Array.from({ length: total }, (_, i) => i);
  if (count <= 1) return count === 1 ? [0] : [];
  const out: number[] = [];
  for (let k = 0; k < count; k++) out.push(Math.round((k * (total - 1)) / (count - 1)));
  return out;
}

/** The text of a document cut to `max` UTF-8 bytes (on a character boundary). */
function cutText(text: string, max: number): { text: string; cut: number } {
  const bytes = Buffer.byteLength(text);
  if (bytes <= max) return { text, cut: 0 };
  const buf = Buffer.from(text).subarray(0, max);
  // Drop a partial character at the end (continuation bytes are 10xxxxxx).
  let end = buf.length;
  while (end > 0 && (buf[end - 1]! & 0xc0) === 0x80) end--;
  if (end > 0 && buf[end - 1]! >= 0xc0) end--;
  const kept = buf.subarray(0, end).toString('utf8');
  return { text: kept, cut: bytes - end };
}

/** The title shown for a document: its frontmatter `title`, else the reference's derived title. */
function titleOf(path: string, frontmatter: Record<string, unknown> | undefined, text: string): string {
  const given = frontmatter?.title;
  let title: string;
  if (typeof given === 'string' && given.trim() !== '') title = given.trim();
  else {
    const split = splitFrontmatter(text);
    title = deriveTitle(split.ok ? split.parts.body : text, path.slice(path.lastIndexOf('/') + 1));
  }
  return title.length > MAX_TITLE ? `${title.slice(0, MAX_TITLE)}…` : title;
}

/** Reads every knowledge document once; document ids are registered in `ids`. */
export async function collectDocuments(pkg: OctxPackage, ids: IdSpace, budgets: DocumentBudgets): Promise<DocumentTable> {
  const listed = knowledgePaths(pkg);
  const shown = sampleRows(listed.length, budgets.maxRows);
  const shownSet = new Set(shown);
  const table: DocumentTable = { paths: [], titles: [], kinds: [], sizes: [], rowOfId: [], shown, texts: new Map(), listed: listed.length, unreadable: [] };
  let textLeft = budgets.textBudget;
  try {
    for await (const d of pkg.documents()) {
      const row = table.paths.length;
      table.paths.push(d.path);
      table.kinds.push(d.kind);
      table.sizes.push(d.bytes.length);
      table.titles.push(d.kind === 'concept' ? titleOf(d.path, d.frontmatter, d.text) : d.path.slice(d.path.lastIndexOf('/') + 1));
      if (d.documentId !== undefined) {
        const index = ids.register(d.documentId, IdKind.document);
        if (index >= 0) table.rowOfId[index] = row;
      }
      if (shownSet.has(row) && textLeft > 0) {
        const t = cutText(d.text, Math.min(textLeft, budgets.textPerDocument));
        textLeft -= Buffer.byteLength(t.text);
        table.texts.set(row, t);
      }
    }
  } catch (e) {
    if (!(e instanceof OctxError)) throw e;
    table.unreadable.push(`${e.issues[0]?.path ?? 'knowledge/'}: ${e.code}`);
  }
  return table;
}
