import { deflateRawSync, crc32 } from 'node:zlib';
import type { ProgressEvent } from '../plan/report.js';
import { compareUtf8 } from '../model/paths.js';
import type { PayloadSource } from '../package/payload-source.js';
import pLimit, { type LimitFunction } from 'p-limit';
import { DEFAULT_COMPRESS_JOBS, type PayloadSpill, type SpilledEntry } from '../package/payload-spill.js';
import { ZipAssembler, type StreamTarget, type StreamedBytes, type ZipEntryData } from '../package/zip-assembler.js';

/**
 * Entries that deflate better than this are stored instead: real consumers refuse entries above
 * 200:1 (the reference's default limit), so we keep a 2× margin.
 */
export const MAX_DEFLATE_RATIO = 100;

/** A payload file to archive. */
export interface ArchivePayload {
  readonly path: string;
  readonly source: PayloadSource;
  readonly size: number;
}

/** What was written for one entry. */
export interface WrittenZipEntry {
  readonly name: string;
  readonly size: number;
  readonly compressedSize: number;
  readonly method: 'store' | 'deflate';
}

/** A stored payload whose bytes are produced straight into the archive: an Arrow file. */
export interface StreamedPayload {
  readonly path: string;
  /** An upper bound of its size: decides the ZIP64 fields before the bytes exist. */
  readonly sizeBound: number;
  /** Writes the bytes at `target` (the archive's descriptor and position), hashing them as it goes. */
  readonly write: (target: StreamTarget) => Promise<StreamedFile>;
}

/** What a streamed payload reports once written. */
export interface StreamedFile extends StreamedBytes {
  /** Lower-case hex SHA-256 of the bytes. */
  readonly sha256: string;
}

/** A streamed payload as written: its path, size and digest (what the manifest lists). */
export interface WrittenStreamed {
  readonly path: string;
  readonly size: number;
  readonly sha256: string;
}

/**
 * The bytes of `manifest.json`, or how to make them once the streamed payloads are written and
 * their digests known.
 */
export type ManifestSource = Buffer | ((streamed: readonly WrittenStreamed[]) => Buffer | Promise<Buffer>);

/** Options of {@link writeArchive}. */
export interface WriteArchiveOptions {
  /** zlib level for text entries; 0 stores every entry. */
  readonly level: number;
  /**
   * The readers' `limits.maxCompressionRatio`: an entry that would deflate beyond it (or beyond
   * {@link MAX_DEFLATE_RATIO}, whichever is lower) is stored, so the package stays readable with
   * those limits. Default: the reference's 200.
   */
  readonly maxCompressionRatio?: number;
  /** Write ZIP64 extra fields on every entry (default: only where needed). */
  readonly forceZip64?: boolean;
  /** Payloads written straight into the archive (stored), before the others. */
  readonly streamed?: readonly StreamedPayload[];
  /** Receives `vectors` (the streamed payloads), `compress` and `zip` durations (ms). */
  readonly timings?: Record<string, number>;
  readonly signal?: AbortSignal;
  readonly onProgress?: (event: ProgressEvent) => void;
}

/**
 * Writes an `.octx` archive with the SDK's entry policy. Physically: the streamed payloads (the
 * Arrow files, produced into the archive so that they are written once), then the other payloads
 * in UTF-8 byte order of their paths, then `manifest.json`, last because it lists the digests of
 * everything before it. The central directory lists `manifest.json` first, then every payload in
 * UTF-8 path order (entry order is not normative; readers go by the central directory).
 * `.arrow` is stored (float data barely compresses and consumers read it faster stored); other
 * entries are deflated, unless deflate would not make them smaller or would exceed
 * {@link MAX_DEFLATE_RATIO} or the readers' `maxCompressionRatio` (then stored). The decision
 * depends only on the bytes and that ratio, so identical input gives identical archives.
 *
 * Collected payloads arrive as spilled entries whose blocks were mostly compressed while the
 * caller was adding records; the rest are compressed here, in parallel, before a single
 * sequential pass writes them.
 */
export async function writeArchive(path: string, manifest: ManifestSource, payloads: readonly ArchivePayload[], options: WriteArchiveOptions): Promise<WrittenZipEntry[]> {
  const streamed = [...(options.streamed ?? [])].sort((a, b) => compareUtf8(a.path, b.path));
  const sorted = [...payloads].sort((a, b) => compareUtf8(a.path, b.path));
  const level = options.level;
  const zip = await ZipAssembler.create(path, {
    ...(options.forceZip64 !== undefined ? { forceZip64: options.forceZip64 } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  // What the background left to compress (the last blocks, the JSONL tails) is compressed on the
  // pool while the Arrow files are written: that phase keeps the main thread busy and leaves the
  // other core mostly idle, so the compress step after it has little or nothing left. Two jobs
  // at a time while the Arrow writes need pool threads too, the usual four once they are done.
  // Quiet: its progress is reported as the compress step below, which then finds nothing left.
  // Its own signal stops it when the export fails meanwhile (no waiting for the rest of it).
  let early: Promise<void> | undefined;
  const earlyLimit = pLimit(EARLY_COMPRESS_JOBS);
  const earlyStop = new AbortController();
  const stopEarly = (): void => earlyStop.abort();
  options.signal?.addEventListener('abort', stopEarly);
  if (options.signal?.aborted) stopEarly();
  if (level > 0 && streamed.length > 0) {
    early = compressSpilled(sorted, level, earlyStop.signal, undefined, earlyLimit);
    early.catch(() => undefined); // awaited below, or settled in `finally`
  }
  try {
    let t = performance.now();
    const writtenStreamed: WrittenStreamed[] = [];
    for (const s of streamed) {
      let file: StreamedFile | undefined;
      await zip.addStreamed(s.path, s.sizeBound, async (target) => (file = await s.write(target)));
      writtenStreamed.push({ path: s.path, size: file!.size, sha256: file!.sha256 });
    }
    if (options.timings) options.timings.vectors = performance.now() - t;
    const manifestBytes = typeof manifest === 'function' ? await manifest(writtenStreamed) : manifest;

    t = performance.now();
    const rest: ArchivePayload[] = [...sorted, { path: 'manifest.json', source: { bytes: manifestBytes }, size: manifestBytes.length }];
    // Its failure (a spill read error, an abort) is the export's.
    earlyLimit.concurrency = DEFAULT_COMPRESS_JOBS;
    await early;
    if (level > 0) await compressSpilled(rest, level, options.signal, options.onProgress);
    if (options.timings) options.timings.compress = performance.now() - t;
    t = performance.now();
    const maxRatio = Math.min(MAX_DEFLATE_RATIO, options.maxCompressionRatio ?? MAX_DEFLATE_RATIO);
    const entries = rest.map((p) => entryData(p, level, maxRatio));
    const totalBytes = entries.reduce((n, e) => n + e.compressedSize, 0);
    let bytes = 0;
    options.onProgress?.({ phase: 'write', kind: 'entry', completed: 0, total: entries.length, bytes, totalBytes });
    for (const [index, entry] of entries.entries()) {
      await zip.add(entry);
      bytes += entry.compressedSize;
      options.onProgress?.({ phase: 'write', kind: 'entry', completed: index + 1, total: entries.length, bytes, totalBytes });
    }
    const listed = ['manifest.json', ...[...sorted.map((p) => p.path), ...streamed.map((s) => s.path)].sort(compareUtf8)];
    await zip.finish(listed);
    if (options.timings) options.timings.zip = performance.now() - t;
    const byName = new Map(zip.entries.map((e) => [e.name, e]));
    return listed.map((name) => {
      const e = byName.get(name)!;
      return { name, size: e.size, compressedSize: e.compressedSize, method: e.method };
    });
  } finally {
    // No compression job outlives the call (the caller removes the spills next); after a failure
    // the jobs not started yet are dropped.
    earlyStop.abort();
    options.signal?.removeEventListener('abort', stopEarly);
    await early?.catch(() => undefined);
    await zip.close();
  }
}

/** Pool jobs of the compression that runs beside the Arrow writing (see {@link writeArchive}). */
const EARLY_COMPRESS_JOBS = 2;

/**
 * Finishes the compression of every spilled payload, one spill at a time, blocks in parallel.
 * Reported as the `compress` step (entries and their bytes) when there is anything to compress.
 */
async function compressSpilled(
  payloads: readonly ArchivePayload[],
  level: number,
  signal: AbortSignal | undefined,
  onProgress: ((event: ProgressEvent) => void) | undefined,
  limit?: LimitFunction,
): Promise<void> {
  const bySpill = new Map<PayloadSpill, SpilledEntry[]>();
  for (const p of payloads) {
    if (!('spilled' in p.source) || isStoredByPath(p.path)) continue;
    const entry = p.source.spilled;
    const list = bySpill.get(entry.spill) ?? [];
    list.push(entry);
    bySpill.set(entry.spill, list);
  }
  const total = [...bySpill.values()].reduce((n, l) => n + l.length, 0);
  if (total === 0) return;
  const totalBytes = [...bySpill.values()].reduce((n, l) => n + l.reduce((m, e) => m + e.size, 0), 0);
  let completed = 0;
  let bytes = 0;
  onProgress?.({ phase: 'compress', kind: 'entries', completed, total, bytes, totalBytes });
  for (const [spill, entries] of bySpill) {
    await spill.compress(entries, level, { ...(signal ? { signal } : {}), ...(limit ? { limit } : {}) });
    completed += entries.length;
    bytes += entries.reduce((m, e) => m + e.size, 0);
    onProgress?.({ phase: 'compress', kind: 'entries', completed, total, bytes, totalBytes });
  }
}

function isStoredByPath(path: string): boolean {
  return path.endsWith('.arrow');
}

/** Chooses the method from the compressed size and says where the bytes are. */
function entryData(p: ArchivePayload, level: number, maxRatio: number): ZipEntryData {
  const source = p.source;
  const deflatable = level > 0 && !isStoredByPath(p.path);
  if ('bytes' in source) {
    const crc = crc32(source.bytes);
    const deflated = deflatable ? deflateRawSync(source.bytes, { level }) : undefined;
    if (deflated && worthDeflating(p.size, deflated.length, maxRatio)) {
      return { name: p.path, method: 'deflate', crc32: crc, size: p.size, compressedSize: deflated.length, segments: [{ bytes: deflated }] };
    }
    return { name: p.path, method: 'store', crc32: crc, size: p.size, compressedSize: p.size, segments: [{ bytes: source.bytes }] };
  }
  if ('copied' in source) {
    // Compressed already (and checked by whoever copied it): written as it is, whatever `level`,
    // so its bytes are the source archive's.
    const c = source.copied;
    return {
      name: p.path,
      method: 'deflate',
      crc32: c.crc32,
      size: c.size,
      compressedSize: c.compressedSize,
      segments: [{ file: c.file, offset: c.offset, length: c.compressedSize }],
    };
  }
  if ('spilled' in source) {
    const entry = source.spilled;
    const deflatedSize = deflatable ? entry.spill.deflatedSize(entry, level) : undefined;
    const method = deflatedSize !== undefined && worthDeflating(entry.size, deflatedSize, maxRatio) ? 'deflate' : 'store';
    return {
      name: p.path,
      method,
      crc32: entry.crc32,
      size: entry.size,
      compressedSize: method === 'deflate' ? deflatedSize! : entry.size,
      segments: entry.spill.segments(entry, method, level),
    };
  }
  return {
    name: p.path,
    method: 'store',
    crc32: source.crc32,
    size: p.size,
    compressedSize: p.size,
    segments: p.size === 0 ? [] : [{ file: source.file, offset: 0, length: p.size }],
  };
}

/** Deflate must save bytes and stay within the ratio consumers accept (a ratio of 1 or less stores all). */
function worthDeflating(size: number, compressedSize: number, maxRatio: number): boolean {
  return compressedSize < size && size / compressedSize <= maxRatio;
}
