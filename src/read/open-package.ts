/**
 * `openPackage`: opens a `.octx` ZIP or an unpacked package folder, checks the container
 * (see zip-source.ts / dir-source.ts), reads `manifest.json` strictly, and offers lazy, streaming
 * access to the payload. Opening does not validate the payload: run `validatePackage` for that.
 * Every read through an `OctxPackage` is still verified — sizes and CRC-32 by the source, and
 * the manifest's SHA-256 for listed files (an iterator that runs to its end throws
 * `OCTX_FILE_DIGEST_MISMATCH` when the bytes it streamed do not match).
 */
import { createHash } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { Transform, type Readable, type TransformCallback } from 'node:stream';
import { OctxError } from '../model/errors.js';
import type { ChunkEventLink, ChunkRecord, EntityRecord, EventEntityLink, EventRecord, RecordOf } from '../model/records.js';
import { RECORD_KINDS, type RecordKind } from '../model/record-kinds.js';
import { VECTOR_CONFIG_PATH, VECTOR_TARGET_PATHS, logicalPathProblem, payloadKind } from '../model/paths.js';
import type { VectorRow } from '../model/vector-format.js';
import type { VectorTarget } from '../vectors/targets.js';
import { tailOf } from './arrow-byte-reader.js';
import { openDirectorySource } from './dir-source.js';
import { documentRuns } from './document-runs.js';
import { readKnowledgeDocument, type DocumentReading } from './documents.js';
import { JsonlSplitter, parseJsonlRange, type JsonlLineCallback } from './jsonl.js';
import { resolveLimits, type ArchiveLimits } from '../model/limits.js';
import { assertKnownKeys, keysOf } from '../model/option-keys.js';
import { connect, type PackageKind, type PackageSource } from './source.js';
import { parseStrictJson } from './strict-json.js';
import { openZipSource } from './zip-source.js';

/** Options of {@link openPackage}. */
export interface OpenPackageOptions {
  /** Resource limits; missing fields take the reference defaults. */
  readonly limits?: Partial<ArchiveLimits>;
}

/** One well-formed `files[]` entry. */
export interface ListedFile {
  readonly path: string;
  readonly sha256: string;
}

/**
 * Typed reading of the known manifest fields. A field is present only when it has the right
 * JSON type; nothing here says it is valid (that is what `validatePackage` checks).
 */
export interface ManifestInfo {
  readonly format?: string;
  readonly formatVersion?: string;
  readonly assetId?: string;
  readonly assetName?: string;
  readonly derivedFrom?: { readonly assetId?: string; readonly version?: string; readonly packageDigest?: string };
  readonly version?: string;
  readonly createdAt?: string;
  readonly packageDigest?: string;
  /** Declared capabilities: name → declared version string (`undefined` when malformed). */
  readonly capabilities: Readonly<Record<string, string | undefined>>;
  /** `files[]` entries whose `path` and `sha256` are strings, in manifest order. */
  readonly files: readonly ListedFile[];
}

/** One JSONL record with its 1-based line number. */
export interface JsonlRecord<T> {
  readonly line: number;
  /** The parsed object. Typed for convenience; only `validatePackage` proves the shape. */
  readonly record: T;
}

/** One row of a vector target: the one `VectorRow` of the format floor (`model/vector-format.ts`). */
export type { VectorRow };

/** An open package. Call {@link OctxPackage.close} when done. */
export interface OctxPackage {
  /** The path it was opened from. */
  readonly path: string;
  /** `zip` or `directory`. */
  readonly kind: PackageKind;
  /** The limits in force. */
  readonly limits: ArchiveLimits;
  /** The parsed manifest (a JSON object; not validated). */
  readonly manifest: Readonly<Record<string, unknown>>;
  /** The exact bytes of `manifest.json`. */
  readonly manifestBytes: Buffer;
  /** Typed view of the known manifest fields. */
  readonly info: ManifestInfo;
  /** Well-formed `files[]` entries (same as `info.files`). */
  listedFiles(): readonly ListedFile[];
  /** Every regular file in the container, listed or not (`manifest.json` included). */
  containerFiles(): readonly string[];
  /** True when the container holds `path`. */
  hasFile(path: string): boolean;
  /**
   * The bytes of a container file, at most `limits.maxFileSize`; checked against `files[].sha256`
   * when listed.
   * @throws OctxError `OCTX_FILE_MISSING`, `OCTX_RESOURCE_LIMIT`, `OCTX_FILE_DIGEST_MISMATCH`,
   *   container errors (`OCTX_ARCHIVE_CORRUPT`, `OCTX_SECURITY_ERROR`, …)
   */
  readFile(path: string): Promise<Buffer>;
  /**
   * A stream of a container file; for a listed file the stream errors with
   * `OCTX_FILE_DIGEST_MISMATCH` at its end when the SHA-256 differs.
   */
  openFile(path: string): Readable;
  /** Listed knowledge documents, in manifest order, each read and checked on demand. */
  documents(): AsyncIterableIterator<DocumentReading>;
  /**
   * The records of `kind` from its JSONL file (`RECORD_KINDS[kind].path`), streamed (nothing when
   * the file is not listed): for readers that go through every kind of `RECORD_KINDS`.
   */
  records<K extends RecordKind>(kind: K): AsyncIterableIterator<JsonlRecord<RecordOf<K>>>;
  /** `data/chunks.jsonl` records, streamed (nothing when the file is not listed). */
  chunks(): AsyncIterableIterator<JsonlRecord<ChunkRecord>>;
  /** `data/events.jsonl` records, streamed. */
  events(): AsyncIterableIterator<JsonlRecord<EventRecord>>;
  /** `data/entities.jsonl` records, streamed. */
  entities(): AsyncIterableIterator<JsonlRecord<EntityRecord>>;
  /** `relations/chunk-events.jsonl` records, streamed. */
  chunkEvents(): AsyncIterableIterator<JsonlRecord<ChunkEventLink>>;
  /** `relations/event-entities.jsonl` records, streamed. */
  eventEntities(): AsyncIterableIterator<JsonlRecord<EventEntityLink>>;
  /** The parsed `vectors/config.json`, or `undefined` when it is not listed. */
  vectorConfig(): Promise<Record<string, unknown> | undefined>;
  /**
   * Rows of `vectors/<target>.arrow`, streamed batch by batch (nothing when not listed), read
   * and checked as `validatePackage` reads them (the width against `vectors/config.json`'s
   * `dimensions`): a file it would refuse, or a row with a null or a non-finite value, throws the
   * `OctxError` of the issue it would report.
   */
  vectors(target: VectorTarget): AsyncIterableIterator<VectorRow>;
  /** Releases the container. */
  close(): Promise<void>;
}

const SOURCES = new WeakMap<OctxPackage, PackageSource>();

/**
 * The error of a whole file's `bytes` that are not what `pkg`'s manifest lists for `path` (as
 * `readFile` and `openFile` check them), or `undefined`: for readers that see a file whole
 * without either call (the export's verification of small entries). Not part of the public API.
 */
export function listedDigestProblem(pkg: OctxPackage, path: string, bytes: Buffer): OctxError | undefined {
  if (!(pkg instanceof Package)) throw OctxError.of({ code: 'OCTX_OPTIONS_INVALID', field: 'target', message: 'not a package returned by openPackage' });
  return pkg.digestProblem(path, bytes);
}

/** The container behind a package (for the validator; not part of the public API). */
export function sourceOf(pkg: OctxPackage): PackageSource {
  const s = SOURCES.get(pkg);
  if (!s) throw OctxError.of({ code: 'OCTX_OPTIONS_INVALID', field: 'target', message: 'not a path, nor a package returned by openPackage' });
  return s;
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

function manifestError(code: 'OCTX_MANIFEST_JSON_INVALID' | 'OCTX_JSON_DUPLICATE_KEY' | 'OCTX_FORMAT_ERROR' | 'OCTX_RESOURCE_LIMIT', message: string): OctxError {
  return OctxError.of({ code, path: 'manifest.json', message });
}

/** Strictly parses manifest bytes (§4–§5): UTF-8 without BOM, strict JSON, an object. */
export function parseManifestBytes(bytes: Buffer, limits: ArchiveLimits): Record<string, unknown> {
  if (bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) {
    throw manifestError('OCTX_MANIFEST_JSON_INVALID', 'manifest.json starts with a byte order mark; it must be UTF-8 without BOM');
  }
  let text: string;
  try {
    text = strictUtf8.decode(bytes);
  } catch {
    throw manifestError('OCTX_MANIFEST_JSON_INVALID', 'manifest.json is not valid UTF-8');
  }
  const parsed = parseStrictJson(text, { maxDepth: limits.maxJsonDepth, allowLoneSurrogates: true });
  if (!parsed.ok) {
    if (parsed.kind === 'duplicate-key') throw manifestError('OCTX_JSON_DUPLICATE_KEY', `manifest.json: ${parsed.message}`);
    throw manifestError('OCTX_MANIFEST_JSON_INVALID', `manifest.json is not strict JSON: ${parsed.message}`);
  }
  if (parsed.nonFinite !== undefined) {
    throw manifestError('OCTX_MANIFEST_JSON_INVALID', `manifest.json holds a number that overflows to infinity${parsed.nonFinite ? ` at ${parsed.nonFinite}` : ''}`);
  }
  const v = parsed.value;
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw manifestError('OCTX_FORMAT_ERROR', 'manifest.json must hold a JSON object');
  const files = (v as Record<string, unknown>).files;
  if (Array.isArray(files) && files.length + 1 > limits.maxEntries) {
    throw manifestError('OCTX_RESOURCE_LIMIT', `manifest lists ${files.length} files, above maxEntries ${limits.maxEntries} (manifest included)`);
  }
  return v as Record<string, unknown>;
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

function obj(v: unknown): Record<string, unknown> | undefined {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

/** Builds the typed view of a manifest object. */
export function manifestInfo(m: Record<string, unknown>): ManifestInfo {
  const asset = obj(m.asset);
  const release = obj(m.release);
  const derived = obj(asset?.derived_from);
  const caps: Record<string, string | undefined> = {};
  const capsObj = obj(m.capabilities);
  // Defined, not assigned, so a capability named `__proto__` stays an own key.
  if (capsObj) for (const [k, v] of Object.entries(capsObj)) Object.defineProperty(caps, k, { value: str(obj(v)?.version), enumerable: true, writable: true, configurable: true });
  const files: ListedFile[] = [];
  if (Array.isArray(m.files)) {
    for (const f of m.files) {
      const e = obj(f);
      const path = str(e?.path);
      const sha256 = str(e?.sha256);
      if (path !== undefined && sha256 !== undefined) files.push({ path, sha256 });
    }
  }
  const info: Record<string, unknown> = { capabilities: Object.freeze(caps), files: Object.freeze(files) };
  const put = (k: string, v: unknown): void => {
    if (v !== undefined) info[k] = v;
  };
  put('format', str(m.format));
  put('formatVersion', str(m.format_version));
  put('assetId', str(asset?.id));
  put('assetName', str(asset?.name));
  if (derived) {
    const d: Record<string, string> = {};
    if (str(derived.asset_id) !== undefined) d.assetId = derived.asset_id as string;
    if (str(derived.version) !== undefined) d.version = derived.version as string;
    if (str(derived.package_digest) !== undefined) d.packageDigest = derived.package_digest as string;
    info.derivedFrom = Object.freeze(d);
  }
  put('version', str(release?.version));
  put('createdAt', str(release?.created_at));
  put('packageDigest', str(release?.package_digest));
  return Object.freeze(info) as unknown as ManifestInfo;
}

/**
 * Opens a package: a `.octx` ZIP file or a folder holding `manifest.json`.
 * @throws OctxError `OCTX_OPEN_ERROR` (not found / unreadable), container errors
 *   (`OCTX_ARCHIVE_INVALID`, `OCTX_ARCHIVE_CORRUPT`, `OCTX_SECURITY_ERROR`, `OCTX_RESOURCE_LIMIT`),
 *   `OCTX_FORMAT_ERROR` (no manifest, manifest not an object), `OCTX_MANIFEST_JSON_INVALID`,
 *   `OCTX_JSON_DUPLICATE_KEY`; `OCTX_OPTIONS_INVALID` for bad limits.
 */
export async function openPackage(path: string, options: OpenPackageOptions = {}): Promise<OctxPackage> {
  if (typeof path !== 'string' || path.length === 0) {
    throw OctxError.of({ code: 'OCTX_OPTIONS_INVALID', field: 'path', message: 'path must be a non-empty string' });
  }
  assertKnownKeys(options, keysOf<OpenPackageOptions>({ limits: true }), 'openPackage options');
  const limits = resolveLimits(options.limits);
  let isDirectory: boolean;
  try {
    const st = await stat(path);
    isDirectory = st.isDirectory();
    // A FIFO would block open(2) until a writer appears (maybe never); a device never ends.
    if (!isDirectory && !st.isFile()) throw new Error('not a regular file or a folder');
  } catch (e) {
    throw OctxError.of({ code: 'OCTX_OPEN_ERROR', message: `cannot open ${path}: ${(e as Error).message}` });
  }
  const source = isDirectory ? await openDirectorySource(path, limits) : await openZipSource(path, limits);
  try {
    if (!source.has('manifest.json')) throw manifestError('OCTX_FORMAT_ERROR', `${path} holds no manifest.json`);
    const manifestBytes = await source.readAll('manifest.json', limits.maxFileSize);
    const manifest = parseManifestBytes(manifestBytes, limits);
    const pkg = new Package(source, limits, manifest, manifestBytes);
    SOURCES.set(pkg, source);
    return pkg;
  } catch (e) {
    await source.close();
    throw e;
  }
}

/** The error of a file whose SHA-256 (`got`, hex) is not the one the manifest lists. */
function digestMismatch(path: string, got: string, expected: string): OctxError {
  return OctxError.of({ code: 'OCTX_FILE_DIGEST_MISMATCH', path, message: `${path} has SHA-256 ${got}, but the manifest lists ${expected}` });
}

/** Hashes a stream and fails it at the end when the SHA-256 differs from the listed one. */
class DigestCheck extends Transform {
  private readonly hash = createHash('sha256');
  constructor(
    private readonly path: string,
    private readonly expected: string,
  ) {
    super({ highWaterMark: 1024 * 1024 });
  }
  override _transform(chunk: Buffer, _e: BufferEncoding, cb: TransformCallback): void {
    this.hash.update(chunk);
    cb(null, chunk);
  }
  override _flush(cb: TransformCallback): void {
    const got = this.hash.digest('hex');
    cb(got !== this.expected ? digestMismatch(this.path, got, this.expected) : null);
  }
}

class Package implements OctxPackage {
  readonly path: string;
  readonly kind: PackageKind;
  readonly info: ManifestInfo;
  private readonly listed: ReadonlyMap<string, string>;

  constructor(
    private readonly source: PackageSource,
    readonly limits: ArchiveLimits,
    readonly manifest: Readonly<Record<string, unknown>>,
    readonly manifestBytes: Buffer,
  ) {
    this.path = source.path;
    this.kind = source.kind;
    this.info = manifestInfo(manifest);
    const listed = new Map<string, string>();
    // With duplicate paths the first entry wins here; validatePackage reports the duplicate.
    for (const f of this.info.files) if (!listed.has(f.path)) listed.set(f.path, f.sha256);
    this.listed = listed;
  }

  listedFiles(): readonly ListedFile[] {
    return this.info.files;
  }

  containerFiles(): readonly string[] {
    return this.source.names();
  }

  hasFile(path: string): boolean {
    return this.source.has(path);
  }

  async readFile(path: string): Promise<Buffer> {
    const bytes = await this.source.readAll(path, this.limits.maxFileSize);
    const problem = this.digestProblem(path, bytes);
    if (problem) throw problem;
    return bytes;
  }

  /** The error of `bytes` read for `path` when they are not what the manifest lists (the first listing of a path counts). */
  digestProblem(path: string, bytes: Buffer): OctxError | undefined {
    const expected = this.listed.get(path);
    if (expected === undefined) return undefined;
    const got = createHash('sha256').update(bytes).digest('hex');
    return got === expected ? undefined : digestMismatch(path, got, expected);
  }

  openFile(path: string): Readable {
    const src = this.source.open(path);
    const expected = this.listed.get(path);
    if (expected === undefined) return src;
    const check = new DigestCheck(path, expected);
    // Not pipeline(): it costs an AbortError DOMException per stream (see connect()).
    connect(src, check);
    return check;
  }

  async *documents(): AsyncIterableIterator<DocumentReading> {
    const seen = new Set<string>();
    const paths: string[] = [];
    for (const f of this.info.files) {
      if (seen.has(f.path) || logicalPathProblem(f.path) !== undefined || payloadKind(f.path) !== 'knowledge') continue;
      seen.add(f.path);
      paths.push(f.path);
    }
    const options = { maxFrontmatterBytes: this.limits.maxFrontmatterBytes, maxFrontmatterNodes: this.limits.maxFrontmatterNodes };
    for (const run of documentRuns(this.source, paths, this.limits.maxFileSize)) {
      const group = paths.slice(run.start, run.end);
      if (!run.small) {
        for (const p of group) yield readKnowledgeDocument(p, await this.readFile(p), options);
        continue;
      }
      // Each checked as readFile checks it, handed out in manifest order; an error is thrown when
      // its document's turn comes, as readFile would throw it.
      const read = new Map<string, Buffer | OctxError>();
      await this.source.readMany!(group, (p, bytes) => {
        // The bytes are the reader's only during the call, and a reading keeps them: a copy.
        read.set(p, bytes instanceof OctxError ? bytes : (this.digestProblem(p, bytes) ?? Buffer.from(bytes)));
      });
      for (const p of group) {
        const bytes = read.get(p)!;
        read.delete(p);
        if (bytes instanceof OctxError) throw bytes;
        yield readKnowledgeDocument(p, bytes, options);
      }
    }
  }

  private async *jsonlRecords<T>(path: string): AsyncGenerator<JsonlRecord<T>, void, undefined> {
    if (!this.listed.has(path)) return;
    const stream = this.openFile(path);
    const splitter = new JsonlSplitter({ maxLineSize: this.limits.maxJsonlLineSize, maxLines: this.limits.maxJsonlRecords, path });
    const pending: JsonlRecord<T>[] = [];
    const maxDepth = this.limits.maxJsonDepth;
    // A bad line is remembered, not thrown at once, so the good records before it (in the same
    // chunk) are still delivered first.
    let failure: OctxError | undefined;
    const onLine: JsonlLineCallback = (buf, start, end, line, ascii) => {
      if (failure) return;
      const p = parseJsonlRange(buf, start, end, line, ascii, maxDepth);
      if (!p.ok) failure = OctxError.of({ code: p.code, path, line, message: p.message });
      else if (p.nonFinite !== undefined)
        failure = OctxError.of({ code: 'OCTX_JSON_INVALID', path, line, message: `line ${line}: a number overflows to infinity at ${p.nonFinite}` });
      else pending.push({ line, record: p.record as T });
    };
    const split = (step: () => void): void => {
      try {
        step();
      } catch (e) {
        if (!(e instanceof OctxError)) throw e;
        failure ??= e;
      }
    };
    try {
      for await (const chunk of stream) {
        split(() => splitter.push(chunk as Buffer, onLine));
        for (let i = 0; i < pending.length; i++) yield pending[i]!;
        pending.length = 0;
        if (failure) throw failure;
      }
      split(() => splitter.end(onLine));
      for (const r of pending) yield r;
      if (failure) throw failure;
    } finally {
      stream.destroy();
    }
  }

  records<K extends RecordKind>(kind: K): AsyncIterableIterator<JsonlRecord<RecordOf<K>>> {
    // A JavaScript caller may pass any string; an own-property check keeps `toString` out.
    if (!Object.hasOwn(RECORD_KINDS, kind)) throw OctxError.of({ code: 'OCTX_OPTIONS_INVALID', field: 'kind', message: `unknown record kind ${String(kind)}` });
    return this.jsonlRecords<RecordOf<K>>(RECORD_KINDS[kind].path);
  }

  chunks(): AsyncIterableIterator<JsonlRecord<ChunkRecord>> {
    return this.records('chunk');
  }

  events(): AsyncIterableIterator<JsonlRecord<EventRecord>> {
    return this.records('event');
  }

  entities(): AsyncIterableIterator<JsonlRecord<EntityRecord>> {
    return this.records('entity');
  }

  chunkEvents(): AsyncIterableIterator<JsonlRecord<ChunkEventLink>> {
    return this.records('chunk-event');
  }

  eventEntities(): AsyncIterableIterator<JsonlRecord<EventEntityLink>> {
    return this.records('event-entity');
  }

  async vectorConfig(): Promise<Record<string, unknown> | undefined> {
    if (!this.listed.has(VECTOR_CONFIG_PATH)) return undefined;
    const bytes = await this.readFile(VECTOR_CONFIG_PATH);
    return parseVectorConfigBytes(bytes, this.limits.maxJsonDepth);
  }

  async *vectors(target: VectorTarget): AsyncIterableIterator<VectorRow> {
    const path = VECTOR_TARGET_PATHS[target];
    if (path === undefined) throw OctxError.of({ code: 'OCTX_OPTIONS_INVALID', field: 'target', message: `unknown vector target ${String(target)}` });
    if (!this.listed.has(path)) return;
    // apache-arrow (~20 MiB of RSS once loaded) only when vectors are read.
    const { readVectorRows } = await import('./arrow-rows.js');
    // The width the config declares, as the validator checks it.
    const dimensions = (await this.vectorConfig())?.dimensions;
    const stream = this.openFile(path);
    try {
      yield* readVectorRows(stream as AsyncIterable<Buffer>, {
        path,
        size: this.source.size(path),
        limits: this.limits,
        ...(typeof dimensions === 'number' && Number.isInteger(dimensions) && dimensions >= 1 ? { expectedDimension: dimensions } : {}),
        tail: (maxBytes) => tailOf(this.openFile(path) as AsyncIterable<Buffer>, maxBytes),
      });
    } finally {
      stream.destroy();
    }
  }

  async close(): Promise<void> {
    await this.source.close();
  }
}

/**
 * Strictly parses `vectors/config.json` bytes into an object.
 * @throws OctxError `OCTX_VECTOR_CONFIG_INVALID` (BOM, UTF-8, syntax, depth, overflow, not an
 *   object) or `OCTX_JSON_DUPLICATE_KEY`
 */
export function parseVectorConfigBytes(bytes: Buffer, maxDepth: number): Record<string, unknown> {
  const bad = (message: string): OctxError => OctxError.of({ code: 'OCTX_VECTOR_CONFIG_INVALID', path: VECTOR_CONFIG_PATH, message });
  if (bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) throw bad('vectors/config.json starts with a byte order mark');
  let text: string;
  try {
    text = strictUtf8.decode(bytes);
  } catch {
    throw bad('vectors/config.json is not valid UTF-8');
  }
  const parsed = parseStrictJson(text, { maxDepth });
  if (!parsed.ok) {
    if (parsed.kind === 'duplicate-key') throw OctxError.of({ code: 'OCTX_JSON_DUPLICATE_KEY', path: VECTOR_CONFIG_PATH, message: `vectors/config.json: ${parsed.message}` });
    throw bad(`vectors/config.json is not strict JSON: ${parsed.message}`);
  }
  if (parsed.nonFinite !== undefined) throw bad(`vectors/config.json holds a number that overflows to infinity at ${parsed.nonFinite || 'the root'}`);
  const v = parsed.value;
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw bad('vectors/config.json must hold a JSON object');
  return v as Record<string, unknown>;
}
