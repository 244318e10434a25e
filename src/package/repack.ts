import { OctxError } from '../model/errors.js';
import { openPackage, sourceOf } from '../read/open-package.js';
import type { ArchiveLimits } from '../read/limits.js';
import { validatePackage } from '../read/validate-package.js';
import { writeArchive } from './archive-writer.js';
import { AtomicOutput } from './atomic-output.js';

/** Options of {@link repackPackage}. */
export interface RepackOptions {
  /** Replace an existing output (default false). */
  readonly overwrite?: boolean;
  /** zlib level for text entries (default 6). */
  readonly compressionLevel?: number;
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
  const limits = options.limits ? { limits: options.limits } : {};
  const before = await validatePackage(source, limits);
  if (!before.format.valid || before.packageDigest === undefined) {
    throw OctxError.aggregate('OCTX_VALIDATION_ERROR', `${source} cannot be re-packaged losslessly: its format layer is invalid`, before.issues.filter((i) => i.severity === 'error'), before);
  }
  const out = await AtomicOutput.prepare(output, options.overwrite ?? false);
  const pkg = await openPackage(source, limits);
  try {
    const container = sourceOf(pkg);
    const listed = pkg.listedFiles();
    const listedPaths = new Set(listed.map((f) => f.path));
    const payloads = listed.map((f) => ({ path: f.path, size: container.size(f.path), source: { open: () => pkg.openFile(f.path) } }));
    await writeArchive(out.tempPath, pkg.manifestBytes, payloads, { level: options.compressionLevel ?? 6, ...(options.signal ? { signal: options.signal } : {}) });
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
    await pkg.close();
  }
}
