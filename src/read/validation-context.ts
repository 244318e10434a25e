/**
 * What the layers of one `validatePackage` run share: the package, its limits, the issues found
 * so far by layer, the listed files and the state of their digests, the id space, and the file
 * reads every layer makes (a read failure of the container ends the run: {@link ContainerFailure}).
 * The layers: `validate-manifest.ts` (package digest, inventory), `validate-documents.ts`
 * (knowledge documents and other format-only files), `validate-structure.ts`
 * (sag-structured/0.1), `validate-vectors.ts` (vectors/0.1).
 */
import { createHash } from 'node:crypto';
import type { OctxCode } from '../model/codes.js';
import { issue, OctxError, type OctxIssue } from '../model/errors.js';
import type { ArchiveLimits } from '../model/limits.js';
import type { ProgressListener } from '../model/progress.js';
import type { VectorTarget } from '../vectors/targets.js';
import { IdSpace } from './id-space.js';
import type { InputDigests } from './input-digests.js';
import { IssueCollector } from './issues.js';
import type { CapabilityDeclaration } from './manifest-rules.js';
import type { OctxPackage } from './open-package.js';
import type { PackageSource } from './source.js';
import type { ConceptDocumentRef, StructureChecker } from './structure-check.js';
import type { ValidationSink } from './validation-sink.js';

/** The format layer's name in the issue collector. */
export const FORMAT = 'format';
/** The capabilities this validator checks. */
export const SAG = 'sag-structured';
export const VECTORS = 'vectors';

/** A failure of the container while content was being read: it ends the validation. */
export class ContainerFailure extends Error {
  constructor(readonly error: OctxError) {
    super(error.message);
  }
}

/** `e` as an `OctxError` (a plain read failure is `OCTX_ARCHIVE_CORRUPT`). */
export function toOctxError(e: unknown): OctxError {
  if (e instanceof OctxError) return e;
  return OctxError.of({ code: 'OCTX_ARCHIVE_CORRUPT', message: `reading failed: ${e instanceof Error ? e.message : String(e)}` });
}

/** What is known of a listed file's bytes. */
export type FileState = 'ok' | 'missing' | 'mismatch' | 'unverifiable';

/** The state of one validation run, shared by its layers. */
export class ValidationContext {
  readonly issues: IssueCollector;
  readonly ids = new IdSpace();
  /** Listed, safe, unique paths → expected SHA-256 (undefined when the listed value is malformed). */
  readonly listed = new Map<string, string | undefined>();
  readonly state = new Map<string, FileState>();
  readonly concepts: ConceptDocumentRef[] = [];
  readonly declarations = new Map<string, CapabilityDeclaration>();
  /** Manifest-level capability issues (file listing) that survive a later reset of the layer. */
  readonly listingIssues = new Map<string, OctxIssue[]>();
  packageDigest: string | undefined;
  /** The checked structure layer, once it was checked (the vectors layer depends on it). */
  structure: StructureChecker | undefined;
  /** vectors/config.json, when it was read before the structure pass (it is read once). */
  configBytes: Buffer | undefined;
  /** Input digests recomputed during the structure pass, by vector target. */
  readonly inputDigests = new Map<VectorTarget, InputDigests>();

  constructor(
    readonly pkg: OctxPackage,
    readonly source: PackageSource,
    readonly limits: ArchiveLimits,
    maxIssues: number,
    private readonly onProgress?: ProgressListener,
    /** Receives what the structure and vector layers decode (the structure is then checked in-thread). */
    readonly sink?: ValidationSink,
  ) {
    this.issues = new IssueCollector(maxIssues);
  }

  stepper(kind: string, paths: readonly string[]): (path?: string) => void {
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

  /** Reports an issue of `layer`. */
  add(layer: string, i: OctxIssue): void {
    this.issues.add(layer, i);
  }

  /** Reports an issue of the format layer. */
  format(code: OctxCode, message: string, path?: string, field?: string): void {
    this.add(FORMAT, issue({ code, message, ...(path === undefined ? {} : { path }), ...(field === undefined ? {} : { field }) }));
  }

  settle(path: string, sha256: string): boolean {
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

  /** Listed and in the container. */
  present(path: string): boolean {
    return this.listed.has(path) && this.state.get(path) !== 'missing';
  }

  /** The whole file (at most `maxFileSize`); a read failure ends the run. */
  async readAll(path: string): Promise<Buffer> {
    try {
      return await this.source.readAll(path, this.limits.maxFileSize);
    } catch (e) {
      throw new ContainerFailure(toOctxError(e));
    }
  }

  /**
   * Streams a file through SHA-256 and returns the hex digest; with `each`, every chunk is also
   * handed on (awaited, for back-pressure: the worker scan). A read failure is the container's
   * (`ContainerFailure`).
   */
  async hashFile(path: string, each?: (chunk: Buffer) => Promise<void>): Promise<string> {
    const hash = createHash('sha256');
    for await (const chunk of this.chunks(path)) {
      hash.update(chunk);
      if (each) await each(chunk);
    }
    return hash.digest('hex');
  }

  /** The bytes of `path`, chunk by chunk; a read failure is the container's (`ContainerFailure`). */
  async *chunks(path: string): AsyncGenerator<Buffer, void, undefined> {
    const it = this.source.open(path)[Symbol.asyncIterator]();
    for (;;) {
      let r: IteratorResult<Buffer>;
      try {
        r = (await it.next()) as IteratorResult<Buffer>;
      } catch (e) {
        throw new ContainerFailure(toOctxError(e));
      }
      if (r.done) return;
      yield r.value;
    }
  }

  /** Hashes each present file of `paths` and settles its digest (nothing else is read). */
  async hashOnly(paths: readonly string[]): Promise<void> {
    for (const p of paths) if (this.present(p)) this.settle(p, await this.hashFile(p));
  }

  /** Whether the manifest declares capability `name` in a version this validator checks. */
  supported(name: string): boolean {
    return this.declarations.get(name)?.status === 'supported';
  }

  /** Reports a file-listing issue of a capability (kept when the layer is reset, see `settleCapabilities`). */
  listing(layer: string, i: OctxIssue): void {
    this.add(layer, i);
    const list = this.listingIssues.get(layer) ?? [];
    list.push(i);
    this.listingIssues.set(layer, list);
  }
}
