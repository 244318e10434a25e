import { OctxError } from '../model/errors.js';
import { resolveCompressionLevel } from '../package/compression-level.js';
import { openPackage } from '../read/open-package.js';
import type { ArchiveLimits } from '../model/limits.js';
import { validatePackage } from '../read/validate-package.js';
import { join } from 'node:path';
import { writeArchive, type ArchivePayload } from './archive-writer.js';
import { AtomicOutput } from '../package/atomic-output.js';
import { BackgroundDeflate } from '../package/background-deflate.js';
import { PayloadSpill } from '../package/payload-spill.js';
import { createSpillDir, removeSpillDir } from '../package/spill-dir.js';
import { assertKnownKeys, keysOf } from '../model/option-keys.js';

/** Options of {@link repackPackage}. */
export interface RepackOptions {
  /** Replace an existing output (default false). */
  readonly overwrite?: boolean;
  /** zlib level for text entries (default 6). */
  readonly compressionLevel?: number;
  /** Where entries are staged while they are compressed (default: the OS temp folder). */
  readonly tempDir?: string;
  /** Limits for reading the source. */
  readonly limits?: Partial<ArchiveLimits>;
  readonly signal?: AbortSignal;
}

/** What {@link repackPackage} wrote. */
export interface RepackResult {
  readonly output: string;
  /** The unchanged package digest. */
  readonly packageDigest: string;
  /** Listed files carried over. */
  readonly files: number;
  /** Container files that were not listed and were dropped (OCTX-REFERENCE §3.1). */
  readonly dropped: readonly string[];
}

/**
 * Re-packages an unchanged package losslessly (OCTX-REFERENCE §5.3, §12.5): `manifest.json` and
 * every listed file are copied byte for byte — unknown manifest fields and extension files
 * included — into a fresh archive with the SDK's entry policy, so the identity and the package
 * digest stay the same. Unlisted files are dropped. The source must have a valid format layer;
 * the result is validated and published atomically.
 * @throws OctxError `OCTX_VALIDATION_ERROR` (invalid source or result), `OCTX_OUTPUT_EXISTS`, …
 */
export async function repackPackage(source: string, output: string, options: RepackOptions = {}): Promise<RepackResult> {
  assertKnownKeys(options, keysOf<RepackOptions>({ overwrite: true, compressionLevel: true, tempDir: true, limits: true, signal: true }), 'repackPackage options');
  const level = resolveCompressionLevel(options.compressionLevel);
  const limits = options.limits ? { limits: options.limits } : {};
  const before = await validatePackage(source, limits);
  if (!before.format.valid || before.packageDigest === undefined) {
    throw OctxError.aggregate(
      'OCTX_VALIDATION_ERROR',
      `${source} cannot be re-packaged losslessly: its format layer is invalid`,
      before.issues.filter((i) => i.severity === 'error'),
      before,
    );
  }
  const out = await AtomicOutput.prepare(output, options.overwrite ?? false);
  let pkg;
  try {
    pkg = await openPackage(source, limits);
  } catch (e) {
    await out.discard();
    throw e;
  }
  const background = level > 0 ? new BackgroundDeflate({ level }) : undefined;
  let stage: string | undefined;
  let spill: PayloadSpill | undefined;
  try {
    try {
      stage = createSpillDir(options.tempDir);
      spill = new PayloadSpill({ rawFile: join(stage, 'payloads'), deflatedFile: join(stage, 'payloads.deflate'), background });
    } catch (e) {
      throw e instanceof OctxError ? e : new OctxError('OCTX_IO_ERROR', `cannot create a staging folder for the repack: ${(e as Error).message}`, { cause: e });
    }
    const listed = pkg.listedFiles();
    const listedPaths = new Set(listed.map((f) => f.path));
    // Each listed file is read once (the reader checks it against its digest) into the staging
    // spill, which hashes and compresses it on the way, like a builder's collected payloads.
    const payloads: ArchivePayload[] = [];
    for (const f of listed) {
      if (options.signal?.aborted) throw new OctxError('OCTX_ABORTED', 'repack cancelled');
      for await (const chunk of pkg.openFile(f.path)) spill.write(Buffer.from(chunk as Uint8Array));
      const entry = spill.endEntry();
      payloads.push({ path: f.path, size: entry.size, source: { spilled: entry } });
      await background?.drain();
    }
    const ratio = options.limits?.maxCompressionRatio;
    await writeArchive(out.tempPath, pkg.manifestBytes, payloads, { level, signal: options.signal, ...(ratio !== undefined ? { maxCompressionRatio: ratio } : {}) });
    const after = await validatePackage(out.tempPath);
    if (after.packageDigest !== before.packageDigest || after.valid !== before.valid) {
      throw OctxError.aggregate('OCTX_VALIDATION_ERROR', 'the re-packaged archive does not validate like its source; nothing was published:', after.issues, after);
    }
    await out.commit();
    return {
      output: out.path,
      packageDigest: before.packageDigest,
      files: listed.length,
      dropped: pkg.containerFiles().filter((n) => n !== 'manifest.json' && !listedPaths.has(n)),
    };
  } catch (e) {
    await out.discard();
    throw e;
  } finally {
    await background?.settle();
    spill?.close();
    if (stage !== undefined) await removeSpillDir(stage);
    await pkg.close();
  }
}
