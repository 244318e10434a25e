/**
 * Package paths for the documents an adapter makes from names it did not choose (a RAG
 * `doc_name`, a title): file-safe stems, and a path of its own for every document, so that two
 * sources never land on one path and no concept document is named like an OKF reserved file.
 */

/**
 * A safe file name (no directory) from a free-text name: NFC, path separators and control
 * characters replaced, no leading dots, at most 120 characters. Empty when nothing usable is left.
 */
export function safeFileStem(name: string): string {
  const cleaned = name
    .normalize('NFC')
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u001f\u007f/\\:*?"<>|]+/g, '-')
    .replace(/^[.\s-]+/, '')
    .replace(/[.\s-]+$/, '');
  return Array.from(cleaned)
    .slice(0, 120)
    .join('')
    .replace(/[.\s-]+$/, '');
}

/**
 * `name` without what looks like a file extension: a last dot followed by 1 to 10 characters
 * that are neither dots nor slashes (`report.pdf` → `report`; `v1.2 notes` → `v1` as well).
 */
export function withoutFileExtension(name: string): string {
  return name.replace(/\.[^./\\]{1,10}$/, '');
}

/**
 * Claims a package path (under `knowledge/`) for one source document. The path is NFC; a path
 * whose file is named `index` or `log` (OKF reserved files, which cannot be concept documents) or
 * that is already taken gets `-<the first 12 characters of the source key's stem>` before `.md`,
 * and if that is taken too, `-2`, `-3`, …
 * @param key the source's own id (a `doc_id`, a title), which tells two clashing documents apart
 * @param used the paths claimed so far; the returned path is added to it
 */
export function claimDocumentPath(path: string, key: string, used: Set<string>): string {
  let p = path.normalize('NFC');
  const base = p.replace(/\.md$/, '');
  const name = base.split('/').at(-1);
  if (name === 'index' || name === 'log') p = `${base}-${safeFileStem(key).slice(0, 12)}.md`;
  if (used.has(p)) p = `${base}-${safeFileStem(key).slice(0, 12)}.md`;
  let n = 2;
  while (used.has(p)) p = `${base}-${n++}.md`;
  used.add(p);
  return p;
}
