/**
 * The structure layer of `validatePackage` (sag-structured/0.1, step 4a): each JSONL file
 * streamed once, hashed and parsed together, records before relations; the references, the event
 * hierarchy, duplicates and coverage checked by {@link StructureChecker}. Large files can be
 * parsed and schema-checked on worker threads (`record-scan-pool.ts`; off by default) while this
 * thread streams and hashes them, replayed here in file order so the report is the in-thread one;
 * vector input digests are recomputed in the same pass (`input-digests.ts`).
 */
import { createHash } from 'node:crypto';
import { issue, OctxError } from '../model/errors.js';
import { STRUCTURE_PATHS } from '../model/paths.js';
import { RECORD_KINDS, RECORD_KIND_ORDER, type RecordKind, type RecordKindSpec } from '../model/record-kinds.js';
import { JsonlSplitter, parseJsonlRange, type JsonlLineCallback } from './jsonl.js';
import { fileToWorker, RecordScanPool, structureWorkersFor } from './record-scan-pool.js';
import { jsonlLineIssue, type RecordScan } from './record-scan.js';
import { StructureChecker } from './structure-check.js';
import { ContainerFailure, FORMAT, SAG, type ValidationContext } from './validation-context.js';
import { planInputDigests } from './validate-vectors.js';

/** A structure file being scanned on a worker: its digest and scan, or `undefined` (check in-thread). */
type StructureJob = Promise<{ sha: string; scan: RecordScan } | undefined>;
/** Input digests to recompute in the structure pass, by record kind. */
type StructureInputs = StructureChecker['inputs'];

/** The structure layer of one validation run. */
export class StructureValidation {
  /** Structure work started on workers before the documents phase (see {@link startEarly}). */
  private early: { pool: RecordScanPool; jobs: Map<RecordKind, StructureJob>; inputs: StructureInputs; failure?: ContainerFailure } | undefined;

  constructor(private readonly ctx: ValidationContext) {}

  /** Ends the workers started early, if any (after a failure, or at the end). */
  async close(): Promise<void> {
    await this.early?.pool.close();
  }

  /** Checks the structure layer (or only hashes its files when it is not to be checked). */
  async check(): Promise<void> {
    const sag = this.ctx.supported(SAG);
    if (sag) {
      for (const p of STRUCTURE_PATHS) {
        if (!this.ctx.listed.has(p)) {
          this.ctx.listing(
            SAG,
            issue({ code: 'OCTX_CAPABILITY_FILE_REQUIRED', path: p, message: `sag-structured/0.1 requires ${p} to be listed in files (all five structure files form one unit)` }),
          );
        }
      }
    }
    const formatValid = this.ctx.issues.errors(FORMAT) === 0;
    const early = this.early;
    if (!sag || !formatValid || this.ctx.issues.errors(SAG) > 0) {
      for (const kind of RECORD_KIND_ORDER) {
        const p = RECORD_KINDS[kind].path;
        if (!this.ctx.present(p)) continue;
        // Files already streamed to workers were hashed then: only the parse is thrown away.
        const done = await early?.jobs.get(kind);
        this.ctx.settle(p, done ? done.sha : await this.ctx.hashFile(p));
      }
      return;
    }
    const checker = new StructureChecker(this.ctx.ids, this.ctx.concepts, (i) => this.ctx.add(SAG, i));
    if (early?.failure) throw early.failure;
    if (early) checker.inputs = early.inputs;
    else await planInputDigests(this.ctx, checker.inputs);
    // Records before relations (a relation names records), and the event hierarchy is resolved
    // once every event is read.
    let relations = false;
    const step = this.ctx.stepper('structure', STRUCTURE_PATHS);
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
          if (spec.role === 'record') this.ctx.ids.reserve(Math.min(this.ctx.limits.maxJsonlRecords, done.scan.count));
          checker.replay(kind, spec.path, done.scan);
          this.ctx.settle(spec.path, done.sha);
        } else await this.scanJsonl(spec.path, kind, checker);
        step(spec.path);
        checker.finishKind(kind);
      }
    } finally {
      await pool?.close();
    }
    checker.finish();
    this.ctx.structure = checker;
  }

  private structureSize(p: string): number {
    return this.ctx.source.has(p) ? this.ctx.source.size(p) : 0;
  }

  private structurePool(): RecordScanPool | undefined {
    // A sink receives the parsed records, which a worker's scan does not send back.
    if (this.ctx.sink !== undefined) return undefined;
    const total = STRUCTURE_PATHS.reduce((n, p) => n + this.structureSize(p), 0);
    return structureWorkersFor(total) ? RecordScanPool.create(STRUCTURE_PATHS.length) : undefined;
  }

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
  async startEarly(): Promise<void> {
    if (!this.ctx.supported(SAG) || !STRUCTURE_PATHS.every((p) => this.ctx.present(p) && this.ctx.source.has(p))) return;
    const pool = this.structurePool();
    if (!pool) return;
    const inputs: StructureInputs = {};
    try {
      await planInputDigests(this.ctx, inputs);
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
    const job = pool.start({ kind, path, maxLineSize: this.ctx.limits.maxJsonlLineSize, maxLines: this.ctx.limits.maxJsonlRecords, maxDepth: this.ctx.limits.maxJsonDepth });
    if (!(await job.started)) return undefined;
    const sha = await this.ctx.hashFile(path, (chunk) => job.send(chunk));
    return { sha, scan: await job.end() };
  }

  private async scanJsonl(path: string, kind: RecordKind, checker: StructureChecker): Promise<void> {
    const hash = createHash('sha256');
    const splitter = new JsonlSplitter({ maxLineSize: this.ctx.limits.maxJsonlLineSize, maxLines: this.ctx.limits.maxJsonlRecords, path });
    const maxDepth = this.ctx.limits.maxJsonDepth;
    const sink = this.ctx.sink;
    let parsing = true;
    const onLine: JsonlLineCallback = (buf, start, end, line, ascii) => {
      const p = parseJsonlRange(buf, start, end, line, ascii, maxDepth);
      const unparsed = jsonlLineIssue(p, kind, path, line);
      if (unparsed !== undefined || !p.ok) {
        if (unparsed !== undefined) this.ctx.add(SAG, unparsed);
        return;
      }
      checker.record(kind, p.record, path, line);
      sink?.record(kind, p.record, buf, start, end, line);
    };
    const feed = (step: () => void): void => {
      if (!parsing) return;
      try {
        step();
      } catch (e) {
        if (!(e instanceof OctxError) || e.code !== 'OCTX_RESOURCE_LIMIT') throw e;
        // Stop parsing, keep hashing: the digest check still needs every byte.
        this.ctx.add(SAG, e.issues[0]!);
        parsing = false;
        checker.incomplete = true;
      }
    };
    let first = true;
    for await (const chunk of this.ctx.chunks(path)) {
      hash.update(chunk);
      feed(() => splitter.push(chunk, onLine));
      if (first && splitter.lines > 0 && RECORD_KINDS[kind].role === 'record') {
        // Size the id table once from the first chunk's average line length, instead of
        // rehashing it at every doubling while a large file streams in.
        this.ctx.ids.reserve(Math.min(this.ctx.limits.maxJsonlRecords, Math.ceil((this.ctx.source.size(path) / chunk.length) * splitter.lines * 1.05)));
      }
      first = false;
    }
    feed(() => splitter.end(onLine));
    this.ctx.settle(path, hash.digest('hex'));
  }
}
