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
 */
import type { ProgressListener } from '../model/progress.js';
import { createHash } from 'node:crypto';
import { issue, OctxError, type OctxIssue } from '../model/errors.js';
import type { OctxCode } from '../model/codes.js';
import { isUuidV7 } from '../model/ids.js';
import { computePackageDigest } from '../package/digest.js';
import { STRUCTURE_PATHS, VECTOR_CONFIG_PATH, VECTOR_TARGET_PATHS, isConceptPath, logicalPathProblem, payloadKind } from '../model/paths.js';
import { vectorConfigIssues } from '../vectors/config.js';
import { ByteBudget } from './byte-budget.js';
import { inOrder } from './in-order.js';
import { ConceptDocumentScanner, readKnowledgeDocument, type ConceptScan } from './documents.js';
import { IdKind, describeIdKind } from '../model/id-kind.js';
import { IdSpace } from './id-space.js';
import { IssueCollector } from './issues.js';
import { JsonlSplitter, parseJsonlRange, type JsonlLineCallback } from './jsonl.js';
import { resolveLimits, type ArchiveLimits } from '../model/limits.js';
import { checkManifest, type CapabilityDeclaration } from './manifest-rules.js';
import { openPackage, parseVectorConfigBytes, sourceOf, type OctxPackage } from './open-package.js';
import { RECORD_KINDS, RECORD_KIND_ORDER, type RecordKind, type RecordKindSpec } from '../model/record-kinds.js';
import { TARGET_ID_KIND, TARGET_RECORD_KIND, VECTOR_TARGETS, type VectorTarget } from '../vectors/targets.js';
import { inputDigestRecipe } from '../vectors/input-digest.js';
import type { InputTemplateRenderer } from '../vectors/template.js';
import type { PackageSource } from './source.js';
import { findUnsafeIntegerLiteral } from './strict-json.js';
import { StructureChecker, type ConceptDocumentRef } from './structure-check.js';
import { VectorTargetChecker } from './vectors-check.js';
import { InputDigests } from './input-digests.js';
import { fileToWorker, RecordScanPool, structureWorkersFor } from './record-scan-pool.js';
import { jsonlLineIssue, type RecordScan } from './record-scan.js';
import { consumerProfile, type ConsumerName, type ConsumerProfile } from '../consumers/index.js';
import { checkPackageForConsumer, type ConsumerReport } from './consumer-check.js';
import { assertKnownKeys, keysOf } from '../model/option-keys.js';

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
const FORMAT = 'format';
const SAG = 'sag-structured';
const VECTORS = 'vectors';
const DIGEST_PATTERN = /^sha256:[0-9a-f]{64}$/;
const FILE_SHA_PATTERN = /^[0-9a-f]{64}$/;
const VECTOR_PATHS: ReadonlySet<string> = new Set([VECTOR_CONFIG_PATH, ...Object.values(VECTOR_TARGET_PATHS)]);
const STRUCTURE_SET: ReadonlySet<string> = new Set(STRUCTURE_PATHS);
const TARGETS = VECTOR_TARGETS.map((target) => ({ target, path: VECTOR_TARGET_PATHS[target], kind: TARGET_ID_KIND[target], jsonl: RECORD_KINDS[TARGET_RECORD_KIND[target]].path }));

/** A failure of the container while content was being read: it ends the validation. */
class ContainerFailure extends Error {
  constructor(readonly error: OctxError) {
    super(error.message);
  }
}

function toOctxError(e: unknown): OctxError {
  if (e instanceof OctxError) return e;
  return OctxError.of({ code: 'OCTX_ARCHIVE_CORRUPT', message: `reading failed: ${e instanceof Error ? e.message : String(e)}` });
}

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
    const report = await new Validator(pkg, sourceOf(pkg), limits, maxIssues, options.onProgress).run();
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
 * Bytes of documents the validator holds at once (read ahead, or being parsed). A document
 * larger than this is read alone. Concept Documents cost only their kept frontmatter and stream
 * buffers; `index.md`/`log.md` are read whole.
 */
export const DOCUMENT_READ_BUDGET = 64 * 1024 * 1024;
/** What one streamed document holds besides its kept head: the verify and inflate buffers. */
const STREAM_BUFFER_BYTES = 2 * 1024 * 1024;

/** Largest vectors/config.json read before the structure pass (to recompute input digests there). */
const CONFIG_READ_AHEAD_BYTES = 1024 * 1024;

/** A structure file being scanned on a worker: its digest and scan, or `undefined` (check in-thread). */
type StructureJob = Promise<{ sha: string; scan: RecordScan } | undefined>;
/** Input digests to recompute in the structure pass, by record kind. */
type StructureInputs = StructureChecker['inputs'];

type FileState = 'ok' | 'missing' | 'mismatch' | 'unverifiable';

class Validator {
  private readonly issues: IssueCollector;
  private readonly ids = new IdSpace();
  /** Listed, safe, unique paths → expected SHA-256 (undefined when the listed value is malformed). */
  private readonly listed = new Map<string, string | undefined>();
  private readonly state = new Map<string, FileState>();
  private readonly concepts: ConceptDocumentRef[] = [];
  private readonly declarations = new Map<string, CapabilityDeclaration>();
  /** Manifest-level capability issues (file listing) that survive a later reset of the layer. */
  private readonly listingIssues = new Map<string, OctxIssue[]>();
  private packageDigest: string | undefined;

  constructor(
    private readonly pkg: OctxPackage,
    private readonly source: PackageSource,
    private readonly limits: ArchiveLimits,
    maxIssues: number,
    private readonly onProgress?: ProgressListener,
  ) {
    this.issues = new IssueCollector(maxIssues);
  }

  /** Reports one step of a check over `paths` (nothing when there are none): call with each path done. */
  private stepper(kind: string, paths: readonly string[]): (path?: string) => void {
    const on = this.onProgress;
    if (!on || paths.length === 0) return () => undefined;
    const size = (p: string): number => (this.source.has(p) ? this.source.size(p) : 0);
    const totalBytes = paths.reduce((n, p) => n + size(p), 0);
    let completed = 0;
    let bytes = 0;
    on({ phase: 'validate', kind, completed, total: paths.length, bytes, totalBytes });
    return (p) => {
      if (p === undefined) return;
      completed += 1;
      bytes += size(p);
      on({ phase: 'validate', kind, completed, total: paths.length, bytes, totalBytes });
    };
  }

  private add(layer: string, i: OctxIssue): void {
    this.issues.add(layer, i);
  }

  private format(code: OctxCode, message: string, path?: string, field?: string): void {
    this.add(FORMAT, issue({ code, message, ...(path === undefined ? {} : { path }), ...(field === undefined ? {} : { field }) }));
  }

  async run(): Promise<ValidationReport> {
    this.issues.touch(FORMAT);
    const m = this.pkg.manifest as Record<string, unknown>;
    const mc = checkManifest(m);
    for (const i of mc.formatIssues) this.add(FORMAT, i);
    if (mc.versionUnsupported) return this.report();
    for (const d of mc.declarations) {
      this.declarations.set(d.name, d);
      this.issues.touch(d.name);
      for (const i of d.issues) this.add(d.name, i);
    }
    this.checkDigest(m);
    this.checkInventory(m);
    try {
      await this.startStructureEarly();
      await this.readDocuments(m);
      await this.hashFormatOnlyFiles();
      await this.checkStructure();
      await this.checkVectors();
    } finally {
      await this.early?.pool.close();
    }
    this.settleCapabilities();
    return this.report();
  }

  // ── 1. package digest ──────────────────────────────────────────────────────────────────

  private checkDigest(m: Record<string, unknown>): void {
    const unsafe = findUnsafeIntegerLiteral(this.pkg.manifestBytes.toString('utf8'));
    if (unsafe !== undefined) {
      this.format(
        'OCTX_PACKAGE_DIGEST_INVALID',
        `the manifest holds the integer ${unsafe}, outside ±(2^53−1): its JCS form, and so the package digest, cannot be computed`,
        'manifest.json',
      );
      return;
    }
    try {
      this.packageDigest = computePackageDigest(m);
    } catch (e) {
      this.format('OCTX_PACKAGE_DIGEST_INVALID', `the package digest cannot be computed: ${(e as Error).message}`, 'manifest.json', 'release.package_digest');
      return;
    }
    const declared = (m.release as Record<string, unknown> | undefined)?.package_digest;
    if (typeof declared === 'string' && DIGEST_PATTERN.test(declared) && declared !== this.packageDigest) {
      this.format(
        'OCTX_PACKAGE_DIGEST_MISMATCH',
        `release.package_digest is ${declared}, but the manifest's digest is ${this.packageDigest}`,
        'manifest.json',
        'release.package_digest',
      );
    }
  }

  // ── 2. inventory ───────────────────────────────────────────────────────────────────────

  private checkInventory(m: Record<string, unknown>): void {
    const files = Array.isArray(m.files) ? (m.files as unknown[]) : [];
    const caps = m.capabilities !== null && typeof m.capabilities === 'object' && !Array.isArray(m.capabilities) ? (m.capabilities as Record<string, unknown>) : {};
    const declared = (name: string): boolean => Object.hasOwn(caps, name);
    const seen = new Set<string>();
    let concepts = 0;
    files.forEach((entry, i) => {
      if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) return;
      const e = entry as Record<string, unknown>;
      const path = e.path;
      if (typeof path !== 'string' || path.length === 0) return;
      const field = `files[${i}].path`;
      if (path === 'manifest.json') {
        this.format('OCTX_MANIFEST_SELF_LISTED', 'manifest.json must not be listed in files', 'manifest.json', field);
        return;
      }
      if (seen.has(path)) {
        this.format('OCTX_FILE_PATH_DUPLICATE', `${path} is listed more than once`, path, field);
        return;
      }
      seen.add(path);
      const problem = logicalPathProblem(path);
      if (problem !== undefined) {
        this.format('OCTX_PAYLOAD_PATH_UNSUPPORTED', `files[${i}].path is not a safe logical path: ${problem}`, undefined, field);
        return;
      }
      const kind = payloadKind(path);
      if (kind === undefined) {
        this.format(
          'OCTX_PAYLOAD_PATH_UNSUPPORTED',
          `${path} is not an allowed payload path (knowledge/**.md, a standard data/relations/vectors path, or extensions/<reverse.dns>/<major.minor>/…)`,
          path,
          field,
        );
      } else if (kind === 'structure' && !declared(SAG)) {
        this.format('OCTX_STANDARD_PATH_UNDECLARED', `${path} belongs to sag-structured/0.1, which the manifest does not declare`, path, field);
      } else if (kind === 'vectors' && !declared(VECTORS)) {
        this.format('OCTX_STANDARD_PATH_UNDECLARED', `${path} belongs to vectors/0.1, which the manifest does not declare`, path, field);
      }
      if (isConceptPath(path)) concepts += 1;
      const sha = typeof e.sha256 === 'string' && FILE_SHA_PATTERN.test(e.sha256) ? e.sha256 : undefined;
      this.listed.set(path, sha);
      if (!this.source.has(path)) {
        this.format('OCTX_FILE_MISSING', `${path} is listed but not in the package`, path, field);
        this.state.set(path, 'missing');
      } else if (sha === undefined) this.state.set(path, 'unverifiable');
    });
    if (concepts === 0)
      this.format('OCTX_CONCEPT_REQUIRED', 'files must list at least one Concept Document (knowledge/**.md other than index.md and log.md)', 'manifest.json', 'files');
  }

  /** Compares a computed digest with the listed one; records and reports a mismatch. */
  private settle(path: string, sha256: string): boolean {
    const expected = this.listed.get(path);
    // A malformed listed sha256 (already a schema error) leaves the bytes unverifiable.
    if (expected === undefined) return false;
    if (sha256 === expected) {
      this.state.set(path, 'ok');
      return true;
    }
    this.state.set(path, 'mismatch');
    this.format('OCTX_FILE_DIGEST_MISMATCH', `${path} has SHA-256 ${sha256}, but files[] lists ${expected}`, path);
    return false;
  }

  private present(path: string): boolean {
    return this.listed.has(path) && this.state.get(path) !== 'missing';
  }

  // ── 3. documents and other format-layer files ──────────────────────────────────────────

  private async readAll(path: string): Promise<Buffer> {
    try {
      return await this.source.readAll(path, this.limits.maxFileSize);
    } catch (e) {
      throw new ContainerFailure(toOctxError(e));
    }
  }

  /** Streams a Concept Document once: SHA-256 and the Concept rules, keeping only its frontmatter. */
  private async scanConcept(path: string): Promise<{ sha: string; scan: ConceptScan }> {
    const hash = createHash('sha256');
    const scanner = new ConceptDocumentScanner(path, this.limits.maxFrontmatterBytes, this.limits.maxFrontmatterNodes);
    try {
      for await (const chunk of this.source.open(path)) {
        hash.update(chunk as Buffer);
        scanner.push(chunk as Buffer);
      }
    } catch (e) {
      throw new ContainerFailure(toOctxError(e));
    }
    return { sha: hash.digest('hex'), scan: scanner.finish() };
  }

  private async readDocuments(m: Record<string, unknown>): Promise<void> {
    const asset = m.asset as Record<string, unknown> | undefined;
    if (asset && isUuidV7(asset.id)) this.ids.register(asset.id, IdKind.asset);
    const paths = [...this.listed.keys()].filter((p) => payloadKind(p) === 'knowledge' && this.present(p));
    const max = this.limits.maxFrontmatterBytes;
    // A Concept Document is streamed (its body is never held); index.md/log.md are read whole.
    const read = async (p: string): Promise<{ sha: string; scan: ConceptScan }> => {
      if (isConceptPath(p)) return this.scanConcept(p);
      const bytes = await this.readAll(p);
      const sha = createHash('sha256').update(bytes).digest('hex');
      const doc = readKnowledgeDocument(p, bytes, { maxFrontmatterBytes: max, maxFrontmatterNodes: this.limits.maxFrontmatterNodes });
      return { sha, scan: { issues: doc.issues } };
    };
    const cost = (p: string): number => {
      const size = this.source.size(p);
      return STREAM_BUFFER_BYTES + (isConceptPath(p) ? Math.min(size, max + 16) : 2 * size);
    };
    const step = this.stepper('documents', paths);
    for await (const [path, { sha, scan: doc }] of inOrder(paths, 8, read, { bytes: new ByteBudget(DOCUMENT_READ_BUDGET), cost })) {
      step(path);
      // A document whose bytes are not the listed ones is untrusted: its findings are dropped
      // (it was read in the same pass as its digest; the frontmatter limit bounds that work).
      if (!this.settle(path, sha)) continue;
      for (const i of doc.issues) this.add(FORMAT, i);
      if (doc.documentId === undefined) continue;
      const index = this.ids.register(doc.documentId, IdKind.document);
      if (index < 0) {
        const holder = IdSpace.kindOf(-1 - index);
        this.add(
          FORMAT,
          issue({
            code: 'OCTX_ID_DUPLICATE',
            path,
            field: 'octx.document_id',
            recordId: doc.documentId,
            message: `document_id ${doc.documentId} is already used by ${describeIdKind(holder)}; ids are unique across the asset, documents and records`,
          }),
        );
        continue;
      }
      this.concepts.push({ path, documentId: doc.documentId });
    }
  }

  /**
   * Streams a file through SHA-256 and returns the hex digest; with `each`, every chunk is also
   * handed on (awaited, for back-pressure: the worker scan). A read failure is the container's
   * (`ContainerFailure`).
   */
  private async hashFile(path: string, each?: (chunk: Buffer) => Promise<void>): Promise<string> {
    const hash = createHash('sha256');
    const it = this.source.open(path)[Symbol.asyncIterator]();
    for (;;) {
      let r: IteratorResult<Buffer>;
      try {
        r = (await it.next()) as IteratorResult<Buffer>;
      } catch (e) {
        throw new ContainerFailure(toOctxError(e));
      }
      if (r.done) break;
      hash.update(r.value);
      if (each) await each(r.value);
    }
    return hash.digest('hex');
  }

  private async hashFormatOnlyFiles(): Promise<void> {
    const paths = [...this.listed.keys()].filter((p) => this.present(p) && payloadKind(p) !== 'knowledge' && !STRUCTURE_SET.has(p) && !VECTOR_PATHS.has(p));
    const step = this.stepper('files', paths);
    for await (const [path, sha] of inOrder(paths, 4, (p) => this.hashFile(p))) {
      this.settle(path, sha);
      step(path);
    }
  }

  private async hashOnly(paths: readonly string[]): Promise<void> {
    for (const p of paths) if (this.present(p)) this.settle(p, await this.hashFile(p));
  }

  // ── 4a. sag-structured ─────────────────────────────────────────────────────────────────

  private supported(name: string): boolean {
    return this.declarations.get(name)?.status === 'supported';
  }

  private listing(layer: string, i: OctxIssue): void {
    this.add(layer, i);
    const list = this.listingIssues.get(layer) ?? [];
    list.push(i);
    this.listingIssues.set(layer, list);
  }

  private structure: StructureChecker | undefined;

  private async checkStructure(): Promise<void> {
    const sag = this.supported(SAG);
    if (sag) {
      for (const p of STRUCTURE_PATHS) {
        if (!this.listed.has(p)) {
          this.listing(
            SAG,
            issue({ code: 'OCTX_CAPABILITY_FILE_REQUIRED', path: p, message: `sag-structured/0.1 requires ${p} to be listed in files (all five structure files form one unit)` }),
          );
        }
      }
    }
    const formatValid = this.issues.errors(FORMAT) === 0;
    const early = this.early;
    if (!sag || !formatValid || this.issues.errors(SAG) > 0) {
      for (const kind of RECORD_KIND_ORDER) {
        const p = RECORD_KINDS[kind].path;
        if (!this.present(p)) continue;
        // Files already streamed to workers were hashed then: only the parse is thrown away.
        const done = await early?.jobs.get(kind);
        this.settle(p, done ? done.sha : await this.hashFile(p));
      }
      return;
    }
    const checker = new StructureChecker(this.ids, this.concepts, (i) => this.add(SAG, i));
    if (early?.failure) throw early.failure;
    if (early) checker.inputs = early.inputs;
    else await this.planInputDigests(checker.inputs);
    // Records before relations (a relation names records), and the event hierarchy is resolved
    // once every event is read.
    let relations = false;
    const step = this.stepper('structure', STRUCTURE_PATHS);
    // Large files are parsed and schema-checked on workers while this thread streams and hashes
    // them; the results are replayed here in file order (the same issues in the same order).
    const pool = early ? early.pool : this.structurePool();
    const jobs = early ? early.jobs : pool ? this.startJobs(pool, checker.inputs) : new Map<RecordKind, StructureJob>();
    try {
      for (const kind of RECORD_KIND_ORDER) {
        const spec: RecordKindSpec = RECORD_KINDS[kind];
        if (spec.role === 'relation' && !relations) {
          relations = true;
          checker.beginRelations();
        }
        const done = await jobs.get(kind);
        if (done) {
          if (spec.role === 'record') this.ids.reserve(Math.min(this.limits.maxJsonlRecords, done.scan.count));
          checker.replay(kind, spec.path, done.scan);
          this.settle(spec.path, done.sha);
        } else await this.scanJsonl(spec.path, kind, checker);
        step(spec.path);
        checker.finishKind(kind);
      }
    } finally {
      await pool?.close();
    }
    checker.finish();
    this.structure = checker;
  }

  /** Structure work started on workers before the documents phase (see startStructureEarly). */
  private early: { pool: RecordScanPool; jobs: Map<RecordKind, StructureJob>; inputs: StructureInputs; failure?: ContainerFailure } | undefined;

  private structureSize(p: string): number {
    return this.source.has(p) ? this.source.size(p) : 0;
  }

  /** A worker pool when the structure files are large enough for workers (see record-scan-pool.ts). */
  private structurePool(): RecordScanPool | undefined {
    const total = STRUCTURE_PATHS.reduce((n, p) => n + this.structureSize(p), 0);
    return structureWorkersFor(total) ? RecordScanPool.create(STRUCTURE_PATHS.length) : undefined;
  }

  /** Starts a worker job for each structure file that goes to a worker. */
  private startJobs(pool: RecordScanPool, inputs: StructureInputs): Map<RecordKind, StructureJob> {
    const jobs = new Map<RecordKind, StructureJob>();
    for (const kind of RECORD_KIND_ORDER) {
      const path = RECORD_KINDS[kind].path;
      // A record whose input digest is recomputed needs its text: checked in-thread.
      const needsText = inputs[kind] !== undefined;
      if (needsText || !fileToWorker(this.structureSize(path))) continue;
      const job = this.scanJsonlOnWorker(pool, path, kind);
      job.catch(() => undefined); // awaited in file order
      jobs.set(kind, job);
    }
    return jobs;
  }

  /**
   * With workers, starts streaming the structure files to them before the documents are read,
   * so that their parsing overlaps the documents' work. Results are only used if the structure
   * is then checked; otherwise only the digests computed while streaming are. Failures of the
   * container are met in file order when the results are awaited, as without workers.
   */
  private async startStructureEarly(): Promise<void> {
    if (!this.supported(SAG) || !STRUCTURE_PATHS.every((p) => this.present(p) && this.source.has(p))) return;
    const pool = this.structurePool();
    if (!pool) return;
    const inputs: StructureInputs = {};
    try {
      await this.planInputDigests(inputs);
    } catch (e) {
      if (!(e instanceof ContainerFailure)) throw e;
      // Reported where the config is read without workers (after the documents).
      this.early = { pool, jobs: new Map(), inputs, failure: e };
      return;
    }
    this.early = { pool, jobs: this.startJobs(pool, inputs), inputs };
  }

  /**
   * Streams one JSONL file to a worker while hashing it here; `undefined` when the worker did not
   * start (the file is then checked in-thread, nothing of it having been read).
   */
  private async scanJsonlOnWorker(pool: RecordScanPool, path: string, kind: RecordKind): Promise<{ sha: string; scan: RecordScan } | undefined> {
    const job = pool.start({ kind, path, maxLineSize: this.limits.maxJsonlLineSize, maxLines: this.limits.maxJsonlRecords, maxDepth: this.limits.maxJsonDepth });
    if (!(await job.started)) return undefined;
    const sha = await this.hashFile(path, (chunk) => job.send(chunk));
    return { sha, scan: await job.end() };
  }

  /** vectors/config.json, when it was read before the structure pass (it is read once). */
  private configBytes: Buffer | undefined;
  /** Input digests recomputed during the structure pass, by vector target. */
  private readonly inputDigests = new Map<VectorTarget, InputDigests>();

  /**
   * When the vector config declares input digests this library recomputes, hashes each target
   * record's rendered input in the structure pass ({@link InputDigests}), so the vectors check
   * does not stream and parse the JSONL again. Only a config that is listed, small, and matches
   * its listed digest is used; anything else leaves the later checks to find (and report) the
   * problem, and the digests are then recomputed the old way if still needed.
   */
  private async planInputDigests(inputs: StructureInputs): Promise<void> {
    if (!this.supported(VECTORS) || !this.present(VECTOR_CONFIG_PATH) || !this.source.has(VECTOR_CONFIG_PATH)) return;
    if (this.source.size(VECTOR_CONFIG_PATH) > CONFIG_READ_AHEAD_BYTES) return;
    const targets = TARGETS.filter((t) => this.listed.has(t.path));
    if (targets.length === 0) return;
    const bytes = await this.readAll(VECTOR_CONFIG_PATH);
    this.configBytes = bytes;
    if (createHash('sha256').update(bytes).digest('hex') !== this.listed.get(VECTOR_CONFIG_PATH)) return;
    let config: Record<string, unknown>;
    try {
      config = parseVectorConfigBytes(bytes, this.limits.maxJsonDepth);
    } catch (e) {
      if (e instanceof OctxError) return;
      throw e;
    }
    for (const t of targets) {
      const recipe = inputDigestRecipe(config, t.target, this.limits.maxRenderedInputBytes);
      if (recipe === undefined || !('render' in recipe)) continue;
      const digests = new InputDigests(recipe.render);
      this.inputDigests.set(t.target, digests);
      inputs[TARGET_RECORD_KIND[t.target]] = digests;
    }
  }

  /** Streams one JSONL file once: SHA-256 and record checks together. */
  private async scanJsonl(path: string, kind: RecordKind, checker: StructureChecker): Promise<void> {
    const hash = createHash('sha256');
    const splitter = new JsonlSplitter({ maxLineSize: this.limits.maxJsonlLineSize, maxLines: this.limits.maxJsonlRecords, path });
    const maxDepth = this.limits.maxJsonDepth;
    let parsing = true;
    const onLine: JsonlLineCallback = (buf, start, end, line, ascii) => {
      const p = parseJsonlRange(buf, start, end, line, ascii, maxDepth);
      const unparsed = jsonlLineIssue(p, kind, path, line);
      if (unparsed !== undefined || !p.ok) {
        if (unparsed !== undefined) this.add(SAG, unparsed);
        return;
      }
      checker.record(kind, p.record, path, line);
    };
    const feed = (step: () => void): void => {
      if (!parsing) return;
      try {
        step();
      } catch (e) {
        if (!(e instanceof OctxError) || e.code !== 'OCTX_RESOURCE_LIMIT') throw e;
        // Stop parsing, keep hashing: the digest check still needs every byte.
        this.add(SAG, e.issues[0]!);
        parsing = false;
        checker.incomplete = true;
      }
    };
    const it = this.source.open(path)[Symbol.asyncIterator]();
    let first = true;
    for (;;) {
      let r: IteratorResult<Buffer>;
      try {
        r = (await it.next()) as IteratorResult<Buffer>;
      } catch (e) {
        throw new ContainerFailure(toOctxError(e));
      }
      if (r.done) break;
      const chunk = r.value;
      hash.update(chunk);
      feed(() => splitter.push(chunk, onLine));
      if (first && splitter.lines > 0 && RECORD_KINDS[kind].role === 'record') {
        // Size the id table once from the first chunk's average line length, instead of
        // rehashing it at every doubling while a large file streams in.
        this.ids.reserve(Math.min(this.limits.maxJsonlRecords, Math.ceil((this.source.size(path) / chunk.length) * splitter.lines * 1.05)));
      }
      first = false;
    }
    feed(() => splitter.end(onLine));
    this.settle(path, hash.digest('hex'));
  }

  // ── 4b. vectors ────────────────────────────────────────────────────────────────────────

  private async checkVectors(): Promise<void> {
    const vectorFiles = [VECTOR_CONFIG_PATH, ...TARGETS.map((t) => t.path)];
    if (!this.supported(VECTORS)) {
      await this.hashOnly(vectorFiles);
      return;
    }
    if (!this.listed.has(VECTOR_CONFIG_PATH)) {
      this.listing(VECTORS, issue({ code: 'OCTX_VECTOR_CONFIG_REQUIRED', path: VECTOR_CONFIG_PATH, message: 'vectors/0.1 is declared but vectors/config.json is not listed' }));
    }
    const targets = TARGETS.filter((t) => this.listed.has(t.path));
    if (targets.length === 0) {
      this.listing(
        VECTORS,
        issue({ code: 'OCTX_VECTOR_TARGET_REQUIRED', message: 'vectors/0.1 is declared but none of vectors/chunks.arrow, vectors/events.arrow, vectors/entities.arrow is listed' }),
      );
    }
    const formatValid = this.issues.errors(FORMAT) === 0;
    const sagValid = this.supported(SAG) && this.structure !== undefined && this.issues.errors(SAG) === 0;
    if (formatValid && !sagValid) {
      this.listing(
        VECTORS,
        issue({
          code: 'OCTX_CAPABILITY_DEPENDENCY_INVALID',
          message: this.declarations.has(SAG)
            ? 'vectors/0.1 was not checked: it needs a valid sag-structured/0.1, and that capability is invalid or unsupported'
            : 'vectors/0.1 was not checked: it needs sag-structured/0.1, which is not declared',
        }),
      );
    }
    if (!formatValid || !sagValid || this.issues.errors(VECTORS) > 0) {
      await this.hashOnly(vectorFiles);
      return;
    }

    let dimensions: number | undefined;
    let config: Record<string, unknown> | undefined;
    const configBytes = this.configBytes ?? (await this.readAll(VECTOR_CONFIG_PATH));
    this.configBytes = undefined;
    if (this.settle(VECTOR_CONFIG_PATH, createHash('sha256').update(configBytes).digest('hex'))) {
      try {
        config = parseVectorConfigBytes(configBytes, this.limits.maxJsonDepth);
        for (const i of vectorConfigIssues(config, VECTOR_CONFIG_PATH)) this.add(VECTORS, i);
        const d = config.dimensions;
        if (typeof d === 'number' && Number.isInteger(d) && d >= 1) dimensions = d;
      } catch (e) {
        if (!(e instanceof OctxError)) throw e;
        this.add(VECTORS, e.issues[0]!);
      }
    }
    const step = this.stepper(
      'vectors',
      targets.map((t) => t.path),
    );
    for (const t of targets) {
      await this.scanArrow(t, dimensions, config);
      step(t.path);
    }
  }

  /**
   * The renderer that recomputes a target's input digests: only when the config declares the
   * recipe this library knows (`input_hash`) and has an `input_template`. Without them an
   * `input_sha256` column is checked for form only; with them, a template that cannot be used for
   * the target is an `OCTX_VECTOR_CONFIG_INVALID` issue (the layer is invalid: its digests claim
   * a check nobody can make), never a silent fall back to form only.
   */
  private inputRenderer(config: Record<string, unknown> | undefined, target: VectorTarget): InputTemplateRenderer | undefined {
    const recipe = inputDigestRecipe(config, target, this.limits.maxRenderedInputBytes);
    if (recipe === undefined) return undefined;
    if ('render' in recipe) return recipe.render;
    const why = recipe.invalid.issues[0];
    this.add(
      VECTORS,
      issue({
        code: 'OCTX_VECTOR_CONFIG_INVALID',
        path: VECTOR_CONFIG_PATH,
        field: why?.field ?? 'input_template',
        message: `the config declares input_hash but its input_template cannot be used for ${target}, so the input_sha256 of ${VECTOR_TARGET_PATHS[target]} cannot be checked: ${why?.message ?? recipe.invalid.message}`,
      }),
    );
    return undefined;
  }

  /**
   * Streams one Arrow target once: SHA-256 and all vector checks together; then, when it
   * carries `input_sha256` and the config allows recomputing it, compares each digest with the
   * one recomputed from the record's rendered text in the structure pass.
   */
  private async scanArrow(t: (typeof TARGETS)[number], dimensions: number | undefined, config: Record<string, unknown> | undefined): Promise<void> {
    const { path, kind, jsonl } = t;
    // apache-arrow (~20 MiB of RSS once loaded) only when a package has vectors to check.
    const { ByteReader, readArrowVectorBatches, tailOf } = await import('./arrow-file.js');
    const hash = createHash('sha256');
    const it = this.source.open(path)[Symbol.asyncIterator]();
    let failure: OctxError | undefined;
    async function* tapped(): AsyncGenerator<Buffer, void, undefined> {
      for (;;) {
        let r: IteratorResult<Buffer>;
        try {
          r = (await it.next()) as IteratorResult<Buffer>;
        } catch (e) {
          failure = toOctxError(e);
          throw failure;
        }
        if (r.done) return;
        hash.update(r.value);
        yield r.value;
      }
    }
    const reader = new ByteReader(tapped(), path);
    const checker = new VectorTargetChecker(this.ids, kind, path, jsonl, (i) => this.add(VECTORS, i));
    try {
      const batches = readArrowVectorBatches(reader, {
        path,
        size: this.source.size(path),
        limits: this.limits,
        pooledBodies: true,
        // A file with its schema only in the footer is read twice: once for the footer's schema.
        tail: (maxBytes) => tailOf(this.source.open(path) as AsyncIterable<Buffer>, maxBytes),
        onSchema: (layout) => {
          if (layout.inputSha256Problem !== undefined) checker.inputSha256Schema(layout.inputSha256Problem);
        },
        ...(dimensions === undefined ? {} : { expectedDimension: dimensions }),
      });
      for await (const b of batches) checker.batch(b);
      checker.finish();
      const render = checker.hasInputSha256 ? this.inputRenderer(config, t.target) : undefined;
      if (render !== undefined) {
        // Recomputed in the structure pass; streamed again only if that did not happen.
        const computed = this.inputDigests.get(t.target);
        if (computed === undefined || !checker.compareInputs(computed)) await this.verifyInputs(checker, t.target, render);
      }
      this.inputDigests.delete(t.target);
    } catch (e) {
      if (failure) throw new ContainerFailure(failure);
      if (!(e instanceof OctxError)) throw e;
      const first = e.issues[0]!;
      this.add(VECTORS, first.path === undefined ? issue({ ...first, path }) : first);
    }
    try {
      await reader.drain();
    } catch (e) {
      throw new ContainerFailure(failure ?? toOctxError(e));
    }
    this.settle(path, hash.digest('hex'));
  }

  /** {@link VectorTargetChecker.verifyInputs} over the target's JSONL (already hashed and checked). */
  private async verifyInputs(checker: VectorTargetChecker, target: VectorTarget, render: InputTemplateRenderer): Promise<void> {
    const records = this.pkg.records(TARGET_RECORD_KIND[target]);
    try {
      await checker.verifyInputs(records, render);
    } catch (e) {
      throw new ContainerFailure(toOctxError(e));
    }
  }

  // ── 5. settle and report ───────────────────────────────────────────────────────────────

  /**
   * A capability counts only when the format layer is valid and its files are trusted. When the
   * format turned out invalid (possibly only after a capability file was parsed), the parse
   * results are replaced by the reason the capability cannot be trusted.
   */
  private settleCapabilities(): void {
    if (this.issues.errors(FORMAT) === 0) return;
    const filesOf: Record<string, readonly string[]> = { [SAG]: STRUCTURE_PATHS, [VECTORS]: [VECTOR_CONFIG_PATH, ...TARGETS.map((t) => t.path)] };
    for (const [name, d] of this.declarations) {
      if (d.status !== 'supported') continue;
      this.issues.reset(name);
      this.issues.touch(name);
      for (const i of this.listingIssues.get(name) ?? []) {
        if (i.code !== 'OCTX_CAPABILITY_DEPENDENCY_INVALID') this.add(name, i);
      }
      const untrusted = (filesOf[name] ?? []).filter((p) => {
        const s = this.state.get(p);
        return s === 'missing' || s === 'mismatch' || s === 'unverifiable';
      });
      for (const p of untrusted) {
        this.add(name, issue({ code: 'OCTX_CAPABILITY_FILE_UNTRUSTED', path: p, message: `${name}/0.1 was not checked: ${p} failed its integrity check (${this.state.get(p)})` }));
      }
      if (untrusted.length === 0) {
        this.add(name, issue({ code: 'OCTX_CAPABILITY_DEPENDENCY_INVALID', message: `${name}/0.1 was not checked because the OCTX format layer is invalid` }));
      }
    }
  }

  private report(): ValidationReport {
    const collected = this.issues.collect();
    const formatValid = this.issues.errors(FORMAT) === 0;
    const capabilities: Record<string, LayerResult> = {};
    const layers: LayerResult[] = [];
    for (const [name, d] of this.declarations) {
      const valid = d.status === 'unsupported' ? null : this.issues.errors(name) === 0;
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
      ...(this.packageDigest === undefined ? {} : { packageDigest: this.packageDigest }),
      manifest: this.pkg.manifest,
    };
  }
}
