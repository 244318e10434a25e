import { issue, type OctxIssue } from '../model/errors.js';
import type { ArchiveLimits } from '../model/limits.js';

/** A file the plan will write, as far as limits are concerned. */
export interface SizedFile {
  readonly path: string;
  /** Exact size (of an Arrow file, from `vectors/arrow-file-size.ts`, before it is written). */
  readonly size: number;
  /** JSONL only. */
  readonly lines?: number;
  /** JSONL only: UTF-8 size of the longest line. */
  readonly maxLineBytes?: number;
  /** Arrow only. */
  readonly rows?: number;
  readonly dimensions?: number;
}

/**
 * How an SDK caller raises the limits. Issues say only what is over (the CLI adds its own flags as
 * the hint); the aggregated error's headline names the SDK options.
 */
export const SDK_LIMITS_HINT = 'split the input, or pass export({ limits }) (and loadWorkdir(builder, dir, { limits })) when every consumer is configured for larger packages';

/**
 * Checks a planned package against the resource limits consumers enforce (OCTX-REFERENCE §16.3),
 * before any byte is written: a package over a limit would be refused on open.
 */
export function checkExportLimits(files: readonly SizedFile[], limits: ArchiveLimits): OctxIssue[] {
  const issues: OctxIssue[] = [];
  const over = (path: string | undefined, what: string) =>
    issues.push(issue({ code: 'OCTX_RESOURCE_LIMIT', ...(path ? { path } : {}), message: `${what}: consumers with these limits would refuse the package` }));
  if (files.length + 1 > limits.maxEntries) over(undefined, `${files.length + 1} entries exceed maxEntries ${limits.maxEntries}`);
  let total = 0;
  for (const f of files) {
    total += f.size;
    if (f.size > limits.maxFileSize) over(f.path, `${f.size} bytes exceed maxFileSize ${limits.maxFileSize}`);
    if (f.lines !== undefined && f.lines > limits.maxJsonlRecords) over(f.path, `${f.lines} records exceed maxJsonlRecords ${limits.maxJsonlRecords}`);
    if (f.maxLineBytes !== undefined && f.maxLineBytes > limits.maxJsonlLineSize) over(f.path, `a ${f.maxLineBytes}-byte line exceeds maxJsonlLineSize ${limits.maxJsonlLineSize}`);
    if (f.rows !== undefined && f.rows > limits.maxArrowRows) over(f.path, `${f.rows} rows exceed maxArrowRows ${limits.maxArrowRows}`);
    if (f.rows !== undefined && f.dimensions !== undefined) {
      if (f.rows * f.dimensions > limits.maxArrowValues) over(f.path, `${f.rows} × ${f.dimensions} values exceed maxArrowValues ${limits.maxArrowValues}`);
      if (f.dimensions > limits.maxArrowDimension) over(f.path, `dimension ${f.dimensions} exceeds maxArrowDimension ${limits.maxArrowDimension}`);
    }
  }
  if (total > limits.maxTotalUncompressed) over(undefined, `${total} bytes in all exceed maxTotalUncompressed ${limits.maxTotalUncompressed}`);
  return issues;
}

/**
 * Checks a folder's listing before any content is read: each listed file that becomes exactly
 * one package entry (a document, an extension file) with its size on disk, a lower bound of what
 * the package will hold. Entries are counted from the listing alone; sizes are only looked at
 * when the count fits.
 */
export function checkListedInput(count: number, sizes: () => readonly SizedFile[], limits: ArchiveLimits): OctxIssue[] {
  if (count + 1 > limits.maxEntries) {
    return [
      issue({
        code: 'OCTX_RESOURCE_LIMIT',
        message: `the folder lists ${count} document and extension file(s), so the package would have at least ${count + 1} entries (with its manifest), over maxEntries ${limits.maxEntries}: consumers with these limits would refuse the package; nothing was read`,
      }),
    ];
  }
  return checkExportLimits(sizes(), limits);
}

/**
 * Documents whose frontmatter block is above `limits.maxFrontmatterBytes` or
 * `limits.maxFrontmatterNodes`: `addDocument` accepts up to the builder's own options, so a block
 * it took can still be over the limits the package is exported for (readers with them refuse the
 * document).
 */
export function checkFrontmatterLimit(
  documents: readonly { readonly path: string; readonly frontmatterBytes?: number; readonly frontmatterNodes?: number }[],
  limits: ArchiveLimits,
): OctxIssue[] {
  const issues: OctxIssue[] = [];
  for (const d of documents) {
    if (d.frontmatterNodes !== undefined && d.frontmatterNodes > limits.maxFrontmatterNodes) {
      issues.push(
        issue({
          code: 'OCTX_RESOURCE_LIMIT',
          path: d.path,
          field: 'frontmatter',
          message: `the frontmatter block has ${d.frontmatterNodes} YAML nodes, above maxFrontmatterNodes ${limits.maxFrontmatterNodes} (the builder's maxFrontmatterNodes accepted it; the export's limits must allow it too): consumers with these limits would refuse the package`,
        }),
      );
    }
    if (d.frontmatterBytes === undefined || d.frontmatterBytes <= limits.maxFrontmatterBytes) continue;
    issues.push(
      issue({
        code: 'OCTX_RESOURCE_LIMIT',
        path: d.path,
        field: 'frontmatter',
        message: `the frontmatter block is ${d.frontmatterBytes} bytes, above maxFrontmatterBytes ${limits.maxFrontmatterBytes} (the builder's maxFrontmatterBytes accepted it; the export's limits must allow it too): consumers with these limits would refuse the package`,
      }),
    );
  }
  return issues;
}
