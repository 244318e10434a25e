/**
 * The bytes floor of issue 23: what the payload bytes themselves cost, one thread.
 *
 *   node --expose-gc --import tsx bench/bytes-floor.ts --size W --seed 1 [--level 6]
 *
 * The same records as every other mode (bench/corpus.ts), serialised to exactly the bytes the
 * exporter writes by the baseline's code (JSON.stringify in the SDK's field order, the same
 * Markdown, Arrow IPC built by the baseline's ArrowSink), so the run checks the same digests as
 * the baseline. Only the floor work is timed, with SectionClock around each synchronous call:
 * - SHA-256 of every payload byte (documents, JSONL, Arrow, vectors/config.json);
 * - raw deflate at the exporter's level of every non-Arrow byte, on the main thread
 *   (`deflateRawSync`): each document on its own (one ZIP entry each), each JSONL file as
 *   ~1 MiB pieces, each piece primed with the previous piece's last 32 KiB and sync-flushed,
 *   which is one continuous deflate stream's work (the SDK deflates in the same blocks).
 * Generating and serialising the records is not timed (the exporter's share of those is part of
 * what the floor is compared with). The result's wall/CPU are the timed sections' sums; the whole
 * child's are in `extra.envelope`.
 */
import { createHash, type Hash } from 'node:crypto';
import { constants, deflateRawSync } from 'node:zlib';
import { prepareVectorConfig } from 'octx-export';
import { ARROW_FILES, ArrowSink, FLUSH_AT, STRUCTURE_FILES } from './baseline.js';
import { corpusSpec, digestOfDigests, isMain, measure, parseArgs, parseSize, SectionClock } from './common.js';
import { DIMENSIONS, generateCorpus, recordCount, vectorConfig, type CorpusSink, type CorpusSpec, type Target } from './corpus.js';

/** DEFLATE's window: the history a piece may refer back to. */
const WINDOW = 32 * 1024;

interface FileFloor {
  size: number;
  sha256: string;
  compressed?: number;
}

/** One JSONL file: lines gathered into ~1 MiB pieces (untimed), each hashed and deflated (timed). */
class JsonlFloor {
  readonly #hash: Hash = createHash('sha256');
  #pending: string[] = [];
  #pendingLength = 0;
  #tail: Buffer | undefined;
  bytes = 0;
  compressed = 0;

  constructor(
    readonly clock: SectionClock,
    readonly level: number,
  ) {}

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
    const dictionary = this.#tail;
    this.compressed += this.clock.time(() => {
      this.#hash.update(buf);
      return deflateRawSync(buf, { level: this.level, finishFlush: constants.Z_SYNC_FLUSH, ...(dictionary ? { dictionary } : {}) }).length;
    });
    this.bytes += buf.length;
    this.#tail = buf.subarray(Math.max(0, buf.length - WINDOW));
  }

  end(): FileFloor {
    this.flush();
    return { size: this.bytes, sha256: this.#hash.digest('hex'), compressed: this.compressed };
  }
}

/** The bytes floor run (see the module comment). */
export async function runBytesFloor(o: { readonly corpus: CorpusSpec; readonly level?: number }) {
  const level = o.level ?? 6;
  const clock = new SectionClock();
  const jsonl = {
    chunk: new JsonlFloor(clock, level),
    event: new JsonlFloor(clock, level),
    entity: new JsonlFloor(clock, level),
    chunkEvent: new JsonlFloor(clock, level),
    eventEntity: new JsonlFloor(clock, level),
  };
  const docDigests: [string, string][] = [];
  let docBytes = 0;
  let docCompressed = 0;
  const dims = o.corpus.dimensions ?? DIMENSIONS;
  const arrowHash: Record<Target, Hash> = { chunks: createHash('sha256'), events: createHash('sha256'), entities: createHash('sha256') };
  const hashing = (t: Target) => (bytes: Uint8Array) => clock.time(() => arrowHash[t].update(bytes));
  const arrow: Record<Target, ArrowSink> = {
    chunks: new ArrowSink(hashing('chunks'), dims),
    events: new ArrowSink(hashing('events'), dims),
    entities: new ArrowSink(hashing('entities'), dims),
  };
  const sink: CorpusSink = {
    document: (d) => {
      const buf = Buffer.from(d.markdown, 'utf8');
      const [sha256, compressed] = clock.time(() => [createHash('sha256').update(buf).digest('hex'), deflateRawSync(buf, { level }).length] as const);
      docDigests.push([`knowledge/${d.path}`, sha256]);
      docBytes += buf.length;
      docCompressed += compressed;
    },
    chunk: (r) => jsonl.chunk.append(JSON.stringify(r)),
    event: (r) => jsonl.event.append(JSON.stringify(r)),
    entity: (r) => jsonl.entity.append(JSON.stringify(r)),
    chunkEvent: (l) => jsonl.chunkEvent.append(JSON.stringify(l)),
    eventEntity: (l) => jsonl.eventEntity.append(JSON.stringify(l)),
    vector: (t, id, v) => arrow[t].add(id, v),
  };
  const counts = await generateCorpus(o.corpus, sink);

  const config = prepareVectorConfig({ ...vectorConfig(dims) });
  const files: Record<string, FileFloor> = {
    'vectors/config.json': clock.time(() => ({
      size: config.bytes.length,
      sha256: createHash('sha256').update(config.bytes).digest('hex'),
      compressed: deflateRawSync(config.bytes, { level }).length,
    })),
  };
  for (const [k, s] of Object.entries(jsonl)) files[STRUCTURE_FILES[k as keyof typeof STRUCTURE_FILES]] = s.end();
  for (const t of Object.keys(arrow) as Target[]) {
    const size = arrow[t].end();
    files[ARROW_FILES[t]] = { size, sha256: arrowHash[t].digest('hex') };
  }
  const fileBytes = Object.values(files).reduce((n, f) => n + f.size, 0);
  const arrowBytes = Object.values(ARROW_FILES).reduce((n, p) => n + files[p]!.size, 0);
  return {
    counts,
    files,
    documents: { count: docDigests.length, bytes: docBytes, compressed: docCompressed, digestOfDigests: digestOfDigests(docDigests) },
    payloadBytes: docBytes + fileBytes,
    deflatedInputBytes: docBytes + fileBytes - arrowBytes,
    compressedBytes: docCompressed + Object.values(files).reduce((n, f) => n + (f.compressed ?? f.size), 0),
    section: clock.total,
  };
}

if (isMain(import.meta.url)) {
  const args = parseArgs(process.argv.slice(2));
  const size = parseSize(args.get('size'));
  const seed = Number(args.get('seed') ?? 1);
  const corpus = corpusSpec(size, seed, args.has('chunks') ? Number(args.get('chunks')) : undefined);
  const level = Number(args.get('level') ?? 6);
  await measure('bytes-floor', size, seed, async () => {
    const r = await runBytesFloor({ corpus, level });
    return {
      records: recordCount(r.counts),
      payloadBytes: r.payloadBytes,
      section: r.section,
      extra: { counts: r.counts, files: r.files, documents: r.documents, deflatedInputBytes: r.deflatedInputBytes, compressedBytes: r.compressedBytes },
    };
  });
}
