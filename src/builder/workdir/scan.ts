/**
 * The first phase of `loadWorkdir`: what the folder is (a working folder or a plain Markdown
 * tree), where its documents are, and every file in it, listed and checked (symbolic links and
 * special files refused, the resource limits held against the listing) before a byte is read.
 */
import { statSync } from 'node:fs';
import { lstat, readdir, stat } from 'node:fs/promises';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { join, posix, relative, sep } from 'node:path';
import { OctxError, issue } from '../../model/errors.js';
import type { ArchiveLimits } from '../../model/limits.js';
import { STRUCTURE_PATHS, compareUtf8 } from '../../model/paths.js';
import type { ProgressListener } from '../../model/progress.js';
import { fileKind } from '../../package/regular-file.js';
import { SDK_LIMITS_HINT, checkListedInput } from '../../plan/limits-check.js';
import type { WorkdirMode } from './types.js';
import { bytesShown } from '../workdir-names.js';

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}

/** What a walk found besides the files. */
interface WalkFindings {
  /** Symbolic links met (never followed), relative to the root. */
  readonly links: string[];
  /** Folders not scanned (plain-folder mode: hidden folders and `node_modules`), relative to the root. */
  readonly unscanned: string[];
  /** FIFOs, sockets and devices met (never opened: a FIFO would block), with what each is. */
  readonly special: { readonly path: string; readonly kind: string }[];
  /** Names that are not UTF-8 (their bytes as `\xNN`), never opened: read as text they name no file. */
  readonly notUtf8: string[];
}

/** Folders a plain Markdown tree holds that are never documentation: tool caches, builds, VCS. */
function unscannedFolder(name: string): boolean {
  return name.startsWith('.') || name === 'node_modules';
}

/**
 * Every regular file below `dir`, as POSIX paths relative to `root`. Symbolic links are
 * collected (and refused by the caller, all at once); with `skipTools`, hidden folders and
 * `node_modules` are listed as not scanned instead of walked.
 */
async function walk(root: string, dir: string, out: string[], found: WalkFindings, skipTools: boolean, onFolder?: () => void): Promise<void> {
  for (const entry of await readdir(dir, { withFileTypes: true, encoding: 'buffer' })) {
    const name = entry.name.toString('utf8');
    const full = join(dir, name);
    const rel = relative(root, full).split(sep).join('/');
    if (!Buffer.from(name, 'utf8').equals(entry.name)) found.notUtf8.push(`${rel.slice(0, rel.length - name.length)}${bytesShown(entry.name)}`);
    else if (entry.isSymbolicLink()) found.links.push(rel);
    else if (entry.isDirectory() && skipTools && unscannedFolder(name)) found.unscanned.push(rel);
    else if (entry.isDirectory()) await walk(root, full, out, found, skipTools, onFolder);
    else if (entry.isFile()) out.push(rel);
    else found.special.push({ path: rel, kind: fileKind(entry) });
  }
  onFolder?.();
}

/**
 * What makes a folder a working folder: a `knowledge/` folder, a record file or the vector
 * config. A docs tree's own `data/` or `vectors/` folder (of JSON, images) does not.
 */
const LAYOUT_MARKERS: readonly string[] = [...STRUCTURE_PATHS, 'vectors/config.json'];

/** Whether `dir` has the package layout (a working folder). */
export async function hasLayout(dir: string): Promise<boolean> {
  if (await isFolder(join(dir, 'knowledge'))) return true;
  return (await Promise.all(LAYOUT_MARKERS.map((p) => exists(join(dir, p))))).some(Boolean);
}

async function isFolder(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}

/** The `knowledge` option as a clean relative folder of `dir`. */
async function knowledgeOption(dir: string, value: unknown): Promise<string> {
  const bad = (message: string): never => {
    throw OctxError.of({ code: 'OCTX_OPTIONS_INVALID', field: 'knowledge', message });
  };
  if (typeof value !== 'string' || value.trim() === '') bad('knowledge must name a folder inside the folder read, e.g. "docs"');
  const clean = posix.normalize((value as string).split(sep).join('/')).replace(/\/+$/, '');
  if (clean.startsWith('/') || clean === '..' || clean.startsWith('../') || /^[A-Za-z]:/.test(clean)) {
    bad(`knowledge must be a folder inside the folder read (got ${JSON.stringify(value)})`);
  }
  if (
    await lstat(join(dir, clean)).then(
      (st) => st.isSymbolicLink(),
      () => false,
    )
  ) {
    throw OctxError.of({
      code: 'OCTX_SECURITY_ERROR',
      path: clean,
      field: 'knowledge',
      message: `knowledge folder ${clean} is a symbolic link, never followed: name the folder it points to`,
    });
  }
  if (!(await isFolder(join(dir, clean)))) {
    throw OctxError.of({ code: 'OCTX_OPEN_ERROR', path: join(dir, clean), field: 'knowledge', message: `knowledge folder ${clean} is not a folder in ${dir}` });
  }
  return clean;
}

/** What {@link scanWorkdir} found: the folder's layout and its files. */
export interface WorkdirScan {
  /** The folder has the package layout (a working folder). */
  readonly layout: boolean;
  readonly mode: WorkdirMode;
  /** The documents' folder, relative to the folder read (`.` for itself). */
  readonly knowledgeDir: string;
  /** `knowledgeDir` as a path prefix (`''` for the folder itself, else `dir/`). */
  readonly tree: string;
  /** Every regular file listed, in UTF-8 path order. */
  readonly files: readonly string[];
  /** Folders not scanned (plain-folder mode), in path order. */
  readonly unscanned: readonly string[];
  /** Each document's and extension file's size, from the listing. */
  readonly sizes: ReadonlyMap<string, number>;
  /** Whether a listed file is a document (a `.md` file of the knowledge tree). */
  readonly isDocument: (rel: string) => boolean;
}

/**
 * Lists the folder: its layout, its knowledge tree (the `knowledge` option, else `knowledge/` in a
 * working folder, else the docs site's pages folder `siteContent` when it is one, else the folder) and its files, refusing symbolic links and
 * special files (every one at once) and a listing over the limits, before any file is read.
 * @throws OctxError `OCTX_OPEN_ERROR`, `OCTX_OPTIONS_INVALID`, `OCTX_SECURITY_ERROR`, `OCTX_RESOURCE_LIMIT`
 */
export async function scanWorkdir(dir: string, knowledge: unknown, limits: ArchiveLimits, onProgress?: ProgressListener, siteContent?: string): Promise<WorkdirScan> {
  if (!(await exists(dir))) throw OctxError.of({ code: 'OCTX_OPEN_ERROR', path: dir, message: `working folder ${dir} does not exist` });
  const layout = await hasLayout(dir);
  const mode: WorkdirMode = layout ? 'working-folder' : 'plain-folder';
  const knowledgeDir =
    knowledge !== undefined
      ? await knowledgeOption(dir, knowledge)
      : layout
        ? 'knowledge'
        : siteContent !== undefined && (await isFolder(join(dir, siteContent)))
          ? siteContent
          : '.';
  const tree = knowledgeDir === '.' ? '' : `${knowledgeDir}/`;
  const files: string[] = [];
  const found: WalkFindings = { links: [], unscanned: [], special: [], notUtf8: [] };
  let folders = 0;
  // A plain folder is walked from its knowledge tree only; a working folder whole (its layout).
  await walk(dir, layout ? dir : join(dir, knowledgeDir), files, found, !layout, () => {
    // Listing is quick per folder; report every 64 folders so a huge tree still shows life.
    if (++folders % 64 === 0) onProgress?.({ phase: 'scan', kind: 'files', completed: files.length, total: files.length });
  });
  if (found.notUtf8.length > 0) {
    found.notUtf8.sort(compareUtf8);
    throw OctxError.aggregate(
      'OCTX_PATH_INVALID',
      `${found.notUtf8.length} name${found.notUtf8.length === 1 ? '' : 's'} in ${dir} that ${found.notUtf8.length === 1 ? 'is' : 'are'} not UTF-8 (package paths are UTF-8): rename each (e.g. convmv -f latin1 -t utf8):`,
      found.notUtf8.map((path) => issue({ code: 'OCTX_PATH_INVALID', path, message: `${path} is not UTF-8 (the bytes shown as \\xNN): rename it; it was not read` })),
    );
  }
  if (found.links.length > 0) {
    found.links.sort(compareUtf8);
    throw OctxError.aggregate(
      'OCTX_SECURITY_ERROR',
      `${found.links.length} symbolic link${found.links.length === 1 ? '' : 's'} in ${dir}, never followed (a link can reach outside the folder): replace each with a copy of what it points at (cp -RL copies a tree with its links resolved), or build the folder it points to:`,
      found.links.map((path) =>
        issue({
          code: 'OCTX_SECURITY_ERROR',
          path,
          message: `${path} is a symbolic link, never followed: copy what it points at into the folder (cp -RL), or build that folder itself`,
        }),
      ),
    );
  }
  if (found.special.length > 0) {
    // Named, not skipped: a page that is a FIFO would otherwise be missing from the package without a word.
    found.special.sort((a, b) => compareUtf8(a.path, b.path));
    throw OctxError.aggregate(
      'OCTX_SECURITY_ERROR',
      `${found.special.length} file${found.special.length === 1 ? '' : 's'} in ${dir} that cannot be read as files (FIFOs, sockets, devices): remove or replace each with a regular file:`,
      found.special.map(({ path, kind }) =>
        issue({ code: 'OCTX_SECURITY_ERROR', path, message: `${path} is ${kind}, not a regular file: only regular files and folders are read` }),
      ),
    );
  }
  files.sort(compareUtf8);
  found.unscanned.sort(compareUtf8);
  const isDocument = (rel: string): boolean => rel.startsWith(tree) && /\.mdx?$/.test(rel) && posix.basename(rel) !== '.md' && posix.basename(rel) !== '.mdx';
  const sizes = await checkListing(dir, files, limits, isDocument);
  onProgress?.({ phase: 'scan', kind: 'files', completed: files.length, total: files.length });
  return { layout, mode, knowledgeDir, tree, files, unscanned: found.unscanned, sizes, isDocument };
}

/** Files stat'ed between two turns of the event loop while the listing is checked. */
const STAT_BATCH = 1024;

/**
 * Refuses a folder whose documents and extension files alone exceed the limits (each becomes one
 * package entry at least as large as the file), from the listing and file sizes, before a byte is read.
 */
async function checkListing(dir: string, files: readonly string[], limits: ArchiveLimits, isDocument: (rel: string) => boolean): Promise<ReadonlyMap<string, number>> {
  const payloads = files.filter((rel) => isDocument(rel) || rel.startsWith('extensions/'));
  const sized: { path: string; size: number }[] = [];
  if (payloads.length + 1 <= limits.maxEntries) {
    // One synchronous stat after another, yielding now and then: a stat costs microseconds, and
    // one pending promise per file of a 100,000-page tree held tens of MiB at once.
    for (let i = 0; i < payloads.length; i++) {
      if (i > 0 && i % STAT_BATCH === 0) await nextTurn();
      const path = payloads[i]!;
      sized.push({ path, size: statSync(join(dir, path)).size });
    }
  }
  const issues = checkListedInput(payloads.length, () => sized, limits);
  if (issues.length > 0) {
    throw OctxError.aggregate(
      'OCTX_RESOURCE_LIMIT',
      `the working folder ${dir} would make a package over the consumers' resource limits; nothing was read (${SDK_LIMITS_HINT}):`,
      issues,
    );
  }
  return new Map(sized.map(({ path, size }) => [path, size]));
}
