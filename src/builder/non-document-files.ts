/**
 * Files of a knowledge tree that cannot be documents (images, styles, components, data…), summed
 * up by kind, so nothing is dropped without a count.
 */
import { posix } from 'node:path';

/** The kinds a left-out file is counted under. */
export type LeftOutKind = 'images' | 'styles' | 'scripts' | 'data' | 'markdown' | 'folders' | 'other';

/** The left-out files of one kind. */
export interface LeftOutGroup {
  readonly kind: LeftOutKind;
  /** The extensions seen (`.svg`, `.png`; `(none)` for a file without one), sorted. */
  readonly extensions: readonly string[];
  /** The files (or, for `folders`, the folders not scanned), relative to the folder read, in path order. */
  readonly files: readonly string[];
}

const KIND_OF_EXTENSION: Record<string, LeftOutKind> = {};
const EXTENSIONS: Readonly<Record<Exclude<LeftOutKind, 'folders' | 'other'>, readonly string[]>> = {
  images: ['.png', '.jpg', '.jpeg', '.gif', '.svg', '.webp', '.avif', '.ico', '.bmp', '.tif', '.tiff', '.apng'],
  styles: ['.css', '.scss', '.sass', '.less', '.styl', '.stylus', '.pcss'],
  scripts: ['.js', '.mjs', '.cjs', '.ts', '.mts', '.cts', '.jsx', '.tsx', '.vue', '.svelte', '.astro', '.html', '.htm'],
  data: ['.json', '.jsonc', '.json5', '.yaml', '.yml', '.toml', '.csv', '.tsv', '.xml'],
  markdown: ['.mdx', '.markdown', '.mdown', '.mkd', '.rmd', '.qmd'],
};
for (const [kind, exts] of Object.entries(EXTENSIONS)) for (const e of exts) KIND_OF_EXTENSION[e] = kind as LeftOutKind;

/** How each kind is named in a summary line (singular, plural). */
const NAMES: Readonly<Record<LeftOutKind, readonly [string, string]>> = {
  images: ['image', 'images'],
  styles: ['style sheet', 'style sheets'],
  scripts: ['script or component', 'scripts and components'],
  data: ['data or config file', 'data and config files'],
  markdown: ['Markdown-like file that is not .md', 'Markdown-like files that are not .md'],
  folders: ['folder not scanned', 'folders not scanned'],
  other: ['other file', 'other files'],
};

/** Summary order: what a docs tree holds most first. */
const ORDER: readonly LeftOutKind[] = ['images', 'scripts', 'styles', 'data', 'markdown', 'other', 'folders'];

/** The extension of a path as counted (lower case, `(none)` when it has none). */
function extensionOf(path: string): string {
  const ext = posix.extname(path).toLowerCase();
  return ext === '' ? '(none)' : ext;
}

/**
 * The kind a file is counted under. A `.md` file is `markdown` here: it is left out only when
 * it lies outside the knowledge tree or has an upper-case extension (`.MD`), which a package
 * path may not have.
 */
export function leftOutKind(path: string): LeftOutKind {
  const ext = posix.extname(path).toLowerCase();
  if (ext === '.md') return 'markdown';
  return KIND_OF_EXTENSION[ext] ?? 'other';
}

/**
 * Groups left-out files by kind (in summary order), each with its extensions and files.
 * @param folders folders that were not scanned at all (`node_modules`, hidden folders)
 */
export function groupLeftOut(files: readonly string[], folders: readonly string[] = []): LeftOutGroup[] {
  const byKind = new Map<LeftOutKind, string[]>();
  for (const f of files) {
    const kind = leftOutKind(f);
    const list = byKind.get(kind);
    if (list) list.push(f);
    else byKind.set(kind, [f]);
  }
  if (folders.length > 0) byKind.set('folders', [...folders]);
  return ORDER.filter((k) => byKind.has(k)).map((kind) => {
    const list = byKind.get(kind)!;
    const extensions = kind === 'folders' ? [] : [...new Set(list.map(extensionOf))].sort();
    return { kind, extensions, files: list };
  });
}

/** One human line for a group: `16 images (.png, .svg)`. */
export function describeLeftOut(group: LeftOutGroup): string {
  const [one, many] = NAMES[group.kind];
  const n = group.files.length;
  const what = `${n} ${n === 1 ? one : many}`;
  if (group.kind === 'folders') return `${what} (${group.files.map((f) => `${f}/`).join(', ')})`;
  return `${what} (${group.extensions.join(', ')})`;
}
