import { detachedString } from '../model/detached-string.js';

/**
 * The local files a Markdown body links to: inline links and images (`[t](a.md)`,
 * `![alt](img/x.png "title")`), reference definitions (`[id]: a.md`) and `<img src="…">`,
 * outside fenced code blocks and code spans. URLs with a scheme (`https:`, `mailto:`), protocol-
 * relative ones (`//host`) and pure fragments (`#part`) are not local files and are skipped.
 */
import { posix } from 'node:path';

const INLINE = /!?\[(?:[^\]\\]|\\.)*\]\(\s*(<[^>\n]*>|[^\s)]+)(?:\s+(?:"[^"]*"|'[^']*'|\([^)]*\)))?\s*\)/g;
const REFERENCE = /^ {0,3}\[[^\]]+\]:\s*(<[^>\n]*>|\S+)/;
const IMG_SRC = /<img\b[^>]*?\bsrc\s*=\s*(?:"([^"]*)"|'([^']*)')/gi;
const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;

/** The raw link targets of a Markdown body, in order of appearance. */
export function linkTargets(body: string): string[] {
  const out: string[] = [];
  let fence: string | undefined;
  for (const raw of body.split('\n')) {
    const line = raw.replace(/\r$/, '');
    const f = /^ {0,3}(`{3,}|~{3,})/.exec(line);
    if (f) {
      if (fence === undefined) fence = f[1]!;
      else if (f[1]![0] === fence[0] && f[1]!.length >= fence.length) fence = undefined;
      continue;
    }
    if (fence !== undefined) continue;
    const text = line.replace(/`[^`]*`/g, (m) => ' '.repeat(m.length));
    const ref = REFERENCE.exec(text);
    if (ref) out.push(ref[1]!);
    for (const m of text.matchAll(INLINE)) out.push(m[1]!);
    for (const m of text.matchAll(IMG_SRC)) out.push(m[1] ?? m[2]!);
  }
  // Copies (see `detachedString`): a loader keeps the targets of every page until all are read,
  // and slices would keep every linking page alive with them.
  return out.map((t) => detachedString(t.startsWith('<') && t.endsWith('>') ? t.slice(1, -1) : t));
}

/**
 * The path a link target names, relative to the tree root, or `undefined` when it is not a local
 * file (a URL, a fragment, a path leaving the tree). `/a/b.png` is taken from the tree root (as
 * bundle-absolute OKF links are); the query and fragment are dropped and `%XX` escapes decoded.
 * @param from the linking document's path relative to the tree root
 */
export function resolveLocalLink(from: string, target: string): string | undefined {
  if (target === '' || target.startsWith('#') || target.startsWith('//') || SCHEME.test(target)) return undefined;
  let path = target.replace(/[?#].*$/, '');
  if (path === '') return undefined;
  try {
    path = decodeURIComponent(path);
  } catch {
    // a stray "%": keep the text as written
  }
  const joined = path.startsWith('/') ? posix.normalize(path.slice(1)) : posix.normalize(posix.join(posix.dirname(from), path));
  if (joined === '.' || joined.startsWith('../') || joined === '..') return undefined;
  return joined.replace(/\/$/, '');
}
