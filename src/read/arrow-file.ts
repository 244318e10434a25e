/**
 * Streaming reader for the vector targets: Arrow IPC **file** format (OCTX-REFERENCE §10.6).
 *
 * apache-arrow can read the file format only by loading the whole file (`RecordBatchReader.from`
 * on a byte stream that starts with the `ARROW1` magic buffers everything, and the random-access
 * reader needs a file handle). So the framing is done here, one message at a time: the magic is
 * checked and dropped, every message header is decoded with `Message.decode` and checked (one
 * schema first — or none, as apache-arrow's own file writer does, which the IPC file format allows:
 * then the schema is read from the footer, through a second read of the file's tail —, only
 * schema/dictionary/record-batch messages, **no body compression** — checked
 * on the header before the body is touched — and the batch/row/value limits), and the verified
 * messages are handed to apache-arrow's streaming `RecordBatchReader`, which decodes one record
 * batch at a time. After the end-of-stream marker the footer is read and must list exactly the
 * batches that were streamed, at the offsets where they were found, so a reader that trusts the
 * footer (pyarrow) sees the same data as this one.
 */
import { Message, MessageHeader, Precision, RecordBatchReader, Type, type Schema } from 'apache-arrow';
import { Footer } from 'apache-arrow/ipc/metadata/file';
import type { OctxCode } from '../model/codes.js';
import { OctxError } from '../model/errors.js';
import type { ArchiveLimits } from '../model/limits.js';
import { VECTOR_COLUMNS } from '../model/vector-format.js';

const RECORD_ID = VECTOR_COLUMNS.recordId.name;
const VECTOR = VECTOR_COLUMNS.vector.name;
const INPUT_SHA256 = VECTOR_COLUMNS.inputSha256.name;

/** The file magic at the start: `ARROW1` and two padding bytes. */
const MAGIC_HEAD = Buffer.from('ARROW1\0\0', 'latin1');
const MAGIC_TAIL = Buffer.from('ARROW1', 'latin1');
const EOS = Buffer.from([0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0]);
/** Reused body buffers: the batch being checked, apache-arrow's read-ahead, and one spare. */
const POOL_SLOTS = 3;
/** Bytes after the end-of-stream marker (footer + length + magic) that are read into memory. */
const MAX_FOOTER_BYTES = 64 * 1024 * 1024;

/**
 * What {@link checkVectorSchema} reads of an apache-arrow schema field. The typings give
 * `Field.type` (and so a type's `children`) as `any`; apache-arrow's `DataType` has all of these.
 */
interface ArrowField {
  readonly name: string;
  readonly nullable: boolean;
  readonly type: {
    readonly typeId: Type;
    /** The child fields (the element field of a `fixed_size_list`); `null` on types without. */
    readonly children?: readonly ArrowField[] | null;
    /** `Float` types only. */
    readonly precision?: Precision;
    /** `FixedSizeList` types only. */
    readonly listSize?: number;
    /** The type as apache-arrow writes it, e.g. `Utf8`, `FixedSizeList[4]<Float32>`. */
    toString(): string;
  };
}

/** Column layout of a valid vector target, found in its schema. */
export interface ArrowVectorSchema {
  /** Index of the `record_id` column. */
  readonly recordIdIndex: number;
  /** Index of the `vector` column. */
  readonly vectorIndex: number;
  /** `fixed_size_list` width. */
  readonly dimension: number;
  /** Index of a usable `input_sha256` column (non-nullable utf8), or -1. */
  readonly inputSha256Index: number;
  /** Why an `input_sha256` column that is present cannot be used (wrong type, nullable, repeated). */
  readonly inputSha256Problem?: string;
}

/**
 * One record batch, reduced to what OCTX needs. `values` and the id bytes are views into the
 * batch body: they stay valid after the next batch, unless the reader runs with
 * `pooledBodies` (then only until the batch after next).
 */
export interface ArrowVectorBatch {
  /** Rows in the batch. */
  readonly length: number;
  /** Vector width. */
  readonly dimension: number;
  /** Row-major values, exactly `length × dimension` floats. */
  readonly values: Float32Array;
  /** UTF-8 bytes of the `record_id` column; row `i` is `idBytes[idStart(i) … idEnd(i))`. */
  readonly idBytes: Uint8Array;
  idStart(i: number): number;
  idEnd(i: number): number;
  /** `record_id` of row `i` as text; `null` where the column is null. */
  recordId(i: number): string | null;
  /** Number of null `record_id` cells. */
  readonly idNulls: number;
  /** True when row `i`'s `record_id` is null. */
  isIdNull(i: number): boolean;
  /** Number of null `vector` cells. */
  readonly vectorNulls: number;
  /** True when row `i`'s vector is null. */
  isVectorNull(i: number): boolean;
  /** Number of null elements inside vectors. */
  readonly elementNulls: number;
  /** True when row `i`'s vector holds a null element. */
  hasNullElement(i: number): boolean;
  /**
   * The `input_sha256` column, when the schema has a usable one: its UTF-8 bytes (row `i` is
   * `bytes[start(i) … end(i))`) and null cells.
   */
  readonly inputSha256?: Utf8Column;
}

/** A utf8 column of one batch. */
export interface Utf8Column {
  readonly bytes: Uint8Array;
  readonly start: (i: number) => number;
  readonly end: (i: number) => number;
  /** Number of null cells. */
  readonly nulls: number;
  readonly isNull: (i: number) => boolean;
  /** Row `i` as text (`null` for a null cell). */
  readonly text: (i: number) => string | null;
}

/** Options of {@link readArrowVectorBatches}. */
export interface ArrowReadOptions {
  /** Package path, for issues. */
  readonly path: string;
  /** Exact file size in bytes. */
  readonly size: number;
  /** Limits (batches, rows, values, dimension, metadata size). */
  readonly limits: ArchiveLimits;
  /** `config.dimensions`, when known: the schema's width must equal it. */
  readonly expectedDimension?: number;
  /** Called once with the checked schema layout, before the first batch. */
  readonly onSchema?: (layout: ArrowVectorSchema) => void;
  /**
   * Assemble record-batch bodies in a small ring of reused buffers instead of a fresh allocation
   * per batch. For consumers that are done with a batch before asking for the next (the
   * validator): large short-lived buffers are external memory to V8, and allocating one per
   * batch triggered a full mark-compact every ~100 ms. The ring has room for apache-arrow's
   * one-message read-ahead, and every batch is checked to still own its buffer.
   */
  readonly pooledBodies?: boolean;
  /**
   * The last `maxBytes` bytes of the same file (all of it when shorter), read again. A file whose
   * first message is not the schema — apache-arrow's own `RecordBatchFileWriter` and
   * `tableToIPC(table, 'file')` write the schema only in the footer, which the IPC file format
   * allows — is read with the footer's schema, fetched through this. Without it such a file is
   * refused (`OCTX_VECTOR_ARROW_INVALID`) unless it has no batch before its footer.
   */
  readonly tail?: (maxBytes: number) => Promise<Buffer>;
}

/**
 * The last `maxBytes` bytes of a byte stream, read to its end (memory: `maxBytes` plus one chunk).
 * For {@link ArrowReadOptions.tail}.
 */
export async function tailOf(stream: AsyncIterable<Buffer>, maxBytes: number): Promise<Buffer> {
  const kept: Buffer[] = [];
  let bytes = 0;
  for await (const chunk of stream) {
    kept.push(chunk);
    bytes += chunk.length;
    while (kept.length > 1 && bytes - kept[0]!.length >= maxBytes) bytes -= kept.shift()!.length;
  }
  const all = Buffer.concat(kept, bytes);
  return all.length > maxBytes ? all.subarray(all.length - maxBytes) : all;
}

/** Tail bytes read first for a footer schema: a footer is the schema plus 24 bytes per batch. */
const FIRST_TAIL_BYTES = 64 * 1024;

/**
 * The end of the file holding its whole footer: {@link FIRST_TAIL_BYTES} first, and the footer's
 * declared length (at most the footer bound) when that is more, so a large file's tail is not
 * held whole for a small footer.
 */
async function footerTail(tail: (maxBytes: number) => Promise<Buffer>): Promise<Buffer> {
  const first = await tail(FIRST_TAIL_BYTES);
  if (first.length < FIRST_TAIL_BYTES || first.length < 10) return first;
  const need = first.readInt32LE(first.length - 10) + 10;
  return need > first.length && need <= MAX_FOOTER_BYTES ? tail(need) : first;
}

/**
 * The schema of an Arrow file's footer (`<footer> <int32 length> "ARROW1"` at the end of
 * `tail`), encoded as an IPC schema message with its continuation marker and length prefix, ready
 * to stand first in the message stream.
 * @throws OctxError `OCTX_VECTOR_ARROW_INVALID` when the footer or its schema is unreadable
 */
function footerSchemaMessage(tail: Buffer, path: string): Buffer {
  const bad = (why: string): OctxError => problem('OCTX_VECTOR_ARROW_INVALID', path, `the Arrow file has no schema message, and its footer schema ${why}`);
  if (tail.length < 10 || !tail.subarray(tail.length - 6).equals(MAGIC_TAIL)) throw bad('cannot be found (no ARROW1 magic at the end)');
  const footerLength = tail.readInt32LE(tail.length - 10);
  if (footerLength <= 0 || footerLength > tail.length - 10) throw bad(`cannot be found (footer length ${footerLength})`);
  let meta: Uint8Array;
  try {
    const { schema } = Footer.decode(tail.subarray(tail.length - 10 - footerLength, tail.length - 10));
    meta = Message.encode(Message.from(schema));
  } catch (e) {
    throw bad(`is unreadable: ${(e as Error).message}`);
  }
  // Metadata padded to 8 bytes, as writers do; the length prefix counts the padding.
  const padded = Math.ceil(meta.length / 8) * 8;
  const out = Buffer.alloc(8 + padded);
  out.writeInt32LE(-1, 0);
  out.writeInt32LE(padded, 4);
  out.set(meta, 8);
  return out;
}

function problem(code: OctxCode, path: string, message: string): OctxError {
  return OctxError.of({ code, path, message });
}

/**
 * Pull-based byte reader over an async iterator of chunks. `read(n)` returns exactly `n` bytes:
 * a view when they lie in one chunk, else one copy. Large reads copy each chunk as it arrives
 * and drop it at once, instead of collecting a backlog of chunks first: chunks held across many
 * awaits get promoted to V8's old generation, and their external memory then forced a full
 * mark-compact every ~100 ms while big Arrow bodies were assembled.
 */
export class ByteReader {
  private chunks: Buffer[] = [];
  private buffered = 0;
  private ended = false;
  /** Bytes consumed so far. */
  position = 0;
  private readonly pool: Buffer[] = [];
  private readonly generations: number[] = [];
  private nextSlot = 0;

  constructor(
    private readonly source: AsyncIterator<Buffer>,
    private readonly path: string,
  ) {}

  private async pull(): Promise<Buffer | null> {
    for (;;) {
      const r = await this.source.next();
      if (r.done) {
        this.ended = true;
        return null;
      }
      if (r.value.length > 0) return r.value;
    }
  }

  private truncated(): OctxError {
    return problem('OCTX_VECTOR_ARROW_INVALID', this.path, 'the Arrow file is truncated');
  }

  /** Makes sure at least one chunk is buffered when possible (for the view fast path). */
  private async prime(): Promise<void> {
    if (this.chunks.length === 0 && !this.ended) {
      const c = await this.pull();
      if (c) {
        this.chunks.push(c);
        this.buffered += c.length;
      }
    }
  }

  /** The next `n` bytes as a view of the first buffered chunk, or undefined when they span chunks. */
  private view(n: number): Buffer | undefined {
    const first = this.chunks[0];
    if (!first || first.length < n) return undefined;
    if (first.length === n) this.chunks.shift();
    else this.chunks[0] = first.subarray(n);
    this.buffered -= n;
    this.position += n;
    return first.subarray(0, n);
  }

  /** Copies the next `n` bytes into `out`, pulling (and dropping) chunks as needed. */
  private async fillInto(out: Buffer, n: number): Promise<void> {
    let at = 0;
    while (at < n && this.chunks.length > 0) {
      const c = this.chunks[0]!;
      const take = Math.min(c.length, n - at);
      c.copy(out, at, 0, take);
      at += take;
      this.buffered -= take;
      if (take === c.length) this.chunks.shift();
      else this.chunks[0] = c.subarray(take);
    }
    while (at < n) {
      const c = await this.pull();
      if (!c) throw this.truncated();
      const take = Math.min(c.length, n - at);
      c.copy(out, at, 0, take);
      at += take;
      if (take < c.length) {
        this.chunks.push(c.subarray(take));
        this.buffered += c.length - take;
      }
    }
    this.position += n;
  }

  /** Exactly `n` bytes, or `OCTX_VECTOR_ARROW_INVALID` when the file ends first. */
  async read(n: number): Promise<Buffer> {
    if (n === 0) return Buffer.alloc(0);
    await this.prime();
    const v = this.view(n);
    if (v) return v;
    // allocUnsafeSlow: an 8-byte-aligned buffer of its own, so Arrow never copies it again.
    const out = n >= 4096 ? Buffer.allocUnsafeSlow(n) : Buffer.allocUnsafe(n);
    await this.fillInto(out, n);
    return out;
  }

  /**
   * {@link read} into the next buffer of a ring of {@link POOL_SLOTS} reused buffers (or a view
   * when the bytes lie in one chunk). The ticket tells {@link intact} whether the bytes were
   * overwritten since.
   */
  async readPooled(n: number): Promise<{ bytes: Buffer; slot: number; generation: number }> {
    await this.prime();
    const v = this.view(n);
    if (v) return { bytes: v, slot: -1, generation: 0 };
    const slot = this.nextSlot;
    this.nextSlot = (slot + 1) % POOL_SLOTS;
    let buf = this.pool[slot];
    if (!buf || buf.length < n) {
      buf = Buffer.allocUnsafeSlow(n);
      this.pool[slot] = buf;
    }
    const generation = (this.generations[slot] ?? 0) + 1;
    this.generations[slot] = generation;
    const out = buf.subarray(0, n);
    await this.fillInto(out, n);
    return { bytes: out, slot, generation };
  }

  /** True when the bytes of a {@link readPooled} ticket have not been overwritten. */
  intact(slot: number, generation: number): boolean {
    return slot < 0 || this.generations[slot] === generation;
  }

  /** Everything that is left, refused with `OCTX_RESOURCE_LIMIT` above `max` bytes. */
  async readRest(max: number): Promise<Buffer> {
    while (!this.ended && this.buffered <= max) {
      const c = await this.pull();
      if (c) {
        this.chunks.push(c);
        this.buffered += c.length;
      }
    }
    if (this.buffered > max) throw problem('OCTX_RESOURCE_LIMIT', this.path, `more than ${max} bytes follow the last Arrow message`);
    const out = Buffer.concat(this.chunks, this.buffered);
    this.position += this.buffered;
    this.chunks = [];
    this.buffered = 0;
    return out;
  }

  /** Consumes the rest of the source without keeping it (so a hash over the stream completes). */
  async drain(): Promise<void> {
    this.chunks = [];
    this.buffered = 0;
    while (!this.ended) await this.pull();
  }
}

interface Block {
  readonly offset: number;
  readonly metaDataLength: number;
  readonly bodyLength: number;
}

/** Minimal FlatBuffers reading of the Arrow `Footer` table: only the two block vectors. */
function parseFooterBlocks(buf: Buffer, path: string): { dictionaries: Block[]; recordBatches: Block[] } {
  const bad = (): OctxError => problem('OCTX_VECTOR_ARROW_INVALID', path, 'the Arrow footer is malformed');
  const u32 = (at: number): number => {
    if (at < 0 || at + 4 > buf.length) throw bad();
    return buf.readUInt32LE(at);
  };
  const table = u32(0);
  const vtable = table - buf.readInt32LE(table);
  if (vtable < 0 || vtable + 4 > buf.length) throw bad();
  const vtLength = buf.readUInt16LE(vtable);
  const field = (i: number): number => {
    const slot = 4 + 2 * i;
    if (slot + 2 > vtLength || vtable + slot + 2 > buf.length) return 0;
    const off = buf.readUInt16LE(vtable + slot);
    return off === 0 ? 0 : table + off;
  };
  const blocks = (i: number): Block[] => {
    const at = field(i);
    if (at === 0) return [];
    const vec = at + u32(at);
    const n = u32(vec);
    if (vec + 4 + n * 24 > buf.length) throw bad();
    const out: Block[] = [];
    for (let k = 0; k < n; k++) {
      const b = vec + 4 + k * 24;
      out.push({ offset: Number(buf.readBigInt64LE(b)), metaDataLength: buf.readInt32LE(b + 8), bodyLength: Number(buf.readBigInt64LE(b + 16)) });
    }
    return out;
  };
  // Footer: 0 version, 1 schema, 2 dictionaries, 3 recordBatches, 4 custom_metadata.
  return { dictionaries: blocks(2), recordBatches: blocks(3) };
}

function sameBlocks(a: readonly Block[], b: readonly Block[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (x.offset !== y.offset || x.metaDataLength !== y.metaDataLength || x.bodyLength !== y.bodyLength) return false;
  }
  return true;
}

/**
 * Checks the schema of a vector target: exactly one `record_id` and one `vector` column,
 * `record_id` non-nullable `utf8` (not large, not dictionary), `vector` non-nullable
 * `fixed_size_list<float32>` with a non-nullable child, width within 1…`maxDimension` and equal
 * to `expectedDimension` when given. Extra columns are allowed; an `input_sha256` column is
 * located, and one that is not a single non-nullable `utf8` column is described in
 * `inputSha256Problem` (not thrown: the rest of the file can still be read).
 * @throws OctxError `OCTX_VECTOR_COLUMNS_REQUIRED`, `OCTX_VECTOR_RECORD_ID_SCHEMA`,
 *   `OCTX_VECTOR_VALUE_SCHEMA`, `OCTX_VECTOR_DIMENSION_INVALID`
 */
export function checkVectorSchema(schema: Schema, path: string, maxDimension: number, expectedDimension?: number): ArrowVectorSchema {
  const fields: readonly ArrowField[] = schema.fields;
  const ids = fields.flatMap((f, i) => (f.name === RECORD_ID ? [i] : []));
  const vecs = fields.flatMap((f, i) => (f.name === VECTOR ? [i] : []));
  if (ids.length !== 1 || vecs.length !== 1) {
    throw problem('OCTX_VECTOR_COLUMNS_REQUIRED', path, `a vector target needs exactly one record_id and one vector column (found ${ids.length} and ${vecs.length})`);
  }
  const idField = fields[ids[0]!]!;
  if (idField.type.typeId !== Type.Utf8) {
    throw problem('OCTX_VECTOR_RECORD_ID_SCHEMA', path, `record_id must be utf8, not ${String(idField.type)}`);
  }
  if (idField.nullable) throw problem('OCTX_VECTOR_RECORD_ID_SCHEMA', path, 'the record_id field must be declared non-nullable');
  const vecField = fields[vecs[0]!]!;
  const t = vecField.type;
  if (t.typeId !== Type.FixedSizeList) throw problem('OCTX_VECTOR_VALUE_SCHEMA', path, `vector must be fixed_size_list<float32>, not ${String(t)}`);
  const child = t.children![0];
  if (!child || child.type.typeId !== Type.Float || child.type.precision !== Precision.SINGLE) {
    throw problem('OCTX_VECTOR_VALUE_SCHEMA', path, `vector elements must be float32, not ${child ? String(child.type) : 'missing'}`);
  }
  if (vecField.nullable) throw problem('OCTX_VECTOR_VALUE_SCHEMA', path, 'the vector field must be declared non-nullable');
  if (child.nullable) throw problem('OCTX_VECTOR_VALUE_SCHEMA', path, 'the vector element field must be declared non-nullable');
  const dimension = t.listSize!;
  if (!Number.isInteger(dimension) || dimension < 1 || dimension > maxDimension) {
    throw problem('OCTX_VECTOR_DIMENSION_INVALID', path, `vector dimension ${dimension} is outside 1…${maxDimension}`);
  }
  if (expectedDimension !== undefined && dimension !== expectedDimension) {
    throw problem('OCTX_VECTOR_DIMENSION_INVALID', path, `vector dimension ${dimension} differs from config.dimensions ${expectedDimension}`);
  }
  const digests = fields.flatMap((f, i) => (f.name === INPUT_SHA256 ? [i] : []));
  let inputSha256Problem: string | undefined;
  if (digests.length > 1) inputSha256Problem = `there are ${digests.length} input_sha256 columns`;
  else if (digests.length === 1) {
    const f = fields[digests[0]!]!;
    if (f.type.typeId !== Type.Utf8) inputSha256Problem = `input_sha256 must be utf8, not ${String(f.type)}`;
    else if (f.nullable) inputSha256Problem = 'the input_sha256 field must be declared non-nullable';
  }
  const inputSha256Index = digests.length === 1 && inputSha256Problem === undefined ? digests[0]! : -1;
  return { recordIdIndex: ids[0]!, vectorIndex: vecs[0]!, dimension, inputSha256Index, ...(inputSha256Problem === undefined ? {} : { inputSha256Problem }) };
}

interface DataLike {
  readonly offset: number;
  readonly length: number;
  readonly nullCount: number;
  readonly nullBitmap: Uint8Array | undefined;
  readonly valueOffsets: Int32Array;
  readonly values: Uint8Array | Float32Array;
  readonly children: DataLike[];
}

function bit(bitmap: Uint8Array | undefined, index: number): boolean {
  if (!bitmap || bitmap.length === 0) return true;
  return ((bitmap[index >> 3]! >> (index & 7)) & 1) === 1;
}

function toBatch(data: DataLike, layout: ArrowVectorSchema, path: string): ArrowVectorBatch {
  const bad = (why: string): OctxError => problem('OCTX_VECTOR_ARROW_INVALID', path, `a record batch is malformed: ${why}`);
  const idData = data.children[layout.recordIdIndex]!;
  const vecData = data.children[layout.vectorIndex]!;
  const elemData = vecData.children[0]!;
  const n = data.length;
  const dim = layout.dimension;
  if (vecData.length !== n) throw bad('column lengths differ');
  const ids = utf8Column(idData, n, RECORD_ID, bad);

  const floats = elemData.values as Float32Array;
  const base = elemData.offset + vecData.offset * dim;
  if (floats.length < base + n * dim) throw bad('vector values are short');
  const values = floats.subarray(base, base + n * dim);
  const vecNulls = Math.max(0, vecData.nullCount);
  const elemNulls = Math.max(0, elemData.nullCount);
  const inputSha256 = layout.inputSha256Index >= 0 ? utf8Column(data.children[layout.inputSha256Index]!, n, INPUT_SHA256, bad) : undefined;
  return {
    ...(inputSha256 === undefined ? {} : { inputSha256 }),
    length: n,
    dimension: dim,
    values,
    idBytes: ids.bytes,
    idStart: ids.start,
    idEnd: ids.end,
    recordId: ids.text,
    idNulls: ids.nulls,
    isIdNull: ids.isNull,
    vectorNulls: vecNulls,
    isVectorNull: (i) => vecNulls > 0 && !bit(vecData.nullBitmap, vecData.offset + i),
    elementNulls: elemNulls,
    hasNullElement: (i) => {
      if (elemNulls <= 0) return false;
      const from = elemData.offset + (vecData.offset + i) * dim;
      for (let k = 0; k < dim; k++) if (!bit(elemData.nullBitmap, from + k)) return true;
      return false;
    },
  };
}

/** A utf8 column of a batch (`record_id`, `input_sha256`), offsets checked: apache-arrow does not validate them. */
function utf8Column(col: DataLike, n: number, name: string, bad: (why: string) => OctxError): Utf8Column {
  if (col.length !== n) throw bad('column lengths differ');
  const offs = col.valueOffsets;
  const bytes = col.values as Uint8Array;
  const o0 = col.offset;
  if (offs.length < o0 + n + 1) throw bad(`${name} offsets are short`);
  let prev = offs[o0]!;
  if (prev < 0) throw bad(`${name} offsets are negative`);
  for (let i = 1; i <= n; i++) {
    const end = offs[o0 + i]!;
    if (end < prev || end > bytes.length) throw bad(`${name} offsets are out of range`);
    prev = end;
  }
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const nulls = Math.max(0, col.nullCount);
  const isNull = (i: number): boolean => nulls > 0 && !bit(col.nullBitmap, o0 + i);
  return {
    bytes,
    start: (i) => offs[o0 + i]!,
    end: (i) => offs[o0 + i + 1]!,
    nulls,
    isNull,
    text: (i) => (isNull(i) ? null : text.toString('utf8', offs[o0 + i], offs[o0 + i + 1])),
  };
}

/**
 * Reads a vector target from a byte stream and yields its record batches one at a time (only
 * the current batch is in memory; the next is read when the consumer asks for it).
 * @throws OctxError with a vector code (`OCTX_VECTOR_ARROW_INVALID`,
 *   `OCTX_VECTOR_COMPRESSION_UNSUPPORTED`, `OCTX_VECTOR_COLUMNS_REQUIRED`,
 *   `OCTX_VECTOR_RECORD_ID_SCHEMA`, `OCTX_VECTOR_VALUE_SCHEMA`, `OCTX_VECTOR_DIMENSION_INVALID`)
 *   or `OCTX_RESOURCE_LIMIT`, all with `path`; errors of the byte source propagate unchanged.
 */
export async function* readArrowVectorBatches(reader: ByteReader, options: ArrowReadOptions): AsyncGenerator<ArrowVectorBatch, void, undefined> {
  const { path, size, limits } = options;
  const head = await reader.read(Math.min(8, size));
  if (size < 8 + 10 || !head.equals(MAGIC_HEAD)) {
    const isStream = head.length >= 4 && head.readInt32LE(0) === -1;
    throw problem(
      'OCTX_VECTOR_ARROW_INVALID',
      path,
      isStream ? 'this is the Arrow IPC stream format; vector targets must use the IPC file format (ARROW1 magic)' : 'not an Arrow IPC file (no ARROW1 magic)',
    );
  }

  let dimension = 0;
  let rows = 0;
  let batchCount = 0;
  const recordBlocks: Block[] = [];
  const dictBlocks: Block[] = [];
  let footerChecked = false;
  /** Pooled body tickets of record batches not yet handed out, in order. */
  const tickets: { slot: number; generation: number }[] = [];

  async function* messages(): AsyncGenerator<Uint8Array, void, undefined> {
    let schemaSeen = false;
    for (;;) {
      const offset = reader.position;
      if (size - offset < 10) throw problem('OCTX_VECTOR_ARROW_INVALID', path, 'the Arrow file ends without a footer');
      const marker = await reader.read(4);
      let footerBytes: Buffer;
      let sawEos = false;
      if (marker.readInt32LE(0) !== -1) {
        // No end-of-stream marker: the footer starts here.
        footerBytes = Buffer.concat([marker, await reader.readRest(MAX_FOOTER_BYTES)]);
      } else {
        const metaLength = (await reader.read(4)).readInt32LE(0);
        if (metaLength === 0) {
          sawEos = true;
          footerBytes = await reader.readRest(MAX_FOOTER_BYTES);
        } else {
          if (metaLength < 0 || metaLength > size - reader.position) throw problem('OCTX_VECTOR_ARROW_INVALID', path, `bad Arrow message length ${metaLength}`);
          if (metaLength > limits.maxFileSize) throw problem('OCTX_RESOURCE_LIMIT', path, `an Arrow metadata message is larger than maxFileSize`);
          const meta = await reader.read(metaLength);
          let message: Message<MessageHeader>;
          let header: unknown;
          try {
            message = Message.decode(meta);
            header = message.header();
          } catch (e) {
            throw problem('OCTX_VECTOR_ARROW_INVALID', path, `undecodable Arrow message: ${(e as Error).message}`);
          }
          const bodyLength = message.bodyLength;
          if (!Number.isSafeInteger(bodyLength) || bodyLength < 0 || bodyLength > size - reader.position) {
            throw problem('OCTX_VECTOR_ARROW_INVALID', path, `bad Arrow body length ${bodyLength}`);
          }
          const type = message.headerType;
          if (type === MessageHeader.Schema) {
            if (schemaSeen) throw problem('OCTX_VECTOR_ARROW_INVALID', path, 'the Arrow file holds more than one schema message, or one after a batch');
            schemaSeen = true;
          } else if (!schemaSeen) {
            // The schema is only in the footer (apache-arrow's file writer): read it from there.
            if (options.tail === undefined) throw problem('OCTX_VECTOR_ARROW_INVALID', path, 'the first Arrow message must be the schema');
            yield footerSchemaMessage(await footerTail(options.tail), path);
            schemaSeen = true;
          }
          if (type === MessageHeader.Schema) {
            // Checked above; passed on as it is.
          } else if (type === MessageHeader.RecordBatch || type === MessageHeader.DictionaryBatch) {
            const rb = (type === MessageHeader.RecordBatch ? header : (header as { data: unknown }).data) as BatchHeader | null;
            if (!rb) throw problem('OCTX_VECTOR_ARROW_INVALID', path, 'an Arrow batch message has no header');
            // Checked on the header, before the body is read or anything is decompressed.
            if (rb.compression !== null && rb.compression !== undefined) {
              throw problem('OCTX_VECTOR_COMPRESSION_UNSUPPORTED', path, 'Arrow IPC body compression is not allowed in vectors/0.1');
            }
            checkBatchHeader(rb, bodyLength, path);
            batchCount += 1;
            if (batchCount > limits.maxArrowBatches) throw problem('OCTX_RESOURCE_LIMIT', path, `more than ${limits.maxArrowBatches} Arrow batches (limit maxArrowBatches)`);
            if (type === MessageHeader.RecordBatch) {
              rows += rb.length;
              if (rows > limits.maxArrowRows) throw problem('OCTX_RESOURCE_LIMIT', path, `more than ${limits.maxArrowRows} Arrow rows (limit maxArrowRows)`);
              if (rows * dimension > limits.maxArrowValues) throw problem('OCTX_RESOURCE_LIMIT', path, `more than ${limits.maxArrowValues} vector values (limit maxArrowValues)`);
              recordBlocks.push({ offset, metaDataLength: 8 + metaLength, bodyLength });
            } else dictBlocks.push({ offset, metaDataLength: 8 + metaLength, bodyLength });
          } else {
            throw problem('OCTX_VECTOR_ARROW_INVALID', path, `unexpected Arrow message type ${MessageHeader[type] ?? type}`);
          }
          let body: Buffer;
          if (bodyLength === 0) body = Buffer.alloc(0);
          else if (options.pooledBodies === true && type === MessageHeader.RecordBatch) {
            const got = await reader.readPooled(bodyLength);
            tickets.push(got);
            body = got.bytes;
          } else body = await reader.read(bodyLength);
          yield EOS.subarray(0, 4);
          yield lengthPrefix(metaLength);
          yield meta;
          if (body.length > 0) yield body;
          continue;
        }
      }
      // Footer: <footer flatbuffer> <int32 length> "ARROW1", nothing after.
      // No message before the footer: the schema (if any) is the footer's, which is at hand.
      if (!schemaSeen) yield footerSchemaMessage(footerBytes, path);
      if (footerBytes.length < 10 || !footerBytes.subarray(footerBytes.length - 6).equals(MAGIC_TAIL)) {
        throw problem('OCTX_VECTOR_ARROW_INVALID', path, 'the Arrow file does not end with the ARROW1 magic (stream format, or truncated)');
      }
      const footerLength = footerBytes.readInt32LE(footerBytes.length - 10);
      if (footerLength <= 0 || footerLength + 10 !== footerBytes.length) {
        throw problem(
          'OCTX_VECTOR_ARROW_INVALID',
          path,
          sawEos ? 'the Arrow footer length does not match (data between the end-of-stream marker and the footer)' : 'the Arrow footer length does not match',
        );
      }
      const footer = parseFooterBlocks(footerBytes.subarray(0, footerLength), path);
      if (!sameBlocks(footer.recordBatches, recordBlocks)) {
        throw problem(
          'OCTX_VECTOR_ARROW_INVALID',
          path,
          `the Arrow footer lists ${footer.recordBatches.length} record batches that differ from the ${recordBlocks.length} in the file`,
        );
      }
      if (!sameBlocks(footer.dictionaries, dictBlocks)) {
        throw problem('OCTX_VECTOR_ARROW_INVALID', path, 'the Arrow footer dictionary batches differ from those in the file');
      }
      footerChecked = true;
      yield EOS;
      return;
    }
  }

  let arrowReader;
  try {
    arrowReader = await RecordBatchReader.from(messages());
    await arrowReader.open();
  } catch (e) {
    throw asArrowProblem(e, path);
  }
  const schema = arrowReader.schema as Schema | undefined;
  if (!schema) throw problem('OCTX_VECTOR_ARROW_INVALID', path, 'the Arrow file has no schema');
  const layout = checkVectorSchema(schema, path, limits.maxArrowDimension, options.expectedDimension);
  dimension = layout.dimension;
  options.onSchema?.(layout);
  if (rows * dimension > limits.maxArrowValues) throw problem('OCTX_RESOURCE_LIMIT', path, `more than ${limits.maxArrowValues} vector values (limit maxArrowValues)`);
  const batches = arrowReader[Symbol.asyncIterator]();
  for (;;) {
    let next: IteratorResult<{ numRows: number; data: unknown }>;
    try {
      next = await batches.next();
    } catch (e) {
      throw asArrowProblem(e, path);
    }
    if (next.done) break;
    if (next.value.numRows === 0 && recordBlocks.length === 0) continue; // schema-only file placeholder
    const ticket = tickets.shift();
    if (ticket && !reader.intact(ticket.slot, ticket.generation)) {
      // apache-arrow read further ahead than the ring allows: a bug here, not in the file.
      throw new Error('internal error: a pooled Arrow body was overwritten before its batch was checked');
    }
    yield toBatch(next.value.data as DataLike, layout, path);
  }
  if (!footerChecked) throw problem('OCTX_VECTOR_ARROW_INVALID', path, 'the Arrow stream ended before its footer');
}

/** What {@link checkBatchHeader} reads of a record batch header (apache-arrow's metadata class). */
interface BatchHeader {
  readonly compression: unknown;
  readonly length: number;
  readonly nodes?: readonly { readonly length: number; readonly nullCount: number }[];
  readonly buffers?: readonly { readonly offset: number; readonly length: number }[];
}

/**
 * Refuses batch metadata no writer produces and apache-arrow does not check: a negative or
 * unsafe row count (it would subtract from the rows counted, and then read as missing coverage),
 * a field node whose null count is negative or above its length, and a buffer with a negative
 * offset or length or reaching beyond the message body (apache-arrow would read a short or
 * shifted view of the body and report something else, or nothing).
 * @throws OctxError `OCTX_VECTOR_ARROW_INVALID`
 */
function checkBatchHeader(rb: BatchHeader, bodyLength: number, path: string): void {
  const bad = (why: string): OctxError => problem('OCTX_VECTOR_ARROW_INVALID', path, `a record batch header is malformed: ${why}`);
  if (!Number.isSafeInteger(rb.length) || rb.length < 0) throw bad(`its length ${rb.length} is negative or not an exact integer`);
  (rb.nodes ?? []).forEach((n, i) => {
    if (!Number.isSafeInteger(n.length) || n.length < 0) throw bad(`field node ${i} has length ${n.length}, negative or not an exact integer`);
    if (!Number.isSafeInteger(n.nullCount) || n.nullCount < 0 || n.nullCount > n.length) {
      throw bad(`field node ${i} has null count ${n.nullCount}, outside 0…${n.length} (its length)`);
    }
  });
  (rb.buffers ?? []).forEach((b, i) => {
    if (!Number.isSafeInteger(b.offset) || !Number.isSafeInteger(b.length) || b.offset < 0 || b.length < 0) {
      throw bad(`buffer ${i} has offset ${b.offset} and length ${b.length}: negative or not exact integers`);
    }
    if (b.offset + b.length > bodyLength) throw bad(`buffer ${i} (offset ${b.offset}, length ${b.length}) reaches beyond the ${bodyLength}-byte message body`);
  });
}

function lengthPrefix(n: number): Buffer {
  const b = Buffer.allocUnsafe(4);
  b.writeInt32LE(n, 0);
  return b;
}

function asArrowProblem(e: unknown, path: string): OctxError {
  if (e instanceof OctxError) return e;
  return problem('OCTX_VECTOR_ARROW_INVALID', path, `Arrow decoding failed: ${e instanceof Error ? e.message : String(e)}`);
}
