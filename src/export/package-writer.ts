import { stat } from 'node:fs/promises';
import { OctxError } from '../model/errors.js';
import type { ExportPlan, PlannedArrowTarget, PlannedFile } from '../plan/planner.js';
import type { ProgressEvent, ReportFile } from '../plan/report.js';
import { verifyArchive, type VerifyMode } from './verify-archive.js';
import { VerifyWorker, othersBusyCores, sampleCpu, verifyWorkerFor } from './verify-thread.js';
import type { AtomicOutput } from '../package/atomic-output.js';
import { buildManifest, computeContentDigest, manifestBytes, type DerivedFrom, type Manifest } from '../package/manifest.js';
import type { ArchiveLimits } from '../model/limits.js';
import { writeArchive, type StreamedPayload, type WrittenStreamed } from './archive-writer.js';
import { arrowFileSize } from '../vectors/arrow-file-size.js';
import { loadArrowWriter } from '../vectors/arrow-writer-loader.js';

/** Identity and release data the manifest needs. */
export interface PackageIdentity {
  readonly assetId: string;
  readonly assetName: string;
  readonly derivedFrom?: DerivedFrom;
  /**
   * Chooses the release version and time once the content is known (release protection needs
   * the content digest: an unchanged rebuild keeps its version and time).
   */
  readonly release: (contentDigest: string) => { readonly version: string; readonly createdAt: string };
}

/** Options of {@link writePackage}. */
export interface WritePackageOptions {
  readonly output: AtomicOutput;
  readonly compressionLevel: number;
  readonly signal?: AbortSignal;
  readonly onProgress?: (event: ProgressEvent) => void;
  /**
   * Called once the manifest is known: after the Arrow files are written into the temporary
   * archive (the manifest lists their digests), before the other entries. Throwing aborts the
   * export and removes the temporary file.
   */
  readonly beforeWrite?: (manifest: Manifest) => void | Promise<void>;
  /** Last step before publishing (record the release); throwing aborts and removes the file. */
  readonly beforePublish?: (manifest: Manifest) => void | Promise<void>;
  /** How the written archive is checked before publishing (default `integrity`). */
  readonly verify?: VerifyMode;
  /** Limits the written package must fit; verification applies them too. */
  readonly limits?: Partial<ArchiveLimits>;
}

/** What {@link writePackage} produced. */
export interface WrittenPackage {
  readonly manifest: Manifest;
  readonly files: readonly ReportFile[];
  readonly archiveSize: number;
  readonly timings: Readonly<Record<string, number>>;
}

function throwIfAborted(signal: AbortSignal | undefined, phase: string): void {
  if (signal?.aborted) throw new OctxError('OCTX_ABORTED', `export cancelled during ${phase}`);
}

/**
 * Writes a plan's bytes: writes the Arrow targets straight into the archive (in the output's
 * temporary file), finishes compressing the collected text and writes it, then the manifest
 * (built once every digest is known) and the central directory (see {@link writeArchive} for the
 * entry order); verifies the archive (re-reading every entry, re-hashing it and recomputing the
 * digest; with `verify: 'full'` the whole validator), and publishes it atomically. Nothing is
 * left behind on failure.
 */
export async function writePackage(plan: ExportPlan, identity: PackageIdentity, options: WritePackageOptions): Promise<WrittenPackage> {
  const timings: Record<string, number> = {};
  // What other processes use of the machine while this export runs decides the verify worker.
  const cpuAtStart = sampleCpu();
  const files: PlannedFile[] = [...plan.files];
  let worker: VerifyWorker | undefined;
  try {
    throwIfAborted(options.signal, 'vectors');
    const verifyMode = options.verify ?? 'integrity';
    // The verify worker loads while the archive is written (the main thread waits on I/O there).
    const plannedBytes = files.reduce((n, f) => n + f.size, 0) + plan.arrowTargets.reduce((n, t) => n + t.rows.length * t.spill.dimensions * 4, 0);
    if (verifyMode === 'integrity' && verifyWorkerFor(plannedBytes, othersBusyCores(cpuAtStart))) worker = VerifyWorker.start();

    let manifest: Manifest | undefined;
    const makeManifest = async (streamed: readonly WrittenStreamed[]): Promise<Buffer> => {
      const all = [...files.map((f) => ({ path: f.path, sha256: f.sha256 })), ...streamed.map((f) => ({ path: f.path, sha256: f.sha256 }))];
      const content = {
        assetId: identity.assetId,
        assetName: identity.assetName,
        ...(identity.derivedFrom ? { derivedFrom: identity.derivedFrom } : {}),
        capabilities: plan.capabilities,
        files: all,
      };
      // The content digest ignores the release part, so a placeholder release is fine here.
      const contentDigest = computeContentDigest(buildManifest({ ...content, version: '0.0.0', createdAt: '1970-01-01T00:00:00Z' }));
      manifest = buildManifest({ ...content, ...identity.release(contentDigest) });
      await options.beforeWrite?.(manifest);
      return manifestBytes(manifest);
    };
    const written = await writeArchive(options.output.tempPath, makeManifest, files, {
      level: options.compressionLevel,
      ...(options.limits?.maxCompressionRatio !== undefined ? { maxCompressionRatio: options.limits.maxCompressionRatio } : {}),
      streamed: plan.arrowTargets.map((target) => arrowPayload(target, options)),
      timings,
      signal: options.signal,
      onProgress: options.onProgress,
    });
    const published = manifest!;

    // The writeback of the temporary file overlaps its verification; commit() fsyncs again.
    options.output.startFlush();
    throwIfAborted(options.signal, 'verify');
    const verifyStarted = performance.now();
    // Decided above (null: no worker), not again on the archive's size by verifyArchive.
    const handed = worker ?? null;
    worker = undefined;
    await verifyArchive(options.output.tempPath, published.release.package_digest, verifyMode, options.limits, options.signal, options.onProgress, handed);
    timings.verify = performance.now() - verifyStarted;

    throwIfAborted(options.signal, 'publish');
    await options.beforePublish?.(published);
    const size = (await stat(options.output.tempPath)).size;
    options.onProgress?.({ phase: 'fsync', kind: 'package', completed: 0, total: 1, bytes: 0, totalBytes: size });
    await options.output.commit();
    // Published: nothing can take that back, so a listener that throws now (an add from
    // onProgress refused with OCTX_BUILDER_BUSY, say) must not turn the export into a failure.
    try {
      options.onProgress?.({ phase: 'fsync', kind: 'package', completed: 1, total: 1, bytes: size, totalBytes: size });
    } catch {
      // ignored: see above
    }
    const byName = new Map(written.map((w) => [w.name, w]));
    const reportFiles: ReportFile[] = published.files.map(({ path, sha256 }) => {
      const w = byName.get(path)!;
      return { path, size: w.size, sha256, compressedSize: w.compressedSize, method: w.method };
    });
    const archiveSize = (await stat(options.output.path)).size;
    return { manifest: published, files: reportFiles, archiveSize, timings };
  } catch (e) {
    await worker?.terminate();
    await options.output.discard();
    throw e;
  }
}

/**
 * A vector target as a streamed payload: its Arrow bytes are produced straight into the archive
 * (no temporary file, no copy), hashed as they are written.
 */
function arrowPayload(target: PlannedArrowTarget, options: WritePackageOptions): StreamedPayload {
  const rows = target.rows.length;
  // UTF-8 takes at most 3 bytes per UTF-16 unit: a bound that needs no id to be encoded.
  let idUnits = 0;
  for (const dense of target.rows) idUnits += target.ids(dense).length;
  return {
    path: target.path,
    sizeBound: arrowFileSize({ rows, dimensions: target.spill.dimensions, idBytes: { atMost: idUnits * 3 }, digests: target.spill.hasInputSha256 }),
    write: async (into) => {
      throwIfAborted(options.signal, 'vectors');
      options.onProgress?.({ phase: 'arrow', kind: target.target, completed: 0, total: rows, bytes: 0 });
      function* refs(): Generator<{ recordIndex: number; id: string }> {
        for (const dense of target.rows) yield { recordIndex: dense, id: target.ids(dense) };
      }
      // apache-arrow (~20 MiB of RSS once loaded) only when a package has vectors.
      const { writeArrowTarget } = await loadArrowWriter();
      const { sha256, size, crc32 } = await writeArrowTarget({ spill: target.spill, rows: refs(), into: { ...into, path: options.output.tempPath }, signal: options.signal });
      options.onProgress?.({ phase: 'arrow', kind: target.target, completed: rows, total: rows, bytes: size, totalBytes: size });
      return { sha256, size, crc32 };
    },
  };
}
