/**
 * Options of the commands that read a working folder (`build`, `derive`), and loading it with
 * progress and warnings.
 */
import type { PackageBuilder } from '../builder/package-builder.js';
import type { IndexFilesMode, ShardSpec, WorkdirLoadReport } from '../builder/load-workdir.js';
import { describeLeftOut } from '../builder/non-document-files.js';
import { str, usageError, type CommandContext, type OptionSpec, type OptionValues } from './args.js';
import { workdirOptions, type CliProgress } from './export-run.js';
import { MAX_SIMILARITY, parseRenameThreshold } from '../knowledge/rename-similarity.js';

const MODES: readonly IndexFilesMode[] = ['okf', 'as-documents', 'skip'];

/** `--index-files`, `--knowledge`. */
export const WORKDIR_OPTIONS: Readonly<Record<string, OptionSpec>> = {
  'index-files': {
    type: 'string',
    value: '<okf|as-documents|skip>',
    description:
      'index.md/log.md files that are not OKF index/log files (e.g. docs-site section pages): okf refuses them (default in a working folder), as-documents keeps each as a document renamed to _index.md/_log.md in its folder (default in a plain Markdown folder), skip leaves them out (docs/working-folder.md)',
  },
  mdx: {
    type: 'string',
    value: '<markdown|verbatim>',
    description:
      '.mdx pages (documents at the same path ending in .md): markdown (default) removes import/export lines and {expressions} and unwraps components to their Markdown text, keeping an admonition title or tab label; verbatim keeps their source bytes',
  },
  'find-renames': {
    type: 'string',
    value: '<n>',
    description:
      "with --state: a new page at least this similar to a page gone since the last release keeps its document id (git's measure and -M syntax: 50% default, 75%, 0.9; off turns it off)",
  },
  knowledge: {
    type: 'string',
    value: '<subdir>',
    description:
      'the folder inside <workdir> whose Markdown files are the documents (default: knowledge/ in a working folder, the whole folder when it has no knowledge/ folder, record files or vectors/config.json)',
  },
};

/** The `--index-files` value. */
export function indexFilesOption(values: OptionValues): IndexFilesMode | undefined {
  const raw = str(values, 'index-files');
  if (raw === undefined) return undefined;
  if (!(MODES as readonly string[]).includes(raw)) throw usageError(`--index-files must be one of ${MODES.join(', ')} (got ${JSON.stringify(raw)})`, 'index-files');
  return raw as IndexFilesMode;
}

/**
 * Loads `<workdir>` into the builder with the command's options (`--index-files`, and the limits
 * of `--max-entries`/`--limits`, checked on the folder's listing before any file is read);
 * disposes the builder on failure.
 */
export async function loadWorkdirFor(builder: PackageBuilder, workdir: string, ctx: CommandContext, progress: CliProgress, shard?: ShardSpec): Promise<WorkdirLoadReport> {
  const { loadWorkdir } = await import('../builder/load-workdir.js');
  try {
    const indexFiles = indexFilesOption(ctx.values);
    const { limits } = await workdirOptions(ctx.values);
    const knowledge = str(ctx.values, 'knowledge');
    const mdx = str(ctx.values, 'mdx');
    if (mdx !== undefined && mdx !== 'markdown' && mdx !== 'verbatim') throw usageError(`--mdx must be markdown or verbatim (got ${JSON.stringify(mdx)})`, 'mdx');
    const findRenames = findRenamesOption(str(ctx.values, 'find-renames'));
    return await loadWorkdir(builder, workdir, {
      ...(mdx !== undefined ? { mdx } : {}),
      ...(findRenames !== undefined ? { findRenames } : {}),
      onProgress: progress,
      ...(indexFiles !== undefined ? { indexFiles } : {}),
      ...(knowledge !== undefined ? { knowledge } : {}),
      ...(limits ? { limits } : {}),
      ...(shard !== undefined ? { shard } : {}),
    });
  } catch (e) {
    progress.done();
    await builder.dispose();
    throw e;
  }
}

/** `--find-renames <n>` (git's `-M<n>` syntax, or `off`) as the `findRenames` option. */
export function findRenamesOption(raw: string | undefined): number | false | undefined {
  if (raw === undefined) return undefined;
  if (raw === 'off') return false;
  const score = parseRenameThreshold(raw);
  if (score === undefined) throw usageError(`--find-renames must be a similarity as git writes it (50%, 75%, 0.9, 5) or off (got ${JSON.stringify(raw)})`, 'find-renames');
  return score / MAX_SIMILARITY;
}

/** At most this many files are named on one summary line; `--json` lists them all. */
const SHOWN = 10;

function someOf(items: readonly string[]): string {
  const shown = items.slice(0, SHOWN).join(', ');
  return items.length > SHOWN ? `${shown}, … and ${items.length - SHOWN} more (--json lists all)` : shown;
}

/** The line that says how the folder was read. */
export function folderLine(loaded: WorkdirLoadReport): string {
  const from = loaded.site !== undefined && loaded.site.contentDir === loaded.knowledgeDir ? loaded.site.label : '--knowledge';
  const tree = loaded.knowledgeDir === '.' ? 'its .md files' : `the .md files of ${loaded.knowledgeDir}/ (${from})`;
  const how =
    loaded.mode === 'plain-folder'
      ? `plain Markdown folder: ${tree} are the documents, at their paths under knowledge/ (no knowledge/ folder or record files found)`
      : `working folder: ${loaded.knowledgeDir === 'knowledge' ? 'knowledge/' : `${loaded.knowledgeDir}/ (--knowledge)`} holds the documents`;
  return `  folder        ${how}; index files: --index-files ${loaded.indexFiles}`;
}

/** Summary lines about what loading changed or left out. */
export function loadedLines(loaded: WorkdirLoadReport): string[] {
  const lines: string[] = [folderLine(loaded)];
  if (loaded.shard !== undefined) lines.push(`  shard         ${loaded.shard.index}/${loaded.shard.count}: the documents whose package path hashes to it, with their records`);
  if (loaded.site) {
    const name = loaded.site.name !== undefined ? `, site name ${JSON.stringify(loaded.site.name)}` : '';
    lines.push(
      `  site          ${loaded.site.label} (${loaded.site.config}${name}); pages in ${loaded.site.contentDir === '.' ? 'the folder itself' : `${loaded.site.contentDir}/`}`,
    );
  }
  if (loaded.mdx.length > 0) {
    const sum = (k: 'esm' | 'expressions' | 'elements' | 'attributes'): number => loaded.mdx.reduce((n, p) => n + p[k], 0);
    const verbatim = loaded.mdx.filter((p) => p.verbatim).length;
    lines.push(
      `  mdx           ${loaded.mdx.length} .mdx page${loaded.mdx.length === 1 ? '' : 's'} as .md: ${sum('esm')} import/export removed, ${sum('expressions')} {expressions} dropped, ${sum('elements')} components unwrapped (${sum('attributes')} labels kept)${verbatim > 0 ? `; ${verbatim} kept verbatim` : ''}`,
    );
  }
  if (loaded.rewrittenLinks.length > 0) {
    const n = loaded.rewrittenLinks.length;
    lines.push(`  links         ${n} link${n === 1 ? '' : 's'} to renamed pages rewritten: ${someOf(loaded.rewrittenLinks.map((l) => `${l.in}:${l.line} ${l.from} → ${l.to}`))}`);
  }
  for (const c of loaded.conventions.applied) lines.push(`  convention    ${c.kind}: ${c.count} in ${c.files.length} file${c.files.length === 1 ? '' : 's'}`);
  for (const c of loaded.conventions.notApplied) lines.push(`  not applied   ${c.kind}: ${c.count}, in ${someOf(c.files)}`);
  for (const c of loaded.carried) lines.push(`  moved         ${c.from} → ${c.to} keeps its id ${c.id} (${c.similarity}% similar)`);
  for (const r of loaded.renamed) lines.push(`  renamed       knowledge/${r.from} → knowledge/${r.to} (not an OKF ${r.from.split('/').at(-1)})`);
  if (loaded.skipped.length > 0) lines.push(`  skipped       ${loaded.skipped.map((p) => `knowledge/${p}`).join(', ')} (not OKF index/log files)`);
  for (const p of loaded.reserved) {
    lines.push(
      `  OKF ${p.endsWith('/log.md') || p === 'knowledge/log.md' ? 'log  ' : 'index'}     ${p} kept as an OKF reserved file, not a concept document (nothing can name it)`,
    );
  }
  for (const syntax of ['toml', 'json'] as const) {
    const files = loaded.converted.filter((c) => c.from === syntax).map((c) => c.path);
    if (files.length > 0)
      lines.push(`  frontmatter   ${files.length} ${syntax === 'toml' ? 'TOML (+++)' : 'JSON'} block${files.length === 1 ? '' : 's'} read as YAML frontmatter: ${someOf(files)}`);
  }
  for (const group of loaded.leftOut) {
    lines.push(`  left out      ${describeLeftOut(group)}${group.kind === 'folders' ? '' : ': a package carries only Markdown knowledge'}`);
  }
  if (loaded.danglingLinks.length > 0) {
    const n = loaded.danglingLinks.length;
    lines.push(`  dangling      ${n} link${n === 1 ? '' : 's'} to files left out: ${someOf(loaded.danglingLinks.map((l) => `${l.from} → ${l.to}`))}`);
  }
  if (loaded.ignored.length > 0) lines.push(`  not read      ${someOf(loaded.ignored)}`);
  return lines;
}
