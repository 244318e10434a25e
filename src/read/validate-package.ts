/**
 * `validatePackage`: every rule of OCTX 0.1 (OCTX-REFERENCE §2–§10, SEED 001) in one pass over
 * the package, reported as data.
 *
 * Order of work, and why:
 * 1. the manifest alone (schema, declarations, package digest) — cheap, decides what follows;
 * 2. the inventory against the container (duplicates, payload kinds, undeclared standard paths,
 *    missing files, at least one concept);
 * 3. knowledge documents (read, hashed and parsed together, a few at a time, issues kept in
 *    manifest order) and the ids they introduce; other format-only files are hashed;
 * 4. capability files, each streamed **once**: hashed and parsed at the same time. A capability
 *    is only parsed when the format layer is valid so far; a file whose digest turns out wrong
 *    afterwards makes the format invalid, and then every recognised capability's results are
 *    replaced by `OCTX_CAPABILITY_FILE_UNTRUSTED` / `OCTX_CAPABILITY_DEPENDENCY_INVALID` —
 *    the same outcome as hashing everything first, without reading the big files twice.
 *    Structure files can be parsed and schema-checked on worker threads while this thread streams
 *    and hashes them (record-scan-pool.ts; off by default, see there), replayed here in file
 *    order so the report is the in-thread one; vector input digests are recomputed in the
 *    structure pass (input-digests.ts);
 * 5. the report: `valid` = format valid and no recognised capability invalid, `fullyValidated`
 *    = valid and every declared capability understood and checked.
 *
 * Container failures while reading (CRC mismatch, size lie, a file changed under a directory
 * package) stop everything and yield a one-issue report, like open failures: the content can no
 * longer be trusted. Ordinary problems are all collected.
 *
 * Each layer has its module, on the state one run shares (`validation-context.ts`): steps 1–2 in
 * `validate-manifest.ts`, 3 in `validate-documents.ts`, 4a in `validate-structure.ts`, 4b in
 * `validate-vectors.ts`; this module runs them in order and settles the report (step 5).
 */
import type { ProgressListener } from '../model/progress.js';
import { issue, OctxError } from '../model/errors.js';
import { STRUCTURE_PATHS, VECTOR_CONFIG_PATH } from '../model/paths.js';
import { resolveLimits, type ArchiveLimits } from '../model/limits.js';
import { checkManifest } from './manifest-rules.js';
import { openPackage, sourceOf, type OctxPackage } from './open-package.js';
import type { PackageSource } from './source.js';
import type { OctxIssue } from '../model/errors.js';
import { consumerProfile, type ConsumerName, type ConsumerProfile } from '../consumers/index.js';
import { checkPackageForConsumer, type ConsumerReport } from './consumer-check.js';
import { assertKnownKeys, keysOf } from '../model/option-keys.js';
import { ContainerFailure, FORMAT, SAG, VECTORS, ValidationContext } from './validation-context.js';
import { checkInventory, checkPackageDigest } from './validate-manifest.js';
import { hashFormatOnlyFiles, readDocuments } from './validate-documents.js';
import { StructureValidation } from './validate-structure.js';
import { TARGETS, checkVectors } from './validate-vectors.js';
import type { ValidationSink } from './validation-sink.js';

/** Options of {@link validatePackage}. */
export interface ValidateOptions {
  /** Resource limits (merged over the package's limits when a package is passed). */
  readonly limits?: Partial<ArchiveLimits>;
  /** Issues kept in the report; default `limits.maxIssues` (1000). */
  readonly maxIssues?: number;
  /**
   * Also check what one consumer accepts beyond the format (`sag-1.7`): the report gets a
   * `consumer` section. Default: none (`seed` adds an empty section). See docs/consumers.md.
   */
  readonly consumer?: ConsumerName;
  /**
   * Progress of the checks that read the package: `validate documents`, `validate files`
   * (extension and other format-only files), `validate structure`, `validate vectors`, each with
   * counts and bytes; a step that does not apply (no structure declared, say) is not reported.
   */
  readonly onProgress?: ProgressListener;
}

/** Result of one layer. */
export interface LayerResult {
  /** `true` valid, `false` invalid, `null` not understood (unsupported capability). */
  readonly valid: boolean | null;
  /** The kept issues of this layer (a subsequence of `ValidationReport.issues`). */
  readonly issues: OctxIssue[];
}

/** What {@link validatePackage} found. */
export interface ValidationReport {
  /** The format layer is valid and no recognised capability is invalid. */
  readonly valid: boolean;
  /** `valid`, and every declared capability was understood and fully checked. */
  readonly fullyValidated: boolean;
  /** The OCTX format layer (container, manifest, inventory, digests, documents). */
  readonly format: { readonly valid: boolean; readonly issues: OctxIssue[] };
  /** One entry per declared capability. */
  readonly capabilities: Record<string, LayerResult>;
  /** All kept issues, in the order they were found (capped at `maxIssues`). */
  readonly issues: OctxIssue[];
  /** Issues found but not kept because of `maxIssues` (each layer keeps the first error of every code). */
  readonly droppedIssues: number;
  /** The package digest computed from the manifest, when it could be computed. */
  readonly packageDigest?: string;
  /** The parsed manifest, when it could be read. */
  readonly manifest?: unknown;
  /** With `options.consumer`: what that consumer would make of the package (it does not change `valid`). */
  readonly consumer?: ConsumerReport;
}

/** Every key of {@link ValidateOptions}: another one is a misspelling, refused. */
const VALIDATE_OPTION_KEYS = keysOf<ValidateOptions>({ limits: true, maxIssues: true, consumer: true, onProgress: true });

function failureReport(e: OctxError, manifest?: unknown): ValidationReport {
  const one = e.issues[0] ?? issue({ code: e.code, message: e.message });
  return {
    valid: false,
    fullyValidated: false,
    format: { valid: false, issues: [one] },
    capabilities: {},
    issues: [one],
    droppedIssues: 0,
    ...(manifest === undefined ? {} : { manifest }),
  };
}

/**
 * Validates a package (a path to a `.octx` file or package folder, or an open package, which is
 * left open). Never throws for problems of the package: open failures become a one-issue
 * invalid report.
 * @throws OctxError `OCTX_OPTIONS_INVALID` for bad options
 */
export async function validatePackage(target: string | OctxPackage, options: ValidateOptions = {}): Promise<ValidationReport> {
  return validate(target, options, undefined);
}

/**
 * {@link validatePackage} of an open package that also hands `sink` every structure record and
 * vector batch it decodes, so a caller that needs the content reads the package once. The sink
 * receives them before the verdict: keep nothing of a package the report calls invalid.
 * @throws OctxError `OCTX_OPTIONS_INVALID` for bad options
 * @internal
 */
export async function validateCollecting(pkg: OctxPackage, sink: ValidationSink, options: ValidateOptions = {}): Promise<ValidationReport> {
  return validate(pkg, options, sink);
}

async function validate(target: string | OctxPackage, options: ValidateOptions, sink: ValidationSink | undefined): Promise<ValidationReport> {
  if (typeof target !== 'string' && (target === null || typeof target !== 'object')) {
    throw OctxError.of({ code: 'OCTX_OPTIONS_INVALID', field: 'target', message: 'validatePackage needs a path or a package returned by openPackage' });
  }
  assertKnownKeys(options, VALIDATE_OPTION_KEYS, 'validatePackage options');
  const owned = typeof target === 'string';
  // A package object is checked before it is read (new String(path) is not a path).
  if (!owned) sourceOf(target);
  const limits = owned ? resolveLimits(options.limits) : resolveLimits({ ...target.limits, ...(options.limits ?? {}) });
  const maxIssues = options.maxIssues ?? limits.maxIssues;
  if (!Number.isSafeInteger(maxIssues) || maxIssues < 1) {
    throw OctxError.of({ code: 'OCTX_OPTIONS_INVALID', field: 'maxIssues', message: `maxIssues must be a positive integer (got ${String(maxIssues)})` });
  }
  if (options.onProgress !== undefined && typeof options.onProgress !== 'function') {
    throw OctxError.of({ code: 'OCTX_OPTIONS_INVALID', field: 'onProgress', message: `onProgress must be a function (got ${typeof options.onProgress})` });
  }
  const profile = options.consumer === undefined ? undefined : consumerProfile(options.consumer);
  let pkg: OctxPackage;
  if (typeof target === 'string') {
    try {
      pkg = await openPackage(target, { limits });
    } catch (e) {
      if (e instanceof OctxError) return withConsumer(failureReport(e), profile);
      throw e;
    }
  } else pkg = target;
  try {
    const report = await new Validator(pkg, sourceOf(pkg), limits, maxIssues, options.onProgress, sink).run();
    if (!profile) return report;
    const consumer = await checkPackageForConsumer(pkg, profile, {
      valid: report.valid,
      structureValid: report.capabilities[SAG]?.valid === true,
      vectorsDeclared: report.capabilities[VECTORS] !== undefined,
    });
    return { ...report, consumer };
  } catch (e) {
    if (e instanceof ContainerFailure) return withConsumer(failureReport(e.error, pkg.manifest), profile);
    throw e;
  } finally {
    if (owned) await pkg.close();
  }
}

/** A failure report's consumer section: not checked. */
function withConsumer(report: ValidationReport, profile: ConsumerProfile | undefined): ValidationReport {
  if (!profile) return report;
  return {
    ...report,
    consumer: {
      name: profile.name,
      compatible: null,
      issues: [issue({ code: 'OCTX_CONSUMER_INCOMPATIBLE', message: `${profile.name}: not checked, the package could not be read` })],
    },
  };
}

/**
 * One validation run: the manifest, then the layers in order (see the module comment), then the
 * capabilities settled against the format layer and the report.
 */
class Validator {
  private readonly ctx: ValidationContext;

  constructor(pkg: OctxPackage, source: PackageSource, limits: ArchiveLimits, maxIssues: number, onProgress?: ProgressListener, sink?: ValidationSink) {
    this.ctx = new ValidationContext(pkg, source, limits, maxIssues, onProgress, sink);
  }

  async run(): Promise<ValidationReport> {
    const ctx = this.ctx;
    ctx.issues.touch(FORMAT);
    const m = ctx.pkg.manifest as Record<string, unknown>;
    const mc = checkManifest(m);
    for (const i of mc.formatIssues) ctx.add(FORMAT, i);
    if (mc.versionUnsupported) return this.report();
    for (const d of mc.declarations) {
      ctx.declarations.set(d.name, d);
      ctx.issues.touch(d.name);
      for (const i of d.issues) ctx.add(d.name, i);
    }
    checkPackageDigest(ctx, m);
    checkInventory(ctx, m);
    const structure = new StructureValidation(ctx);
    try {
      await structure.startEarly();
      await readDocuments(ctx, m);
      await hashFormatOnlyFiles(ctx);
      await structure.check();
      await checkVectors(ctx);
    } finally {
      await structure.close();
    }
    this.settleCapabilities();
    return this.report();
  }

  /**
   * A capability counts only when the format layer is valid and its files are trusted. When the
   * format turned out invalid (possibly only after a capability file was parsed), the parse
   * results are replaced by the reason the capability cannot be trusted.
   */
  private settleCapabilities(): void {
    if (this.ctx.issues.errors(FORMAT) === 0) return;
    const filesOf: Record<string, readonly string[]> = { [SAG]: STRUCTURE_PATHS, [VECTORS]: [VECTOR_CONFIG_PATH, ...TARGETS.map((t) => t.path)] };
    for (const [name, d] of this.ctx.declarations) {
      if (d.status !== 'supported') continue;
      this.ctx.issues.reset(name);
      this.ctx.issues.touch(name);
      for (const i of this.ctx.listingIssues.get(name) ?? []) {
        if (i.code !== 'OCTX_CAPABILITY_DEPENDENCY_INVALID') this.ctx.add(name, i);
      }
      const untrusted = (filesOf[name] ?? []).filter((p) => {
        const s = this.ctx.state.get(p);
        return s === 'missing' || s === 'mismatch' || s === 'unverifiable';
      });
      for (const p of untrusted) {
        this.ctx.add(
          name,
          issue({ code: 'OCTX_CAPABILITY_FILE_UNTRUSTED', path: p, message: `${name}/0.1 was not checked: ${p} failed its integrity check (${this.ctx.state.get(p)})` }),
        );
      }
      if (untrusted.length === 0) {
        this.ctx.add(name, issue({ code: 'OCTX_CAPABILITY_DEPENDENCY_INVALID', message: `${name}/0.1 was not checked because the OCTX format layer is invalid` }));
      }
    }
  }

  private report(): ValidationReport {
    const collected = this.ctx.issues.collect();
    const formatValid = this.ctx.issues.errors(FORMAT) === 0;
    const capabilities: Record<string, LayerResult> = {};
    const layers: LayerResult[] = [];
    for (const [name, d] of this.ctx.declarations) {
      const valid = d.status === 'unsupported' ? null : this.ctx.issues.errors(name) === 0;
      const layer = { valid, issues: collected.byLayer.get(name) ?? [] };
      layers.push(layer);
      // Defined, not assigned: `capabilities.__proto__ = …` would set the prototype instead, and
      // the capability would vanish from the report (and from the fullyValidated verdict).
      Object.defineProperty(capabilities, name, { value: layer, enumerable: true, writable: true, configurable: true });
    }
    const valid = formatValid && layers.every((l) => l.valid !== false);
    return {
      valid,
      fullyValidated: valid && layers.every((l) => l.valid === true),
      format: { valid: formatValid, issues: collected.byLayer.get(FORMAT) ?? [] },
      capabilities,
      issues: collected.issues,
      droppedIssues: collected.dropped,
      ...(this.ctx.packageDigest === undefined ? {} : { packageDigest: this.ctx.packageDigest }),
      manifest: this.ctx.pkg.manifest,
    };
  }
}
