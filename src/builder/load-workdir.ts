import { createReadStream } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { RecordBatchReader } from 'apache-arrow';
import { OctxError, issue, type OctxIssue } from '../model/errors.js';
import type { PackageBuilder } from './package-builder.js';
import { parseStrictJson } from '../read/strict-json.js';
import { parseJsonlLine, readJsonlLines } from '../read/jsonl.js';
import { STRUCTURE_PATHS, compareUtf8 } from '../model/paths.js';
import { RECORD_KINDS, RECORD_KIND_ORDER, type RecordKind } from '../model/record-kinds.js';
import type { ChunkEventLink, ChunkRecord, EntityRecord, EventEntityLink, EventRecord } from '../model/records.js';
import { VECTOR_TARGETS, type VectorTarget } from '../vectors/targets.js';
import type { VectorConfigInput } from '../vectors/config.js';
import { resolveLimits, type ArchiveLimits } from '../model/limits.js';
import { SDK_LIMITS_HINT, checkListedInput } from '../plan/limits-check.js';

/** Options of {@link loadWorkdir}. */
export interface WorkdirLoadOptions {
  /**
   * The resource limits the package must fit (default: the reference's, as in `export({ limits })`;
   * pass the same value to both). The folder's listing is checked against them before any file
   * is read: more documents and extension files than `maxEntries` allows, or one larger than
   * `maxFileSize`, is refused at once with `OCTX_RESOURCE_LIMIT`.
   */
  readonly limits?: Partial<ArchiveLimits>;
}

/** What {@link loadWorkdir} read from a folder. */
export interface WorkdirLoadReport {
  readonly documents: number;
  readonly chunks: number;
  readonly events: number;
  readonly entities: number;
  readonly chunkEvents: number;
  readonly eventEntities: number;
  readonly extensions: number;
  readonly vectors: Readonly<Record<VectorTarget, number>>;
  /** Files that are not part of the package layout and were not read. */
  readonly ignored: readonly string[];
}

/** The builder call that takes a record of each kind (typed: a new kind must be added here). */
const ADD_RECORD: Readonly<Record<RecordKind, (builder: PackageBuilder, record: Record<string, unknown>) => unknown>> = {
  chunk: (b, r) => b.addChunk(r as unknown as ChunkRecord),
  event: (b, r) => b.addEvent(r as unknown as EventRecord),
  entity: (b, r) => b.addEntity(r as unknown as EntityRecord),
  'chunk-event': (b, r) => b.linkChunkEvent(r as unknown as ChunkEventLink),
  'event-entity': (b, r) => b.linkEventEntity(r as unknown as EventEntityLink),
};
const RECORD_PATHS: ReadonlySet<string> = new Set(STRUCTURE_PATHS);

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}

/** Every regular file below `dir`, as POSIX paths relative to `root`. Symlinks are refused. */
async function walk(root: string, dir: string, out: string[]): Promise<void> {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    const rel = relative(root, full).split(sep).join('/');
    if (entry.isSymbolicLink()) throw OctxError.of({ code: 'OCTX_SECURITY_ERROR', path: rel, message: 'symbolic links are not read from a working folder' });
    if (entry.isDirectory()) await walk(root, full, out);
    else if (entry.isFile()) out.push(rel);
  }
}

/** Adds `path:line` to an error raised for one JSONL line. */
function atLine(e: unknown, path: string, line: number): unknown {
  if (!(e instanceof OctxError)) return e;
  const issues: OctxIssue[] = e.issues.map((i) => issue({ ...i, path, line }));
  return new OctxError(e.code, `${path}:${line}: ${e.message}`, { issues, cause: e });
}

async function* jsonlRecords(file: string, path: string): AsyncGenerator<{ line: number; value: Record<string, unknown> }> {
  // The package reader's strict splitter: exact UTF-8 (no silent U+FFFD), no BOM, no blank lines,
  // no duplicate keys — the same rules a consumer applies to the written file.
  for await (const line of readJsonlLines(createReadStream(file), { path, maxLines: Number.MAX_SAFE_INTEGER })) {
    const parsed = parseJsonlLine(line);
    if (!parsed.ok) throw OctxError.of({ code: parsed.code, path, line: line.line, message: parsed.message });
    yield { line: line.line, value: parsed.record };
  }
}

/**
 * Reads an OCTX working folder — the package layout without a manifest — into a builder:
 * `knowledge/**.md`, `data/*.jsonl`, `relations/*.jsonl`, `extensions/**`, and
 * `vectors/config.json` with vectors as `vectors/<target>.arrow` (Arrow IPC) or
 * `vectors/<target>.jsonl` (`{"record_id", "vector"}` lines). Files are read in UTF-8 path order
 * so the same folder always gives the same package. Every record goes through the builder's
 * checks; an error names the file and line. The listing is checked against the resource limits
 * before any file is read.
 * @throws OctxError `OCTX_RESOURCE_LIMIT` (from the listing, nothing read), the builder's codes
 *   (with `path` and `line`)
 */
export async function loadWorkdir(builder: PackageBuilder, dir: string, options: WorkdirLoadOptions = {}): Promise<WorkdirLoadReport> {
  const limits = resolveLimits(options.limits);
  const files: string[] = [];
  if (!(await exists(dir))) throw OctxError.of({ code: 'OCTX_OPEN_ERROR', path: dir, message: `working folder ${dir} does not exist` });
  await walk(dir, dir, files);
  files.sort(compareUtf8);
  await checkListing(dir, files, limits);
  const ignored: string[] = [];
  let documents = 0;
  let extensions = 0;
  for (const rel of files) {
    if (rel.startsWith('knowledge/') && rel.endsWith('.md')) {
      builder.addDocument({ path: rel.slice('knowledge/'.length), markdown: await readFile(join(dir, rel)) });
      documents++;
    } else if (rel.startsWith('extensions/')) {
      builder.addExtensionFile(rel, await readFile(join(dir, rel)));
      extensions++;
    } else if (!RECORD_PATHS.has(rel) && !rel.startsWith('vectors/')) {
      ignored.push(rel);
    }
  }
  const counts: Record<string, number> = {};
  for (const kind of RECORD_KIND_ORDER) {
    const { path, countKey: key } = RECORD_KINDS[kind];
    counts[key] = 0;
    if (!files.includes(path)) continue;
    for await (const { line, value } of jsonlRecords(join(dir, path), path)) {
      try {
        ADD_RECORD[kind](builder, value);
      } catch (e) {
        throw atLine(e, path, line);
      }
      counts[key] += 1;
    }
  }
  const vectors = { chunks: 0, events: 0, entities: 0 } as Record<VectorTarget, number>;
  if (files.includes('vectors/config.json')) {
    const text = await readFile(join(dir, 'vectors/config.json'), 'utf8');
    const parsed = parseStrictJson(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
    if (!parsed.ok) throw OctxError.of({ code: 'OCTX_VECTOR_CONFIG_INVALID', path: 'vectors/config.json', message: parsed.message });
    builder.setVectorConfig(parsed.value as VectorConfigInput);
    for (const target of VECTOR_TARGETS) {
      if (files.includes(`vectors/${target}.arrow`)) vectors[target] = await loadArrowVectors(builder, target, join(dir, `vectors/${target}.arrow`));
      else if (files.includes(`vectors/${target}.jsonl`)) vectors[target] = await loadJsonlVectors(builder, target, join(dir, `vectors/${target}.jsonl`));
    }
  }
  for (const rel of files) {
    if (rel.startsWith('vectors/') && rel !== 'vectors/config.json' && !VECTOR_TARGETS.some((t) => rel === `vectors/${t}.arrow` || rel === `vectors/${t}.jsonl`)) ignored.push(rel);
  }
  return {
    documents,
    chunks: counts.chunks!,
    events: counts.events!,
    entities: counts.entities!,
    chunkEvents: counts.chunkEvents!,
    eventEntities: counts.eventEntities!,
    extensions,
    vectors,
    ignored,
  };
}

/**
 * Refuses a folder whose documents and extension files alone exceed the limits (each becomes one
 * package entry at least as large as the file), from the listing and file sizes, before a byte is read.
 */
async function checkListing(dir: string, files: readonly string[], limits: ArchiveLimits): Promise<void> {
  const payloads = files.filter((rel) => (rel.startsWith('knowledge/') && rel.endsWith('.md')) || rel.startsWith('extensions/'));
  let sized: { path: string; size: number }[] = [];
  if (payloads.length + 1 <= limits.maxEntries) sized = await Promise.all(payloads.map(async (path) => ({ path, size: (await stat(join(dir, path))).size })));
  const issues = checkListedInput(payloads.length, () => sized, limits);
  if (issues.length > 0) {
    throw OctxError.aggregate(
      'OCTX_RESOURCE_LIMIT',
      `the working folder ${dir} would make a package over the consumers' resource limits; nothing was read (${SDK_LIMITS_HINT}):`,
      issues,
    );
  }
}

async function loadJsonlVectors(builder: PackageBuilder, target: VectorTarget, file: string): Promise<number> {
  const path = `vectors/${target}.jsonl`;
  let n = 0;
  for await (const { line, value } of jsonlRecords(file, path)) {
    if (typeof value.record_id !== 'string' || !Array.isArray(value.vector)) {
      throw OctxError.of({ code: 'OCTX_VECTOR_VALUE_INVALID', path, line, message: 'vector lines are {"record_id": "<uuid>", "vector": [numbers]}' });
    }
    try {
      builder.addVector(target, value.record_id, value.vector as number[]);
    } catch (e) {
      throw atLine(e, path, line);
    }
    n++;
  }
  return n;
}

async function loadArrowVectors(builder: PackageBuilder, target: VectorTarget, file: string): Promise<number> {
  const path = `vectors/${target}.arrow`;
  let n = 0;
  try {
    const reader = await RecordBatchReader.from(createReadStream(file));
    for await (const batch of reader) {
      const ids = batch.getChild('record_id');
      const vectors = batch.getChild('vector');
      if (!ids || !vectors) throw OctxError.of({ code: 'OCTX_VECTOR_COLUMNS_REQUIRED', path, message: 'an Arrow vector file needs record_id and vector columns' });
      const dim = (vectors.type as { listSize?: number }).listSize ?? 0;
      const values = vectors.data[0]?.children[0]?.values as Float32Array | undefined;
      for (let i = 0; i < batch.numRows; i++) {
        const id = ids.get(i) as string;
        const row =
          values && vectors.data.length === 1
            ? values.subarray((vectors.data[0]!.offset + i) * dim, (vectors.data[0]!.offset + i + 1) * dim)
            : Float32Array.from(vectors.get(i) as Iterable<number>);
        builder.addVector(target, id, row);
        n++;
      }
    }
  } catch (e) {
    if (e instanceof OctxError) throw e;
    throw OctxError.of({ code: 'OCTX_VECTOR_ARROW_INVALID', path, message: `cannot read Arrow vectors: ${(e as Error).message}` });
  }
  return n;
}
