/**
 * One export, from the builder's frozen snapshot to a published package: the builder stays the
 * fluent collector and hands this module what it collected (`Collected`, taken synchronously when
 * `export()` was called), its own settings, and — when it keeps a producer state — what the
 * export needs of the release bookkeeping ({@link ReleaseKeeper}). Here the consumer profile's
 * scan, the planner and the caller-digest checks decide, then the writer writes, verifies and
 * publishes, and the report is assembled.
 */
import { OctxError, type OctxIssue } from '../model/errors.js';
import type { ArchiveLimits } from '../model/limits.js';
import type { ProgressEvent } from '../model/progress.js';
import { consumerProfile, type ConsumerName } from '../consumers/index.js';
import { AtomicOutput } from '../package/atomic-output.js';
import { computeContentDigest, type DerivedFrom, type Manifest } from '../package/manifest.js';
import type { Collected } from '../plan/collected.js';
import { scanForConsumer } from '../plan/consumer-scan.js';
import { checkCallerDigests, checkDigestTemplates } from '../plan/input-digest-check.js';
import { planExport } from '../plan/planner.js';
import type { Degradation, ExportReport } from '../plan/report.js';
import type { PackageChangeCounts } from '../read/diff/change-counts.js';
import { writePackage } from './package-writer.js';

/** What `export()` returns. */
export interface ExportResult {
  /** Absolute path of the written `.octx`. */
  readonly output: string;
  readonly assetId: string;
  readonly version: string;
  /** `sha256:<hex>` package digest. */
  readonly packageDigest: string;
  /** The manifest as written. */
  readonly manifest: Manifest;
  /**
   * True when anything that was added is left out of the package (an incomplete structure layer,
   * a vector target missing some records' vectors, …); `degradations` says what and why. Pass
   * `strict: true` to make that an error instead. Same as `report.degraded`.
   */
  readonly degraded: boolean;
  /** What was left out, why, how many records cause it and the first of them (`report.degradations`). */
  readonly degradations: readonly Degradation[];
  /**
   * What went in, what was left out and why; with `export({ previous })`, `changes` holds the
   * counts of what changed since that package (see `diffPackages`).
   */
  readonly report: ExportReport & { readonly changes?: PackageChangeCounts };
}

/** The export options, checked and with their defaults (`resolveExportOptions` of the builder). */
export interface ResolvedExportOptions {
  readonly output: string;
  readonly overwrite: boolean;
  readonly documentsOnly: boolean;
  readonly structure: 'auto' | 'require';
  /** Absent: the builder's level. */
  readonly compressionLevel?: number;
  readonly onProgress?: (event: ProgressEvent) => void;
  readonly signal?: AbortSignal;
  readonly limits: ArchiveLimits;
  readonly verify: 'full' | 'integrity';
  /** The caller's limits as given (passed on to verification). */
  readonly customLimits?: Partial<ArchiveLimits>;
  /** Absent: the builder's consumer. */
  readonly consumer?: ConsumerName;
  /** Absent: the consumer's vector policy. */
  readonly vectors?: 'keep' | 'omit';
  /** Absent: the builder's `strict`. */
  readonly strict?: boolean;
}

/** What the builder was made with that the export uses. */
export interface ExportProducer {
  readonly assetId: string;
  readonly assetName: string;
  readonly derivedFrom?: DerivedFrom;
  /** The release version asked for (else the release keeper's, or `1.0.0`). */
  readonly version?: string;
  /** The release time asked for (else the release keeper's, or now). */
  readonly createdAt?: string;
  /** The builder's defaults of what an export may override. */
  readonly consumer?: ConsumerName;
  readonly strict: boolean;
  readonly compressionLevel: number;
  /** The producer's release bookkeeping, when it keeps one. */
  readonly releases?: ReleaseKeeper;
  /**
   * Called once the plan is accepted, before the first byte is written: from then on the
   * builder's input is consumed, whether the export succeeds or not.
   */
  readonly onCommit: () => void;
}

/** A release as it is recorded before the package is published. */
export interface RecordedRelease {
  readonly version: string;
  readonly createdAt: string;
  readonly packageDigest: string;
  readonly contentDigest: string;
  /** Where the package is published (a staging file when it goes to stdout). */
  readonly outputPath: string;
  /** Document path → `octx.document_id`, of every Concept Document of the package. */
  readonly documents: Readonly<Record<string, string>>;
}

/**
 * What the export needs of the producer's release bookkeeping (the builder's `ProducerState`):
 * `export/` does not know the state file, only these steps, which run in this order under the
 * lock.
 */
export interface ReleaseKeeper {
  /** Takes the producer's lock (a lock left by a killed export is taken over: `onWarning`); resolves with its release. */
  lock(onWarning: (warning: OctxIssue) => void): Promise<() => Promise<void>>;
  /** The version and creation time of the release with this content (an identical rebuild keeps its release). */
  resolveRelease(requested: { version?: string; createdAt?: string }, contentDigest: string, now: string): { version: string; createdAt: string };
  /** Refuses, before any byte is written, a release the bookkeeping contradicts. */
  assertPublishable(version: string, packageDigest: string, contentDigest: string): void;
  /** Records the release, before the package is published. */
  recordRelease(release: RecordedRelease): Promise<void>;
  /** Puts back what {@link recordRelease} changed (publishing failed); nothing when it did not run. */
  undoRelease(): Promise<void>;
}

/**
 * Plans, writes, verifies and atomically publishes the package of `collected`. A refusal before
 * {@link ExportProducer.onCommit} leaves the builder usable; the output is never left half
 * written, and the release keeper's changes are undone when publishing fails.
 * @throws OctxError see `PackageBuilder.export`
 */
export async function exportCollected(collected: Collected, opts: ResolvedExportOptions, producer: ExportProducer): Promise<ExportResult> {
  const output = await AtomicOutput.prepare(opts.output, opts.overwrite);
  const keeper = producer.releases;
  // A lock left by a killed export is taken over; that is reported as a warning.
  const lockWarnings: OctxIssue[] = [];
  const locked = keeper
    ? await keeper
        .lock((w) => lockWarnings.push(w))
        .catch(async (e: unknown) => {
          await output.discard();
          throw e;
        })
    : undefined;
  // Released once, before the output's folders are removed on failure: the lock file (and the
  // folders made for the state) would otherwise keep a shared new folder from being removed.
  let unlock = locked;
  const releaseLock = async (): Promise<void> => {
    const release = unlock;
    unlock = undefined;
    await release?.();
  };
  const timings: Record<string, number> = {};
  try {
    if (opts.signal?.aborted) throw new OctxError('OCTX_ABORTED', 'export cancelled before it started');
    let t = performance.now();
    // Planning reads the snapshot without closing the spills: if it refuses the input (invalid
    // structure, incomplete coverage under 'require', limits), the builder stays usable.
    const structureFiles = collected.structure.files;
    // The structure check is a step of its own only when there is structure to check.
    const structureRecords = Object.values(structureFiles).reduce((n, f) => n + f.lines, 0);
    const structureBytes = Object.values(structureFiles).reduce((n, f) => n + f.size, 0);
    const planStep = (completed: number): void => {
      if (structureRecords > 0 && !opts.documentsOnly)
        opts.onProgress?.({ phase: 'plan', kind: 'structure', completed, total: structureRecords, bytes: completed === 0 ? 0 : structureBytes, totalBytes: structureBytes });
    };
    planStep(0);
    // A consumer profile's rules run over the spills before the planner decides (the seed profile has none).
    const profile = consumerProfile(opts.consumer ?? producer.consumer ?? 'seed');
    const consumer = profile.rules.length > 0 ? { consumer: await scanForConsumer(profile, collected, !opts.documentsOnly) } : {};
    const vectors = opts.vectors ?? (profile.vectors.policy === 'omit' ? 'omit' : undefined);
    const plan = planExport(collected, {
      documentsOnly: opts.documentsOnly,
      structure: opts.structure,
      limits: opts.limits,
      strict: opts.strict ?? producer.strict,
      // A taken-over lock is a warning like the planner's: strict refuses it before anything is written.
      warnings: lockWarnings,
      ...consumer,
      ...(vectors !== undefined ? { vectors } : {}),
    });
    // Caller-supplied input digests the validator would refuse: refused here, nothing written.
    checkDigestTemplates(collected, plan.arrowTargets);
    await checkCallerDigests(collected, plan.arrowTargets, opts.limits.maxRenderedInputBytes, opts.signal);
    planStep(structureRecords);
    const warnings = plan.warnings;
    for (const w of warnings) opts.onProgress?.({ phase: 'warning', issue: w });
    timings.plan = performance.now() - t;
    t = performance.now();
    producer.onCommit();
    const now = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
    const requested = { ...(producer.version ? { version: producer.version } : {}), ...(producer.createdAt ? { createdAt: producer.createdAt } : {}) };
    let release = { version: '', createdAt: '' };
    const written = await writePackage(
      plan,
      {
        assetId: producer.assetId,
        assetName: producer.assetName,
        ...(producer.derivedFrom ? { derivedFrom: producer.derivedFrom } : {}),
        release: (contentDigest) => {
          release = keeper ? keeper.resolveRelease(requested, contentDigest, now) : { version: requested.version ?? '1.0.0', createdAt: requested.createdAt ?? now };
          return release;
        },
      },
      {
        output,
        compressionLevel: opts.compressionLevel ?? producer.compressionLevel,
        verify: opts.verify,
        limits: opts.customLimits,
        signal: opts.signal,
        onProgress: opts.onProgress,
        ...(keeper
          ? {
              beforeWrite: (m: Manifest) => keeper.assertPublishable(release.version, m.release.package_digest, computeContentDigest(m)),
              // The release is recorded before the package is published (under the lock); if
              // publishing fails, the keeper puts back what it had.
              beforePublish: async (m: Manifest) =>
                keeper.recordRelease({
                  version: release.version,
                  createdAt: release.createdAt,
                  packageDigest: m.release.package_digest,
                  contentDigest: computeContentDigest(m),
                  outputPath: output.path,
                  documents: Object.fromEntries(collected.documents.filter((d) => d.documentId !== undefined).map((d) => [d.path, d.documentId!])),
                }),
            }
          : {}),
      },
    );
    const degradations = plan.degradations;
    const report: ExportReport = {
      degraded: degradations.length > 0,
      degradations,
      documents: plan.documents,
      structure: plan.structure,
      vectors: plan.vectors,
      capabilities: Object.keys(written.manifest.capabilities ?? {}),
      files: written.files,
      archive: { size: written.archiveSize },
      warnings,
      timings: { ...timings, ...written.timings, total: timings.plan + (performance.now() - t) },
    };
    return {
      output: output.path,
      assetId: producer.assetId,
      version: release.version,
      packageDigest: written.manifest.release.package_digest,
      manifest: written.manifest,
      degraded: report.degraded,
      degradations,
      report,
    };
  } catch (e) {
    try {
      await keeper?.undoRelease();
    } finally {
      await releaseLock();
      await output.discard();
    }
    throw e;
  } finally {
    await releaseLock();
  }
}
