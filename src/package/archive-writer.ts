import { rm } from 'node:fs/promises';
import type { ProgressEvent } from '../plan/report.js';
import { compareUtf8 } from './paths.js';
import { writeZip, type WrittenZipEntry, type ZipEntrySource, type ZipEntrySpec } from './zip-writer.js';

/**
 * Entries that deflate better than this are stored instead: real consumers refuse entries above
 * 200:1 (the reference's default limit), so we keep a 2× margin.
 */
export const MAX_DEFLATE_RATIO = 100;

/** A payload file to archive. */
export interface ArchivePayload {
  readonly path: string;
  readonly source: ZipEntrySource;
  readonly size: number;
}

/** Options of {@link writeArchive}. */
export interface WriteArchiveOptions {
  readonly level: number;
  readonly signal?: AbortSignal;
  readonly onProgress?: (event: ProgressEvent) => void;
}

class RatioExceeded extends Error {
  constructor(readonly entry: string) {
    super(`entry ${entry} deflates beyond ${MAX_DEFLATE_RATIO}:1`);
  }
}

/**
 * Writes an `.octx` archive with the SDK's entry policy: `manifest.json` first, then payloads in
 * UTF-8 byte order of their paths; `.arrow` stored (float data barely compresses and consumers
 * read it faster stored), other entries deflated — unless deflate would exceed
 * {@link MAX_DEFLATE_RATIO}, in which case the archive is rewritten with that entry stored. The
 * decision depends only on the bytes, so identical input still gives identical archives; the
 * rewrite only happens for pathological (very repetitive) entries.
 */
export async function writeArchive(path: string, manifest: Buffer, payloads: readonly ArchivePayload[], options: WriteArchiveOptions): Promise<WrittenZipEntry[]> {
  const sorted = [...payloads].sort((a, b) => compareUtf8(a.path, b.path));
  const forcedStore = new Set<string>();
  // Each retry stores one more entry, so this ends after at most one pass per entry.
  for (let attempt = 0; attempt <= payloads.length + 1; attempt++) {
    const entries: ZipEntrySpec[] = [
      { name: 'manifest.json', source: { bytes: manifest }, size: manifest.length, store: forcedStore.has('manifest.json') },
      ...sorted.map((f) => ({ name: f.path, source: f.source, size: f.size, store: f.path.endsWith('.arrow') || forcedStore.has(f.path) })),
    ];
    try {
      return await writeZip(path, entries, {
        level: options.level,
        ...(options.signal ? { signal: options.signal } : {}),
        onEntry: (w, index) => {
          if (w.method === 'deflate' && w.compressedSize > 0 && w.size / w.compressedSize > MAX_DEFLATE_RATIO) throw new RatioExceeded(w.name);
          options.onProgress?.({ phase: 'write', kind: 'entry', completed: index + 1, total: entries.length });
        },
      });
    } catch (e) {
      if (!(e instanceof RatioExceeded) || forcedStore.has(e.entry)) throw e;
      forcedStore.add(e.entry);
      await rm(path, { force: true });
    }
  }
  throw new Error('unreachable: every entry is stored after enough retries');
}
