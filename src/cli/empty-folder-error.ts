/**
 * The `build` error for a folder that gave no concept document, in CLI terms: how many Markdown
 * files were found and where, and the option that takes them (the SDK's export would only say
 * `OCTX_CONCEPT_REQUIRED` and name `addDocument()`).
 */
import type { WorkdirLoadReport } from '../builder/load-workdir.js';
import { describeLeftOut } from '../builder/non-document-files.js';
import { OctxError } from '../model/errors.js';
import { withHint } from './errors.js';

/** Markdown files per top-level folder (`docs/ (40)`, `README.md`), largest first. */
function whereMarkdownIs(paths: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const p of paths) {
    const i = p.indexOf('/');
    const key = i < 0 ? p : `${p.slice(0, i)}/`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  const parts = [...counts].sort((a, b) => b[1] - a[1]).map(([k, n]) => (k.endsWith('/') ? `${k} (${n})` : k));
  return parts.length > 6 ? `${parts.slice(0, 6).join(', ')}, …` : parts.join(', ');
}

/**
 * `OCTX_CONCEPT_REQUIRED` when loading `workdir` added no concept document, else `undefined`.
 * @param workdir the folder as the user gave it
 */
export function noDocumentsError(workdir: string, loaded: WorkdirLoadReport): OctxError | undefined {
  if (loaded.documents - loaded.reserved.length > 0) return undefined;
  const tree = loaded.knowledgeDir === '.' ? workdir : `${loaded.knowledgeDir}/ of ${workdir}`;
  const elsewhere = loaded.ignored.filter((p) => p.endsWith('.md'));
  let message: string;
  let hint: string;
  if (loaded.reserved.length > 0 || loaded.skipped.length > 0) {
    const names = [...loaded.reserved, ...loaded.skipped.map((p) => `knowledge/${p}`)];
    message = `no concept document in ${tree}: its only Markdown files are index.md/log.md files (${names.join(', ')}), which are not concepts`;
    hint = 'add a Markdown page that is not index.md/log.md, or build with --index-files as-documents to keep non-OKF index pages as documents';
  } else if (elsewhere.length > 0) {
    message = `no Markdown document in ${tree}; ${elsewhere.length} Markdown file${elsewhere.length === 1 ? ' was' : 's were'} found elsewhere in ${workdir}: ${whereMarkdownIs(elsewhere)}`;
    hint = 'name the folder that holds the documents with --knowledge <subdir> (e.g. --knowledge docs), or move them under knowledge/';
  } else {
    const leftOut = loaded.leftOut.map(describeLeftOut);
    message = `no Markdown (.md) file in ${tree}${leftOut.length > 0 ? `; found only ${leftOut.join(', ')}` : ''}`;
    hint = 'point build at the folder that holds your .md pages (or name it with --knowledge <subdir>); a package carries Markdown documents only';
  }
  return withHint(OctxError.of({ code: 'OCTX_CONCEPT_REQUIRED', path: workdir, message }), hint);
}
