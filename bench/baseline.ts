/**
 * The floor: the same payload bytes the exporter writes, produced with node:crypto / node:zlib /
 * apache-arrow directly and no builder.
 *
 *   node --expose-gc --import tsx bench/baseline.ts --size S --seed 1 --out DIR [--mode gen]
 *
 * `--mode baseline` (default) pays exactly what both sides must pay — generating every record
 * (bench/corpus.ts) and serialising it to its final bytes (JSON.stringify of the same objects in
 * the SDK's field order, the same Markdown, Arrow IPC batches of 8,192 rows built like
 * src/vectors/arrow-writer.ts) — plus the floor work of the issue: SHA-256 of every payload file,
 * raw deflate (the exporter's level) of every text file and a plain write of the Arrow bytes.
 * Everything streams: JSONL goes through a 1 MiB line buffer into one hash + one deflate stream
 * per file; each document is hashed and deflated on its own (as a ZIP entry is); Arrow batches are
 * hashed and written as the writer emits them. Output goes to `--out` (compressed text streams
 * and the Arrow files); no ZIP container, CRC-32, manifest, validation or fsync.
 *
 * `--mode gen` only generates the records (no serialisation, no hashing, no I/O): the share of
 * every measurement that is the benchmark's own cost (the generator's own cost of issue 23).
 *
 * The bytes floor of issue 23 (SHA-256 + deflate only, one thread) is bench/bytes-floor.ts.
 */
import { createHash, type Hash } from 'node:crypto';
import { once } from 'node:events';
import { closeSync, createWriteStream, openSync, writeSync, type WriteStream } from 'node:fs';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createDeflateRaw, deflateRaw, deflateRawSync, type DeflateRaw } from 'node:zlib';
import { AsyncByteQueue, Field, FixedSizeList, Float32, Message, RecordBatch, RecordBatchFileWriter, Schema, Struct, Utf8, makeData } from 'apache-arrow';
import { prepareVectorConfig } from 'octx-export';
import { corpusSpec, digestOfDigests, ensureDir, isMain, measure, parseArgs, parseSize } from './common.js';
import { DIMENSIONS, generateCorpus, recordCount, vectorConfig, type CorpusSink, type CorpusSpec, type Target } from './corpus.js';

/** Same constant as src/structure/record-spill.ts: lines are flushed in ~1 MiB pieces. */
export const FLUSH_AT = 1 << 20;
/** Same as src/vectors/arrow-writer.ts. */
const BATCH_ROWS = 8192;
/** Documents being deflated on the libuv pool at once (the pool has 4 threads). */
const DOC_INFLIGHT = 4;

export const STRUCTURE_FILES = {
  chunk: 'data/chunks.jsonl',
  event: 'data/events.jsonl',
  entity: 'data/entities.jsonl',
  chunkEvent: 'relations/chunk-events.jsonl',
  eventEntity: 'relations/event-entities.jsonl',
} as const;
export const ARROW_FILES: Readonly<Record<Target, string>> = { chunks: 'vectors/chunks.arrow', events: 'vectors/events.arrow', entities: 'vectors/entities.arrow' };

/** One JSONL payload: hashed and deflated (streaming) as its lines are appended. */
class JsonlSink {
  readonly hash: Hash = createHash('sha256');
  readonly deflate: DeflateRaw;
  readonly out: WriteStream;
  readonly done: Promise<void>;
  #pending: string[] = [];
  #pendingLength = 0;
  bytes = 0;

  constructor(file: string, level: number) {
    this.deflate = createDeflateRaw({ level });
    this.out = createWriteStream(file);
    this.done = pipeline(this.deflate, this.out);
  }

  append(line: string): void {
    this.#pending.push(line, '\n');
    this.#pendingLength += line.length + 1;
    if (this.#pendingLength >= FLUSH_AT) this.flush();
  }

  flush(): void {
    if (this.#pending.length === 0) return;
    const buf = Buffer.from(this.#pending.join(''), 'utf8');
    this.#pending = [];
    this.#pendingLength = 0;
    this.hash.update(buf);
    this.bytes += buf.length;
    this.deflate.write(buf);
  }

  async drain(): Promise<void> {
    if (this.deflate.writableNeedDrain) await once(this.deflate, 'drain');
  }

  async end(): Promise<{ size: number; sha256: string; compressed: number }> {
    this.flush();
    this.deflate.end();
    await this.done;
    return { size: this.bytes, sha256: this.hash.digest('hex'), compressed: this.out.bytesWritten };
  }
}

/** Documents: each hashed and deflated on its own (one ZIP entry each), written in order. */
class DocumentSink {
  readonly out: WriteStream;
  readonly #inflight: Promise<Buffer>[] = [];
  readonly digests: [string, string][] = [];
  bytes = 0;
  compressed = 0;
  readonly #level: number;

  constructor(file: string, level: number) {
    this.out = createWriteStream(file);
    this.#level = level;
  }

  add(path: string, markdown: string): void {
    const buf = Buffer.from(markdown, 'utf8');
    this.bytes += buf.length;
    this.digests.push([`knowledge/${path}`, createHash('sha256').update(buf).digest('hex')]);
    this.#inflight.push(new Promise<Buffer>((resolve, reject) => deflateRaw(buf, { level: this.#level }, (err, out) => (err ? reject(err) : resolve(out)))));
  }

  async drain(all = false): Promise<void> {
    while (this.#inflight.length > (all ? 0 : DOC_INFLIGHT)) {
      const out = await this.#inflight.shift()!;
      this.compressed += out.length;
      if (!this.out.write(out)) await once(this.out, 'drain');
    }
  }

  async end(): Promise<void> {
    await this.drain(true);
    this.out.end();
    await once(this.out, 'finish');
  }
}

/**
 * An Arrow vector target built like src/vectors/arrow-writer.ts (schema message right after the
 * magic, batches of 8,192 rows from one contiguous Float32Array and UTF-8 offsets), hashed as
 * the writer emits each piece and written with plain positional writes.
 */
class SchemaFirstFileWriter extends RecordBatchFileWriter {
  protected override _writeSchema(schema: Schema): this {
    super._writeSchema(schema);
    return this._writeMessage(Message.from(schema));
  }
}

/** Receives the Arrow writer's bytes as it emits them (`offset`: where they go in the file). */
export type ArrowBytes = (bytes: Uint8Array, offset: number) => void;

class ByteSink extends AsyncByteQueue {
  size = 0;
  constructor(readonly consume: ArrowBytes) {
    super();
  }
  override write(value: unknown): void {
    if (!ArrayBuffer.isView(value)) throw new TypeError('arrow writer produced a non-buffer chunk');
    const bytes = new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
    if (bytes.byteLength === 0) return;
    this.consume(bytes, this.size);
    this.size += bytes.byteLength;
  }
}

/** Hashes the Arrow bytes and writes them to `file` with plain positional writes. */
function hashToFile(file: string): { consume: ArrowBytes; end: () => string } {
  const hash = createHash('sha256');
  const fd = openSync(file, 'w');
  return {
    consume: (bytes, at) => {
      hash.update(bytes);
      let off = 0;
      while (off < bytes.byteLength) off += writeSync(fd, bytes, off, bytes.byteLength - off, at + off);
    },
    end: () => {
      closeSync(fd);
      return hash.digest('hex');
    },
  };
}

/**
 * One Arrow vector target, built batch by batch; its bytes go to `consume` as the writer emits
 * them (the baseline hashes and writes them, the bytes floor only hashes them).
 */
export class ArrowSink {
  readonly #dims: number;
  readonly #flat: Float32Array;
  readonly #offsets = new Int32Array(BATCH_ROWS + 1);
  #idBytes = Buffer.allocUnsafe(BATCH_ROWS * 40);
  #n = 0;
  rows = 0;
  readonly #sink: ByteSink;
  readonly #writer = new SchemaFirstFileWriter();
  readonly #schema: Schema;
  readonly #floatType = new Float32();
  readonly #vecType: FixedSizeList<Float32>;
  readonly #utf8 = new Utf8();
  readonly #struct: Struct;

  constructor(consume: ArrowBytes, dims: number) {
    this.#dims = dims;
    this.#flat = new Float32Array(BATCH_ROWS * dims);
    this.#vecType = new FixedSizeList(dims, new Field('item', this.#floatType, false));
    this.#schema = new Schema([new Field('record_id', new Utf8(), false), new Field('vector', this.#vecType, false)]);
    this.#struct = new Struct(this.#schema.fields);
    this.#sink = new ByteSink(consume);
    this.#writer.reset(this.#sink as never, this.#schema);
  }

  add(id: string, v: Float32Array): void {
    const n = this.#n;
    this.#flat.set(v, n * this.#dims);
    const start = this.#offsets[n]!;
    if (start + id.length * 3 > this.#idBytes.length) {
      const grown = Buffer.allocUnsafe(this.#idBytes.length * 2 + id.length * 3);
      this.#idBytes.copy(grown, 0, 0, start);
      this.#idBytes = grown;
    }
    this.#offsets[n + 1] = start + this.#idBytes.write(id, start, 'utf8');
    this.#n = n + 1;
    if (this.#n === BATCH_ROWS) this.#emit();
  }

  #emit(): void {
    const n = this.#n;
    const values = n === BATCH_ROWS ? this.#flat : this.#flat.subarray(0, n * this.#dims);
    const child = makeData({ type: this.#floatType, length: n * this.#dims, nullCount: 0, data: values });
    const vec = makeData({ type: this.#vecType, length: n, nullCount: 0, child });
    const ids = makeData({ type: this.#utf8, length: n, nullCount: 0, valueOffsets: this.#offsets.subarray(0, n + 1), data: this.#idBytes.subarray(0, this.#offsets[n]) });
    const data = makeData({ type: this.#struct, length: n, nullCount: 0, children: [ids, vec] });
    this.#writer.write(new RecordBatch(this.#schema, data));
    this.rows += n;
    this.#n = 0;
  }

  /** Emits the last batch and the footer; returns the file size. */
  end(): number {
    if (this.#n > 0) this.#emit();
    this.#writer.finish();
    return this.#sink.size;
  }
}

export interface BaselineOptions {
  readonly corpus: CorpusSpec;
  readonly outDir: string;
  readonly level?: number;
}

/** The floor run (see the module comment). Returns the digest of every payload file. */
export async function runBaseline(o: BaselineOptions) {
  const level = o.level ?? 6;
  ensureDir(o.outDir);
  const jsonl = {
    chunk: new JsonlSink(join(o.outDir, 'chunks.jsonl.deflate'), level),
    event: new JsonlSink(join(o.outDir, 'events.jsonl.deflate'), level),
    entity: new JsonlSink(join(o.outDir, 'entities.jsonl.deflate'), level),
    chunkEvent: new JsonlSink(join(o.outDir, 'chunk-events.jsonl.deflate'), level),
    eventEntity: new JsonlSink(join(o.outDir, 'event-entities.jsonl.deflate'), level),
  };
  const docs = new DocumentSink(join(o.outDir, 'documents.deflate'), level);
  const dims = o.corpus.dimensions ?? DIMENSIONS;
  const arrowFiles = {
    chunks: hashToFile(join(o.outDir, 'chunks.arrow')),
    events: hashToFile(join(o.outDir, 'events.arrow')),
    entities: hashToFile(join(o.outDir, 'entities.arrow')),
  };
  const arrow: Record<Target, ArrowSink> = {
    chunks: new ArrowSink(arrowFiles.chunks.consume, dims),
    events: new ArrowSink(arrowFiles.events.consume, dims),
    entities: new ArrowSink(arrowFiles.entities.consume, dims),
  };
  const sinks = Object.values(jsonl);
  const sink: CorpusSink = {
    document: (d) => docs.add(d.path, d.markdown),
    chunk: (r) => jsonl.chunk.append(JSON.stringify(r)),
    event: (r) => jsonl.event.append(JSON.stringify(r)),
    entity: (r) => jsonl.entity.append(JSON.stringify(r)),
    chunkEvent: (l) => jsonl.chunkEvent.append(JSON.stringify(l)),
    eventEntity: (l) => jsonl.eventEntity.append(JSON.stringify(l)),
    vector: (t, id, v) => arrow[t].add(id, v),
    endDocument: async () => {
      await docs.drain();
      for (const s of sinks) if (s.deflate.writableNeedDrain) await s.drain();
    },
  };
  const counts = await generateCorpus(o.corpus, sink);

  // vectors/config.json: same bytes as the SDK writes (tiny).
  const config = prepareVectorConfig({ ...vectorConfig(dims) });
  const files: Record<string, { size: number; sha256: string; compressed?: number }> = {
    'vectors/config.json': {
      size: config.bytes.length,
      sha256: createHash('sha256').update(config.bytes).digest('hex'),
      compressed: deflateRawSync(config.bytes, { level }).length,
    },
  };
  for (const [k, s] of Object.entries(jsonl)) files[STRUCTURE_FILES[k as keyof typeof STRUCTURE_FILES]] = await s.end();
  for (const [t, a] of Object.entries(arrow)) {
    const size = a.end();
    files[ARROW_FILES[t as Target]] = { size, sha256: arrowFiles[t as Target].end() };
  }
  await docs.end();
  let payloadBytes = docs.bytes;
  for (const f of Object.values(files)) payloadBytes += f.size;
  return {
    counts,
    files,
    documents: { count: docs.digests.length, bytes: docs.bytes, compressed: docs.compressed, digestOfDigests: digestOfDigests(docs.digests) },
    payloadBytes,
    compressedBytes: docs.compressed + Object.values(files).reduce((n, f) => n + (f.compressed ?? f.size), 0),
  };
}

/** Generation only: the records are produced and dropped. */
export async function runGenerationOnly(corpus: CorpusSpec) {
  let checksum = 0;
  const noop = (): void => undefined;
  const counts = await generateCorpus(corpus, {
    document: (d) => void (checksum += d.markdown.length),
    chunk: (r) => void (checksum += r.text.length),
    event: noop,
    entity: noop,
    chunkEvent: noop,
    eventEntity: noop,
    vector: (_t, _id, v) => void (checksum += v[0]!),
  });
  return { counts, checksum };
}

if (isMain(import.meta.url)) {
  const args = parseArgs(process.argv.slice(2));
  const size = parseSize(args.get('size'));
  const seed = Number(args.get('seed') ?? 1);
  const corpus = corpusSpec(size, seed, args.has('chunks') ? Number(args.get('chunks')) : undefined);
  const mode = args.get('mode') ?? 'baseline';
  if (mode === 'gen') {
    await measure('gen', size, seed, async () => {
      const r = await runGenerationOnly(corpus);
      return { records: recordCount(r.counts), payloadBytes: 0, extra: { counts: r.counts } };
    });
  } else {
    const outDir = args.get('out');
    if (!outDir) throw new Error('--out DIR is required');
    const level = Number(args.get('level') ?? 6);
    await measure('baseline', size, seed, async () => {
      const r = await runBaseline({ corpus, outDir, level });
      return {
        records: recordCount(r.counts),
        payloadBytes: r.payloadBytes,
        extra: { counts: r.counts, files: r.files, documents: r.documents, compressedBytes: r.compressedBytes },
      };
    });
  }
}
