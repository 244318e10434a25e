/**
 * The records phase of `loadWorkdir`: each record file of the layout (`data/*.jsonl`,
 * `relations/*.jsonl`, in `RECORD_KIND_ORDER`) read line by line through the package reader's
 * strict JSONL splitter into the builder, every error naming its file and line.
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { join, posix } from 'node:path';
import { OctxError, issue, type OctxIssue } from '../../model/errors.js';
import type { ProgressListener } from '../../model/progress.js';
import { RECORD_KINDS, RECORD_KIND_ORDER, type RecordCountKey, type RecordKind } from '../../model/record-kinds.js';
import { parseJsonlLine, readJsonlLines } from '../../read/jsonl.js';
import type { PackageBuilder } from '../package-builder.js';

/** Reference by path (`"document": "guides/setup.md"`) → `document_id`, on a chunk line. */
function resolveDocumentPath(
  value: Record<string, unknown>,
  documentIdAt: (path: string) => string | undefined,
  skipped: ReadonlySet<string>,
  path: string,
  line: number,
): Record<string, unknown> {
  if (!Object.hasOwn(value, 'document')) return value;
  const { document, ...rest } = value;
  const recordId = typeof value.id === 'string' ? { recordId: value.id } : {};
  const invalid = (message: string): OctxError => OctxError.of({ code: 'OCTX_RECORD_INVALID', path, line, ...recordId, field: 'document', message });
  if (Object.hasOwn(value, 'document_id')) throw invalid('give the document either by path (document) or by id (document_id), not both');
  if (typeof document !== 'string' || document === '') throw invalid('document must be the path of a Markdown file under knowledge/, e.g. "guides/setup.md"');
  const target = (document.startsWith('knowledge/') ? document.slice('knowledge/'.length) : document).normalize('NFC');
  const id = documentIdAt(target);
  if (id === undefined) {
    const why = skipped.has(target) ? ': it was left out (indexFiles: skip)' : ' (document paths are relative to knowledge/)';
    throw OctxError.of({
      code: 'OCTX_REFERENCE_UNKNOWN',
      path,
      line,
      ...recordId,
      field: 'document',
      message: `no Concept Document at knowledge/${target}${why}`,
    });
  }
  return { ...rest, document_id: id };
}

/** Adds `path:line` to an error raised for one JSONL line. */
export function atLine(e: unknown, path: string, line: number): unknown {
  if (!(e instanceof OctxError)) return e;
  const issues: OctxIssue[] = e.issues.map((i) => issue({ ...i, path, line }));
  return new OctxError(e.code, `${path}:${line}: ${e.message}`, { issues, cause: e });
}

/** The records of a JSONL file of the working folder, with their line numbers and sizes. */
export async function* jsonlRecords(file: string, path: string): AsyncGenerator<{ line: number; value: Record<string, unknown>; size: number }> {
  // The package reader's strict splitter: exact UTF-8 (no silent U+FFFD), no BOM, no blank lines,
  // no duplicate keys — the same rules a consumer applies to the written file.
  for await (const line of readJsonlLines(createReadStream(file), { path, maxLines: Number.MAX_SAFE_INTEGER })) {
    const parsed = parseJsonlLine(line);
    if (!parsed.ok) throw OctxError.of({ code: parsed.code, path, line: line.line, message: parsed.message });
    yield { line: line.line, value: parsed.record, size: line.bytes.length + 1 };
  }
}

/**
 * Reads every record file present into the builder, in the table's order; a chunk's `document`
 * (a path) is resolved to its `document_id` with `documentIdAt`. Returns the count per report key.
 * @param skipped documents left out (`indexFiles: skip`), named by a chunk's `document` error
 * @param keep the record lines to add (a shard's; default all), asked before a line is resolved
 */
export async function loadRecords(
  builder: PackageBuilder,
  dir: string,
  fileSet: ReadonlySet<string>,
  documentIdAt: (path: string) => string | undefined,
  skipped: ReadonlySet<string>,
  onProgress?: ProgressListener,
  keep: (kind: RecordKind, value: Record<string, unknown>) => boolean = () => true,
): Promise<Record<RecordCountKey, number>> {
  const counts = {} as Record<RecordCountKey, number>;
  for (const kind of RECORD_KIND_ORDER) {
    const { path, countKey: key } = RECORD_KINDS[kind];
    // Progress names the file (`chunks`, `chunk-events`), as the user sees it in the folder.
    const step = posix.basename(path, '.jsonl');
    counts[key] = 0;
    if (!fileSet.has(path)) continue;
    const totalBytes = (await stat(join(dir, path))).size;
    let read = 0;
    onProgress?.({ phase: 'load', kind: step, completed: 0, total: 0, bytes: 0, totalBytes });
    for await (const { line, value, size } of jsonlRecords(join(dir, path), path)) {
      read += size;
      if (!keep(kind, value)) continue;
      try {
        builder.recordSource({ path, line });
        builder.addRecord(kind, kind === 'chunk' ? resolveDocumentPath(value, documentIdAt, skipped, path, line) : value);
      } catch (e) {
        throw atLine(e, path, line);
      } finally {
        builder.recordSource(undefined);
      }
      counts[key] += 1;
      if (counts[key] % 1000 === 0) onProgress?.({ phase: 'load', kind: step, completed: counts[key], total: counts[key], bytes: read, totalBytes });
    }
    onProgress?.({ phase: 'load', kind: step, completed: counts[key], total: counts[key], bytes: totalBytes, totalBytes });
  }
  return counts;
}
