/**
 * Test helpers for the read side: packages built by hand (directories, ZIPs via zip-stream, and
 * raw hand-assembled ZIP bytes for malformed archives), structure records, and Arrow files.
 * Nothing here uses the SDK's writer, so the reader is tested against independent bytes.
 */
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { crc32, deflateRawSync } from 'node:zlib';
import {
  CompressionType,
  Field,
  FixedSizeList,
  Float32,
  Float64,
  LargeUtf8,
  Message,
  RecordBatch,
  RecordBatchFileWriter,
  Schema,
  Struct,
  Table,
  Utf8,
  compressionRegistry,
  makeData,
  tableToIPC,
  type DataType,
} from 'apache-arrow';
import ZipStream from 'zip-stream';
import { afterAll } from 'vitest';
import { computePackageDigest } from '../../src/package/digest.js';

// ── temp dirs ────────────────────────────────────────────────────────────────────────────

const roots: string[] = [];

/** A fresh temp folder under os.tmpdir(), removed after the test file. */
export async function tempDir(prefix = 'octx-read-'): Promise<string> {
  const d = await mkdtemp(join(tmpdir(), prefix));
  roots.push(d);
  return d;
}

try {
  afterAll(async () => {
    for (const d of roots.splice(0)) await rm(d, { recursive: true, force: true });
  });
} catch {
  // Imported outside a vitest run (the benchmark script): callers clean up themselves.
}

/** Removes every temp folder made so far (for scripts running outside vitest). */
export async function cleanupTempDirs(): Promise<void> {
  for (const d of roots.splice(0)) await rm(d, { recursive: true, force: true });
}

// ── fixed content ────────────────────────────────────────────────────────────────────────

export const ASSET_ID = '019c0000-0000-7000-8000-000000000001';
export const DOC_ID = '019c1234-5678-7abc-8def-0123456789ab';
/** The 123-byte concept document of golden packages A and B. */
export const GUIDE_MD = '---\ntype: Reference\ntitle: Guide\noctx:\n  document_id: 019c1234-5678-7abc-8def-0123456789ab\n---\n\n# Guide\n\nPortable context.\n';
export const FIXTURES = new URL('./fixtures/', import.meta.url).pathname;

let idCounter = 0x100;
/** A deterministic, valid UUIDv7 (distinct on every call). */
export function tid(): string {
  idCounter += 1;
  return `019c0000-0000-7000-8000-${idCounter.toString(16).padStart(12, '0')}`;
}

/** A concept document with the given id. */
export function conceptMd(documentId: string, title = 'Doc', extraFrontmatter = ''): string {
  return `---\ntype: Reference\ntitle: ${title}\n${extraFrontmatter}octx:\n  document_id: ${documentId}\n---\n\n# ${title}\n\nBody of ${title}.\n`;
}

export const sha256 = (b: string | Buffer): string => createHash('sha256').update(b).digest('hex');

export function jsonl(records: readonly unknown[]): string {
  return records.map((r) => JSON.stringify(r)).join('\n') + (records.length > 0 ? '\n' : '');
}

// ── packages ─────────────────────────────────────────────────────────────────────────────

export type FileMap = Record<string, string | Buffer>;
export type AnyJson = any;

/** What to put into a test package. */
export interface PackageSpec {
  /** Listed payload files. */
  readonly files: FileMap;
  /** Files in the container that files[] does not list. */
  readonly extra?: FileMap;
  /** The `capabilities` value (omitted when undefined). */
  readonly capabilities?: AnyJson;
  /** Edits the manifest before the digest is computed. */
  readonly edit?: (m: AnyJson) => void;
  /** Edits the manifest after the digest is computed (tampering). */
  readonly tamper?: (m: AnyJson) => void;
  /** Replaces manifest.json bytes entirely. */
  readonly manifestBytes?: string | Buffer;
}

/** The manifest of a spec, with a correct digest unless `tamper` breaks it. */
export function manifestFor(spec: PackageSpec): AnyJson {
  const files = Object.keys(spec.files)
    .sort()
    .map((path) => ({ path, sha256: sha256(spec.files[path]!) }));
  const m: AnyJson = {
    format: 'octx',
    format_version: '0.1',
    asset: { id: ASSET_ID, name: 'Guide' },
    release: { version: '1.0.0', created_at: '2026-07-12T10:00:00Z', package_digest: '' },
    ...(spec.capabilities === undefined ? {} : { capabilities: spec.capabilities }),
    files,
  };
  spec.edit?.(m);
  try {
    if (m.release && typeof m.release === 'object') m.release.package_digest = computePackageDigest(m);
  } catch {
    // the test wants an undigestable manifest
  }
  spec.tamper?.(m);
  return m;
}

/** Every container file of a spec, manifest included. */
export function entriesOf(spec: PackageSpec): FileMap {
  const manifest = spec.manifestBytes ?? `${JSON.stringify(manifestFor(spec), null, 2)}\n`;
  return { 'manifest.json': manifest, ...spec.files, ...(spec.extra ?? {}) };
}

/** Writes files into a fresh folder (or `dir`). */
export async function writeDir(files: FileMap, dir?: string): Promise<string> {
  const root = dir ?? join(await tempDir(), 'pkg');
  await mkdir(root, { recursive: true });
  for (const [name, data] of Object.entries(files)) {
    const p = join(root, name);
    await mkdir(dirname(p), { recursive: true });
    await writeFile(p, data);
  }
  return root;
}

/** Entry for {@link writeZip}: content, or a directory / symlink entry. */
export type ZipInput = FileMap | { name: string; data?: string | Buffer; type?: 'file' | 'directory' | 'symlink'; linkname?: string; store?: boolean }[];

/** Writes a ZIP with zip-stream (the same engine as archiver). */
export async function writeZip(files: ZipInput, options: { store?: boolean; path?: string; zip64?: boolean } = {}): Promise<string> {
  const path = options.path ?? join(await tempDir(), 'pkg.octx');
  const zip = new ZipStream({ zlib: { level: 9 }, forceZip64: options.zip64 ?? false });
  const done = pipeline(zip as unknown as NodeJS.ReadableStream, createWriteStream(path));
  const list = Array.isArray(files) ? files : Object.entries(files).map(([name, data]) => ({ name, data }));
  for (const e of list) {
    await new Promise<void>((resolve, reject) => {
      const data = e.data === undefined ? null : typeof e.data === 'string' ? Buffer.from(e.data) : e.data;
      zip.entry(
        data,
        {
          name: e.name,
          date: new Date('1980-01-01T00:00:00Z'),
          mode: 'type' in e && e.type === 'directory' ? 0o755 : 0o644,
          store: 'store' in e && e.store !== undefined ? e.store : (options.store ?? false),
          ...('type' in e && e.type ? { type: e.type } : {}),
          ...('linkname' in e && e.linkname ? { linkname: e.linkname } : {}),
        },
        (err) => (err ? reject(err) : resolve()),
      );
    });
  }
  zip.finalize();
  await done;
  return path;
}

// ── raw ZIP bytes ────────────────────────────────────────────────────────────────────────

/** One entry of a hand-assembled ZIP; every header field can be overridden. */
export interface RawEntry {
  readonly name: string | Buffer;
  readonly data?: string | Buffer;
  /** 0 STORE (default) or 8 DEFLATE; anything else is written as given with raw data. */
  readonly method?: number;
  readonly flags?: number;
  readonly versionMadeBy?: number;
  readonly externalAttributes?: number;
  readonly crc?: number;
  readonly compressedSize?: number;
  readonly uncompressedSize?: number;
  /** Compressed bytes to write instead of the real ones. */
  readonly payload?: Buffer;
  /** Overrides of the local header only. */
  readonly local?: { readonly name?: string | Buffer; readonly flags?: number; readonly method?: number };
  /** Central directory offset of the local header (default: where it was written). */
  readonly offset?: number;
  readonly extra?: Buffer;
}

/** Options of {@link rawZip}. */
export interface RawZipOptions {
  /** Entry count written in the EOCD (default: the real count). */
  readonly eocdEntries?: number;
  /** Extra central headers written after the counted ones. */
  readonly hiddenEntries?: number;
}

/** Assembles ZIP bytes exactly as described (no validation: that is the point). */
export function rawZip(entries: readonly RawEntry[], options: RawZipOptions = {}): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = typeof e.name === 'string' ? Buffer.from(e.name, 'utf8') : e.name;
    const data = e.data === undefined ? Buffer.alloc(0) : typeof e.data === 'string' ? Buffer.from(e.data) : e.data;
    const method = e.method ?? 0;
    const payload = e.payload ?? (method === 8 ? deflateRawSync(data) : data);
    const crc = e.crc ?? crc32(data);
    const csize = e.compressedSize ?? payload.length;
    const usize = e.uncompressedSize ?? data.length;
    // eslint-disable-next-line no-control-regex -- \x00-\x7f is ASCII: set the UTF-8 flag for names outside it
    const flags = e.flags ?? (/[^\x00-\x7f]/.test(name.toString('latin1')) ? 0x800 : 0);
    const extra = e.extra ?? Buffer.alloc(0);
    const lname = e.local?.name === undefined ? name : typeof e.local.name === 'string' ? Buffer.from(e.local.name) : e.local.name;
    const lh = Buffer.alloc(30);
    lh.writeUInt32LE(0x04034b50, 0);
    lh.writeUInt16LE(20, 4);
    lh.writeUInt16LE(e.local?.flags ?? flags, 6);
    lh.writeUInt16LE(e.local?.method ?? method, 8);
    lh.writeUInt16LE(0, 10);
    lh.writeUInt16LE(0x21, 12);
    lh.writeUInt32LE(crc >>> 0, 14);
    lh.writeUInt32LE(csize, 18);
    lh.writeUInt32LE(usize, 22);
    lh.writeUInt16LE(lname.length, 26);
    lh.writeUInt16LE(0, 28);
    const local = Buffer.concat([lh, lname, payload]);
    const ch = Buffer.alloc(46);
    ch.writeUInt32LE(0x02014b50, 0);
    ch.writeUInt16LE(e.versionMadeBy ?? 0x031e, 4);
    ch.writeUInt16LE(20, 6);
    ch.writeUInt16LE(flags, 8);
    ch.writeUInt16LE(method, 10);
    ch.writeUInt16LE(0, 12);
    ch.writeUInt16LE(0x21, 14);
    ch.writeUInt32LE(crc >>> 0, 16);
    ch.writeUInt32LE(csize, 20);
    ch.writeUInt32LE(usize, 24);
    ch.writeUInt16LE(name.length, 28);
    ch.writeUInt16LE(extra.length, 30);
    ch.writeUInt16LE(0, 32);
    ch.writeUInt16LE(0, 34);
    ch.writeUInt16LE(0, 36);
    ch.writeUInt32LE((e.externalAttributes ?? 0o100644 << 16) >>> 0, 38);
    ch.writeUInt32LE(e.offset ?? offset, 42);
    centrals.push(Buffer.concat([ch, name, extra]));
    locals.push(local);
    offset += local.length;
  }
  const cd = Buffer.concat(centrals);
  const counted = options.eocdEntries ?? entries.length;
  const eocd = Buffer.alloc(22);
  eocd.writeUInt32LE(0x06054b50, 0);
  eocd.writeUInt16LE(counted, 8);
  eocd.writeUInt16LE(counted, 10);
  eocd.writeUInt32LE(cd.length, 12);
  eocd.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, cd, eocd]);
}

/** A minimal valid package as raw entries (manifest + the golden concept), plus `more`. */
export function rawPackage(more: readonly RawEntry[] = [], spec: Partial<PackageSpec> = {}): Buffer {
  const files = entriesOf({ files: { 'knowledge/guide.md': GUIDE_MD }, ...spec });
  const base: RawEntry[] = Object.entries(files).map(([name, data]) => ({ name, data }));
  return rawZip([...base, ...more]);
}

export async function writeBytes(bytes: Buffer, name = 'pkg.octx'): Promise<string> {
  const p = join(await tempDir(), name);
  await writeFile(p, bytes);
  return p;
}

// ── structure ────────────────────────────────────────────────────────────────────────────

/** A complete, valid structure layer. */
export interface Structure {
  docs: { path: string; id: string; md: string }[];
  chunks: AnyJson[];
  events: AnyJson[];
  entities: AnyJson[];
  chunkEvents: AnyJson[];
  eventEntities: AnyJson[];
}

/** Generates a valid structure: every doc has chunks, every chunk an event, every event an entity. */
export function genStructure(options: { docs?: number; chunksPerDoc?: number; textSize?: number } = {}): Structure {
  const nDocs = options.docs ?? 1;
  const perDoc = options.chunksPerDoc ?? 2;
  const text = 'x'.repeat(options.textSize ?? 20);
  const s: Structure = { docs: [], chunks: [], events: [], entities: [], chunkEvents: [], eventEntities: [] };
  for (let d = 0; d < nDocs; d++) {
    const id = tid();
    s.docs.push({ path: `knowledge/doc-${d}.md`, id, md: conceptMd(id, `Doc ${d}`) });
    for (let c = 0; c < perDoc; c++) {
      const chunk = { id: tid(), document_id: id, ordinal: c, text: `${text} ${d}.${c}` };
      const event = { id: tid(), title: `Event ${d}.${c}`, content: `Something happened in ${d}.${c}.` };
      const entity = { id: tid(), name: `Entity ${d}.${c}`, type: 'thing' };
      s.chunks.push(chunk);
      s.events.push(event);
      s.entities.push(entity);
      s.chunkEvents.push({ chunk_id: chunk.id, event_id: event.id });
      s.eventEntities.push({ event_id: event.id, entity_id: entity.id, weight: 0.5 });
    }
  }
  return s;
}

/** Package files (documents + five JSONL files) of a structure. */
export function structureFiles(s: Structure): FileMap {
  const files: FileMap = {};
  for (const d of s.docs) files[d.path] = d.md;
  files['data/chunks.jsonl'] = jsonl(s.chunks);
  files['data/events.jsonl'] = jsonl(s.events);
  files['data/entities.jsonl'] = jsonl(s.entities);
  files['relations/chunk-events.jsonl'] = jsonl(s.chunkEvents);
  files['relations/event-entities.jsonl'] = jsonl(s.eventEntities);
  return files;
}

export const SAG_DECL = { 'sag-structured': { version: '0.1' } };
export const SAG_AND_VECTORS = { 'sag-structured': { version: '0.1' }, vectors: { version: '0.1' } };

// ── Arrow ────────────────────────────────────────────────────────────────────────────────

/** Options of {@link arrowFile}. */
export interface ArrowOptions {
  readonly dim: number;
  readonly float64?: boolean;
  readonly largeUtf8?: boolean;
  readonly nullableId?: boolean;
  readonly nullableVector?: boolean;
  readonly nullableItem?: boolean;
  /** Write the IPC stream format instead of the file format. */
  readonly stream?: boolean;
  /** Use apache-arrow's plain RecordBatchFileWriter (schema only in the footer). */
  readonly footerOnlySchema?: boolean;
  /** Mark record batches as LZ4-compressed (identity codec). */
  readonly compressed?: boolean;
  /** Rows per record batch (default: all in one). */
  readonly batchSize?: number;
  /** Column names (default record_id, vector). */
  readonly names?: readonly [string, string];
  /** Add an extra utf8 column. */
  readonly extraColumn?: boolean;
}

/** A vector row; `null` id or vector to write nulls. */
export interface ArrowRow {
  readonly id: string | null;
  readonly vector: readonly number[] | null;
}

/** Writes the schema message after the magic, as the Arrow spec and the reference require. */
class SchemaFirstFileWriter extends RecordBatchFileWriter {
  protected override _writeSchema(schema: Schema): this {
    super._writeSchema(schema);
    return this._writeMessage(Message.from(schema));
  }
}

let codecRegistered = false;

function bitmap(valid: readonly boolean[]): Uint8Array {
  const b = new Uint8Array(Math.ceil(valid.length / 8) || 1);
  valid.forEach((v, i) => {
    if (v) b[i >> 3]! |= 1 << (i & 7);
  });
  return b;
}

function makeBatch(schema: Schema, rows: readonly ArrowRow[], o: ArrowOptions): RecordBatch {
  const n = rows.length;
  const idType = (o.largeUtf8 ? new LargeUtf8() : new Utf8()) as DataType;
  const enc = rows.map((r) => Buffer.from(r.id ?? '', 'utf8'));
  const offsets = o.largeUtf8 ? new BigInt64Array(n + 1) : new Int32Array(n + 1);
  let at = 0;
  enc.forEach((b, i) => {
    at += b.length;
    (offsets as unknown as (number | bigint)[])[i + 1] = o.largeUtf8 ? BigInt(at) : at;
  });
  const idNulls = rows.filter((r) => r.id === null).length;
  const ids = makeData({
    type: idType as Utf8,
    length: n,
    nullCount: idNulls,
    ...(idNulls > 0 ? { nullBitmap: bitmap(rows.map((r) => r.id !== null)) } : {}),
    valueOffsets: offsets as Int32Array,
    data: Buffer.concat(enc),
  });
  const floatType = o.float64 ? new Float64() : new Float32();
  const flat = o.float64 ? new Float64Array(n * o.dim) : new Float32Array(n * o.dim);
  rows.forEach((r, i) => (r.vector ?? []).forEach((v, k) => (flat[i * o.dim + k] = v)));
  const vecType = schema.fields[1]!.type as FixedSizeList;
  const child = makeData({ type: floatType as Float32, length: n * o.dim, nullCount: 0, data: flat as Float32Array });
  const vecNulls = rows.filter((r) => r.vector === null).length;
  const vec = makeData({
    type: vecType,
    length: n,
    nullCount: vecNulls,
    ...(vecNulls > 0 ? { nullBitmap: bitmap(rows.map((r) => r.vector !== null)) } : {}),
    child,
  });
  const children = [ids, vec];
  if (o.extraColumn) {
    const extra = Buffer.from('e'.repeat(n));
    const eo = new Int32Array(n + 1).map((_, i) => i);
    children.push(makeData({ type: new Utf8(), length: n, nullCount: 0, valueOffsets: eo, data: extra }) as never);
  }
  return new RecordBatch(schema, makeData({ type: new Struct(schema.fields), length: n, nullCount: 0, children }));
}

/** Arrow bytes of a vector target. */
export function arrowFile(rows: readonly ArrowRow[], o: ArrowOptions): Buffer {
  const [idName, vecName] = o.names ?? ['record_id', 'vector'];
  const floatType = o.float64 ? new Float64() : new Float32();
  const vecType = new FixedSizeList(o.dim, new Field('item', floatType, o.nullableItem ?? false));
  const fields = [new Field(idName, o.largeUtf8 ? new LargeUtf8() : new Utf8(), o.nullableId ?? false), new Field(vecName, vecType, o.nullableVector ?? false)];
  if (o.extraColumn) fields.push(new Field('note', new Utf8(), false));
  const schema = new Schema(fields);
  const size = o.batchSize ?? Math.max(rows.length, 1);
  const batches: RecordBatch[] = [];
  for (let i = 0; i < rows.length; i += size) batches.push(makeBatch(schema, rows.slice(i, i + size), o));
  if (o.stream) return Buffer.from(tableToIPC(new Table(schema, batches as never), 'stream'));
  if (o.compressed && !codecRegistered) {
    // A stand-in "codec": the writer only checks that output starts like an LZ4 frame. The
    // reader must refuse the file from the message header, before any body is decoded.
    const header = Uint8Array.from([4, 34, 77, 24, 0x40, 0x40, 0]);
    compressionRegistry.set(CompressionType.LZ4_FRAME, { encode: (x: Uint8Array) => Buffer.concat([header, x]), decode: (x: Uint8Array) => x });
    codecRegistered = true;
  }
  const opts = o.compressed ? { compressionType: CompressionType.LZ4_FRAME } : undefined;
  const w = o.footerOnlySchema ? new RecordBatchFileWriter(opts) : new SchemaFirstFileWriter(opts);
  if (batches.length === 0) w.reset(undefined, schema);
  for (const b of batches) w.write(b);
  return Buffer.from(w.finish().toUint8Array(true));
}

/** Rows with simple finite vectors for the given ids. */
export function rowsFor(ids: readonly string[], dim: number): ArrowRow[] {
  return ids.map((id, i) => ({ id, vector: Array.from({ length: dim }, (_, k) => (i + 1) * 0.01 + k * 0.001) }));
}

/** A vectors/config.json text with a correct fingerprint. */
export function vectorConfig(fields: Record<string, unknown>, fingerprint?: string): string {
  const body: Record<string, unknown> = { ...fields };
  const canon = canonical(body);
  body.fingerprint = fingerprint ?? `sha256:${sha256(canon)}`;
  return `${JSON.stringify(body, null, 2)}\n`;
}

function canonical(v: unknown): string {
  if (v === null || typeof v !== 'object') return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  const o = v as Record<string, unknown>;
  return `{${Object.keys(o)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${canonical(o[k])}`)
    .join(',')}}`;
}

/** A full package with structure and vectors for all three targets. */
export function vectorPackage(
  s: Structure,
  options: { dim?: number; config?: string; arrow?: Partial<Record<'chunks' | 'events' | 'entities', Buffer | null>> } = {},
): PackageSpec {
  const dim = options.dim ?? 4;
  const files: FileMap = structureFiles(s);
  files['vectors/config.json'] = options.config ?? vectorConfig({ model: 'example/embedding-model', dimensions: dim, normalized: false });
  const defaults = {
    chunks: arrowFile(
      rowsFor(
        s.chunks.map((c) => c.id),
        dim,
      ),
      { dim },
    ),
    events: arrowFile(
      rowsFor(
        s.events.map((c) => c.id),
        dim,
      ),
      { dim },
    ),
    entities: arrowFile(
      rowsFor(
        s.entities.map((c) => c.id),
        dim,
      ),
      { dim },
    ),
  };
  for (const t of ['chunks', 'events', 'entities'] as const) {
    const given = options.arrow?.[t];
    if (given === null) continue;
    files[`vectors/${t}.arrow`] = given ?? defaults[t];
  }
  return { files, capabilities: SAG_AND_VECTORS };
}
