import { OctxError, issue, type OctxIssue } from '../model/errors.js';
import { sha256Hex } from '../model/json.js';
import { RECORD_KINDS, RECORD_KIND_ORDER, recordKindAt } from '../model/record-kinds.js';
import type { Capabilities } from '../package/manifest.js';
import type { CopiedDeflate, PayloadSource } from '../package/payload-source.js';
import type { SpilledEntry } from '../package/payload-spill.js';
import { VECTOR_CONFIG_PATH, VECTOR_TARGET_PATHS } from '../model/paths.js';
import { computeCoverage, coverageIssues, type CoverageReport, type OrphanList } from '../structure/coverage.js';
import type { OctxCode } from '../model/codes.js';
import { checkStructureGraph } from '../structure/graph-checks.js';
import { firstColumn, recordCount } from '../structure/structure-snapshot.js';
import type { VectorTarget } from '../vectors/targets.js';
import { TARGET_ID_KIND, TARGET_RECORD_KIND, VECTOR_TARGETS } from '../vectors/targets.js';
import type { VectorRows } from '../vectors/vector-spill.js';
import type { ArchiveLimits } from '../model/limits.js';
import { SDK_LIMITS_HINT, checkExportLimits, checkFrontmatterLimit, type SizedFile } from './limits-check.js';
import { RECORD_ID_BYTES, arrowFileSize } from '../vectors/arrow-file-size.js';
import type { Collected, CollectedDocument } from './collected.js';
import {
  DEGRADATION_SAMPLE_SIZE,
  degradationName,
  type Degradation,
  type DegradationSample,
  type StructureCounts,
  type StructureReport,
  type VectorTargetReport,
  type VectorsReport,
} from './report.js';
import type { ConsumerFindings } from './consumer-scan.js';

/** A payload file whose bytes already exist, with its digest. */
export interface PlannedFile {
  readonly path: string;
  readonly source: PayloadSource;
  readonly size: number;
  readonly sha256: string;
}

/** A vector target to be materialised as an Arrow file by the writer, rows in JSONL order. */
export interface PlannedArrowTarget {
  readonly target: VectorTarget;
  readonly path: string;
  readonly spill: VectorRows;
  /** Dense ids of the target's records, in their JSONL order. */
  readonly rows: Int32Array;
  readonly ids: (dense: number) => string;
}

/**
 * The immutable decision of what goes into the package: the files (except Arrow bytes, which the
 * writer produces from the spills), the capabilities to declare, and the report of everything
 * that was left out and why.
 */
export interface ExportPlan {
  readonly files: readonly PlannedFile[];
  readonly arrowTargets: readonly PlannedArrowTarget[];
  readonly capabilities: Capabilities;
  readonly documents: { readonly concepts: number; readonly reserved: number };
  readonly structure: StructureReport;
  readonly vectors: VectorsReport;
  readonly warnings: readonly OctxIssue[];
  /** Everything the caller added that is left out, and why (empty: nothing was). */
  readonly degradations: readonly Degradation[];
}

/** What the planner is asked to do. */
export interface PlanOptions {
  readonly documentsOnly: boolean;
  readonly structure: 'auto' | 'require';
  /** The consumers' resource limits the package must fit. */
  readonly limits: ArchiveLimits;
  /** A consumer profile's findings (absent: the seed profile, which adds no rule). */
  readonly consumer?: ConsumerFindings;
  /** `omit`: leave every vector out (default `keep`; a profile's policy is resolved by the caller). */
  readonly vectors?: 'keep' | 'omit';
  /**
   * Refuse the export with `OCTX_STRICT_VIOLATION` when anything would be left out
   * (a degradation) or any warning would be reported.
   */
  readonly strict?: boolean;
  /**
   * Warnings found before planning that belong in the report and that `strict` refuses like its
   * own (`OCTX_STATE_LOCK_TAKEN_OVER`: the state lock of a killed export was taken over).
   */
  readonly warnings?: readonly OctxIssue[];
}

/** Problems listed in one aggregated error before the rest are only counted. */
export const MAX_LISTED_ISSUES = 1000;

/**
 * Decides what the package contains (kysely-style: the builder collects, this plans, the writer
 * writes). Errors in the input — unresolved references, hierarchy faults, vectors for unknown
 * records, no Concept Document — abort with one aggregated `OctxError`; incomplete coverage either
 * omits the structure (`auto`, a degradation) or throws `OCTX_STRUCTURE_INCOMPLETE` (`require`).
 * Under `strict`, any degradation or warning throws `OCTX_STRICT_VIOLATION` instead.
 *
 * Everything is decided from `collected`, one frozen snapshot (see {@link Collected}): the
 * coverage, the counts and the limits describe exactly the bytes its files hold.
 */
export function planExport(collected: Collected, options: PlanOptions): ExportPlan {
  const plan = decide(collected, options);
  if (options.strict && (plan.degradations.length > 0 || plan.warnings.length > 0)) throw strictViolation(plan);
  return plan;
}

/**
 * `OCTX_STRICT_VIOLATION`: every warning as an error (each degradation has its warning), then the
 * coverage orphans behind an omitted structure layer (up to {@link MAX_LISTED_ISSUES}); the report
 * holds what the export would have been.
 */
function strictViolation(plan: ExportPlan): OctxError {
  const what: string[] = [];
  if (plan.degradations.length > 0) what.push(`leave out the ${plan.degradations.map(degradationName).join(', ')}`);
  if (plan.warnings.length > 0) what.push(`report ${plan.warnings.length} warning(s)`);
  const headline = `strict: the export would ${what.join(' and ')}; nothing was written`;
  // The first issue is the verdict itself, so a list of issues reads on its own.
  const issues: OctxIssue[] = [issue({ code: 'OCTX_STRICT_VIOLATION', message: headline }), ...plan.warnings.map((w) => ({ ...w, severity: 'error' as const }))];
  if (plan.structure.status === 'omitted' && plan.structure.coverage) issues.push(...coverageIssues(plan.structure.coverage, 'error').slice(0, MAX_LISTED_ISSUES));
  return OctxError.aggregate('OCTX_STRICT_VIOLATION', `${headline}:`, issues, {
    degraded: plan.degradations.length > 0,
    degradations: plan.degradations,
    warnings: plan.warnings,
    structure: plan.structure,
    vectors: plan.vectors,
  });
}

function decide(collected: Collected, options: PlanOptions): ExportPlan {
  const { ids, structure } = collected;
  const structureFiles = structure.files;
  const concepts = collected.documents.filter((d) => d.kind === 'concept');
  if (concepts.length === 0) {
    throw OctxError.of({
      code: 'OCTX_CONCEPT_REQUIRED',
      message: 'a package needs at least one Concept Document (a knowledge/**.md other than index.md or log.md); add one with addDocument()',
    });
  }
  const files: PlannedFile[] = collected.documents.map((d) => ({ path: d.path, source: sourceOf(d.entry), size: d.size, sha256: d.sha256 }));
  for (const x of collected.extensions) files.push({ path: x.path, source: sourceOf(x.entry), size: x.size, sha256: x.sha256 });

  const counts = Object.fromEntries(RECORD_KIND_ORDER.map((kind) => [RECORD_KINDS[kind].countKey, recordCount(structure, kind)])) as StructureCounts;
  const documents = { concepts: concepts.length, reserved: collected.documents.length - concepts.length };
  // Suspect record fields first: they often explain what follows (a parentId that left a hierarchy out).
  const warnings: OctxIssue[] = [...(options.warnings ?? []), ...structure.fieldWarnings, ...structure.whiteSpaceText, ...(collected.warnings ?? [])];
  const degradations: Degradation[] = [];
  const vectorsAdded = (t: VectorTarget): number => collected.vectorSpills.get(t)?.size ?? 0;

  if (options.documentsOnly || structure.isEmpty) {
    const status = options.documentsOnly ? 'not-requested' : 'none';
    const reason = options.documentsOnly ? 'documentsOnly was requested: only the Markdown knowledge layer is exported' : 'no structure records were added';
    consumerGate(options.consumer, false, warnings);
    const vectors = omitAllVectors(collected, options.documentsOnly ? 'documents-only' : 'structure-omitted', vectorsAdded);
    if (vectors.status === 'omitted') {
      warnings.push(issue({ code: 'OCTX_CAPABILITY_DEPENDENCY_INVALID', severity: 'warning', message: `vectors were added but are left out: ${reason}` }));
      // documentsOnly was asked for; vectors without any structure record were not.
      if (!options.documentsOnly) degradations.push(...vectorsWithoutStructure(vectors, 'OCTX_CAPABILITY_DEPENDENCY_INVALID', 'no structure record was added'));
    }
    assertLimits(
      files.map((f) => ({ path: f.path, size: f.size })),
      options.limits,
      collected.documents,
    );
    return { files, arrowTargets: [], capabilities: {}, documents, structure: { status, counts, reason }, vectors, warnings, degradations };
  }

  const errors = checkStructureGraph(ids, structure);
  errors.push(...unknownVectorRecords(collected));
  if (errors.length > 0) {
    const listed = errors.length > MAX_LISTED_ISSUES ? errors.slice(0, MAX_LISTED_ISSUES) : errors;
    const more = errors.length > listed.length ? ` (the first ${listed.length} are listed)` : '';
    throw OctxError.aggregate('OCTX_STRUCTURE_INVALID', `the structure input has ${errors.length} error(s)${more}; nothing was written:`, listed);
  }

  const coverage = computeCoverage(
    ids,
    structure,
    concepts.map((d) => ({ dense: d.dense!, path: d.path })),
  );
  if (!coverage.complete) {
    const orphanIssues = coverageIssues(coverage, options.structure === 'require' ? 'error' : 'warning');
    const summary = coverageSummary(coverage);
    const report: StructureReport = { status: 'omitted', counts, coverage, reason: `coverage is incomplete (${summary}); a partial structure layer never enters a package` };
    if (options.structure === 'require') {
      throw OctxError.aggregate('OCTX_STRUCTURE_INCOMPLETE', `structure: 'require' but coverage is incomplete (${summary}):`, orphanIssues, report);
    }
    const vectors = omitAllVectors(collected, 'structure-omitted', vectorsAdded);
    const vectorNote = vectors.status === 'omitted' ? ` (every vector is left out with it: ${droppedVectors(vectors)})` : '';
    warnings.push(issue({ code: 'OCTX_STRUCTURE_INCOMPLETE', severity: 'warning', message: `${report.reason}; exporting documents only${vectorNote}` }));
    degradations.push(structureDegradation(coverage, counts, summary), ...vectorsWithoutStructure(vectors, 'OCTX_STRUCTURE_INCOMPLETE', 'the structure layer is omitted'));
    consumerGate(options.consumer, false, warnings);
    assertLimits(
      files.map((f) => ({ path: f.path, size: f.size })),
      options.limits,
      collected.documents,
    );
    return { files, arrowTargets: [], capabilities: {}, documents, structure: report, vectors, warnings, degradations };
  }

  for (const kind of RECORD_KIND_ORDER) {
    const f = structureFiles[kind];
    files.push({ path: RECORD_KINDS[kind].path, source: { spilled: f.entry }, size: f.size, sha256: f.sha256 });
  }
  const structureReport: StructureReport = { status: 'written', counts, coverage, reason: 'every record is valid and all five coverage rules hold' };
  consumerGate(options.consumer, true, warnings);

  const { vectors, arrowTargets } =
    options.vectors === 'omit'
      ? { vectors: omitAllVectors(collected, 'consumer', vectorsAdded, vectorOmission(options)), arrowTargets: [] }
      : planVectors(collected, warnings, degradations);
  if (arrowTargets.length > 0 && options.consumer?.profile.vectors.policy === 'omit') {
    const name = options.consumer.profile.name;
    warnings.push(
      issue({
        code: 'OCTX_CONSUMER_VECTORS_UNUSED',
        severity: 'warning',
        message: `vectors: 'keep' was requested for ${name}, so they are written, but ${options.consumer.profile.vectors.reason.replace(/^vectors are left out for [^:]+: /, '')}`,
      }),
    );
  }
  const capabilities: Capabilities = arrowTargets.length > 0 ? { 'sag-structured': { version: '0.1' }, vectors: { version: '0.1' } } : { 'sag-structured': { version: '0.1' } };
  if (arrowTargets.length > 0 && collected.vectorConfig) {
    files.push({
      path: VECTOR_CONFIG_PATH,
      source: { bytes: collected.vectorConfig.bytes },
      size: collected.vectorConfig.bytes.length,
      sha256: sha256Hex(collected.vectorConfig.bytes),
    });
  }
  const sized: SizedFile[] = files.map((f) => {
    const kind = recordKindAt(f.path);
    return kind ? { path: f.path, size: f.size, lines: structureFiles[kind].lines, maxLineBytes: structureFiles[kind].maxLineBytes } : { path: f.path, size: f.size };
  });
  for (const a of arrowTargets) {
    const size = arrowFileSize({ rows: a.rows.length, dimensions: a.spill.dimensions, idBytes: { each: RECORD_ID_BYTES }, digests: a.spill.hasInputSha256 });
    sized.push({ path: a.path, size, rows: a.rows.length, dimensions: a.spill.dimensions });
  }
  assertLimits(sized, options.limits, collected.documents);
  return { files, arrowTargets, capabilities, documents, structure: structureReport, vectors, warnings, degradations };
}

/** The structure layer left out for incomplete coverage: every record it would have held. */
function structureDegradation(coverage: CoverageReport, counts: StructureCounts, summary: string): Degradation {
  const rules: readonly [OrphanList & { readonly paths?: readonly string[] }, string][] = [
    [coverage.documentsWithoutChunks, 'document without chunks'],
    [coverage.chunksWithoutEvents, 'chunk without events'],
    [coverage.eventsWithoutChunks, 'event without chunks'],
    [coverage.eventsWithoutEntities, 'event without entities'],
    [coverage.entitiesWithoutEvents, 'entity without events'],
  ];
  let orphans = 0;
  const sample: DegradationSample[] = [];
  for (const [list, problem] of rules) {
    orphans += list.count;
    for (let i = 0; i < list.ids.length && sample.length < DEGRADATION_SAMPLE_SIZE; i++) {
      const path = list.paths?.[i];
      sample.push({ id: list.ids[i]!, ...(path !== undefined ? { path } : {}), problem });
    }
  }
  let dropped = 0;
  for (const kind of RECORD_KIND_ORDER) dropped += counts[RECORD_KINDS[kind].countKey];
  return {
    code: 'OCTX_STRUCTURE_INCOMPLETE',
    layer: 'structure',
    cause: 'coverage-incomplete',
    dropped,
    orphans,
    sample,
    message: `the structure layer is left out (${dropped} record(s) and link(s)): coverage is incomplete (${summary})`,
  };
}

/** Each vector target left out because no structure layer is written. */
function vectorsWithoutStructure(vectors: VectorsReport, code: OctxCode, why: string): Degradation[] {
  const out: Degradation[] = [];
  for (const t of VECTOR_TARGETS) {
    const r = vectors.targets[t];
    if (r.status !== 'omitted') continue;
    out.push({
      code,
      layer: 'vectors',
      target: t,
      cause: 'structure-omitted',
      dropped: r.vectors,
      orphans: 0,
      sample: [],
      message: `${r.vectors} ${t} vector(s) are left out: ${why}`,
    });
  }
  return out;
}

/** `3 chunks, 2 events`: the vectors an omission drops. */
function droppedVectors(vectors: VectorsReport): string {
  return VECTOR_TARGETS.flatMap((t) => {
    const r = vectors.targets[t];
    return r.status === 'omitted' ? [`${r.vectors} ${t}`] : [];
  }).join(', ');
}

/** Where a collected document's or extension file's bytes are, for the writer. */
function sourceOf(entry: SpilledEntry | CopiedDeflate): PayloadSource {
  // Only the kind of entry is looked at here, never its bytes: the writer reads those.
  return (entry as Partial<CopiedDeflate> | undefined)?.compressedSize !== undefined ? { copied: entry as CopiedDeflate } : { spilled: entry as SpilledEntry };
}

function assertLimits(files: readonly SizedFile[], limits: ArchiveLimits, documents: readonly CollectedDocument[]): void {
  const issues = [...checkFrontmatterLimit(documents, limits), ...checkExportLimits(files, limits)];
  if (issues.length > 0)
    throw OctxError.aggregate('OCTX_RESOURCE_LIMIT', `the package would exceed the consumers' resource limits; nothing was written (${SDK_LIMITS_HINT}):`, issues);
}

function coverageSummary(c: ReturnType<typeof computeCoverage>): string {
  const parts: string[] = [];
  if (c.documentsWithoutChunks.count) parts.push(`${c.documentsWithoutChunks.count} document(s) without chunks`);
  if (c.chunksWithoutEvents.count) parts.push(`${c.chunksWithoutEvents.count} chunk(s) without events`);
  if (c.eventsWithoutChunks.count) parts.push(`${c.eventsWithoutChunks.count} event(s) without chunks`);
  if (c.eventsWithoutEntities.count) parts.push(`${c.eventsWithoutEntities.count} event(s) without entities`);
  if (c.entitiesWithoutEvents.count) parts.push(`${c.entitiesWithoutEvents.count} entit(y/ies) without events`);
  return parts.join(', ');
}

function omitAllVectors(collected: Collected, reason: 'structure-omitted' | 'documents-only' | 'consumer', added: (t: VectorTarget) => number, why?: string): VectorsReport {
  const targets = {} as Record<VectorTarget, VectorTargetReport>;
  let any = false;
  for (const t of VECTOR_TARGETS) {
    const n = added(t);
    if (n > 0) any = true;
    targets[t] = n > 0 ? { status: 'omitted', reason, vectors: n } : { status: 'none' };
  }
  return {
    status: any ? 'omitted' : 'none',
    ...(any && why !== undefined ? { reason: why } : {}),
    ...(collected.vectorConfig ? { fingerprint: collected.vectorConfig.fingerprint } : {}),
    targets,
  };
}

/** Why every vector is left out under `vectors: 'omit'`: the profile's sentence, or the caller's request. */
function vectorOmission(options: PlanOptions): string {
  const p = options.consumer?.profile;
  return p && p.vectors.policy === 'omit' ? p.vectors.reason : "vectors: 'omit' was requested";
}

/**
 * Applies a consumer profile's findings: its errors refuse the export (all of them listed, up to
 * {@link MAX_LISTED_ISSUES}); its warnings join the report. Structure findings count only when the
 * structure layer is written.
 */
function consumerGate(findings: ConsumerFindings | undefined, structure: boolean, warnings: OctxIssue[]): void {
  if (!findings) return;
  const all = structure ? [...findings.documents, ...findings.structure] : findings.documents;
  const errors = all.filter((i) => i.severity === 'error');
  if (errors.length > 0) {
    const listed = errors.length > MAX_LISTED_ISSUES ? errors.slice(0, MAX_LISTED_ISSUES) : errors;
    const more = errors.length > listed.length ? ` (the first ${listed.length} are listed)` : '';
    throw OctxError.aggregate('OCTX_CONSUMER_INCOMPATIBLE', `${errors.length} record(s) would fail to import into ${findings.profile.title}${more}; nothing was written:`, listed);
  }
  warnings.push(...all);
}

/** Vectors whose record id is not a record of the target's kind: an input error. */
function unknownVectorRecords(collected: Collected): OctxIssue[] {
  const out: OctxIssue[] = [];
  for (const [target, spill] of collected.vectorSpills) {
    const kind = TARGET_ID_KIND[target];
    let known = 0;
    for (let i = 0; i < collected.ids.size && known < spill.size; i++) if (spill.has(i) && collected.ids.kindOf(i) === kind) known++;
    if (known === spill.size) continue;
    for (let i = 0; i < collected.ids.size; i++) {
      if (spill.has(i) && collected.ids.kindOf(i) !== kind) {
        out.push(
          issue({
            code: 'OCTX_REFERENCE_UNKNOWN',
            path: VECTOR_TARGET_PATHS[target],
            recordId: collected.ids.idOf(i),
            field: 'record_id',
            message: `a ${target} vector was added for ${collected.ids.idOf(i)}, which is not one of the package's ${target}`,
          }),
        );
      }
    }
  }
  return out;
}

function planVectors(collected: Collected, warnings: OctxIssue[], degradations: Degradation[]): { vectors: VectorsReport; arrowTargets: PlannedArrowTarget[] } {
  const targets = {} as Record<VectorTarget, VectorTargetReport>;
  const arrowTargets: PlannedArrowTarget[] = [];
  let anyAdded = false;
  for (const t of VECTOR_TARGETS) {
    const spill = collected.vectorSpills.get(t);
    if (!spill || spill.size === 0) {
      targets[t] = { status: 'none' };
      continue;
    }
    anyAdded = true;
    // The dense ids of the target's records, in their JSONL order (the rows of its Arrow file).
    const table = firstColumn(collected.structure, TARGET_RECORD_KIND[t]);
    const missing: string[] = [];
    let missingCount = 0;
    for (let r = 0; r < table.length; r++) {
      if (!spill.has(table[r]!)) {
        missingCount++;
        if (missing.length < 20) missing.push(collected.ids.idOf(table[r]!));
      }
    }
    if (missingCount > 0) {
      targets[t] = { status: 'omitted', reason: 'incomplete', records: table.length, vectors: spill.size, missing: missingCount, sample: missing };
      warnings.push(
        issue({
          code: 'OCTX_VECTOR_COVERAGE',
          severity: 'warning',
          path: VECTOR_TARGET_PATHS[t],
          message: `${t} vectors cover ${spill.size} of ${table.length} records (${missingCount} missing, e.g. ${missing.slice(0, 3).join(', ')}); partial vector sets are not allowed, so this target is omitted`,
        }),
      );
      degradations.push({
        code: 'OCTX_VECTOR_COVERAGE',
        layer: 'vectors',
        target: t,
        cause: 'vectors-incomplete',
        dropped: spill.size,
        orphans: missingCount,
        sample: missing.slice(0, DEGRADATION_SAMPLE_SIZE).map((id) => ({ id, problem: 'record without a vector' })),
        message: `the ${t} vectors are left out (${spill.size} vector(s)): ${missingCount} of ${table.length} ${t} have no vector`,
      });
      continue;
    }
    const norms = spill.normWarnings;
    if (norms.count > 0) {
      warnings.push(
        issue({
          code: 'OCTX_VECTOR_NORM',
          severity: 'warning',
          path: VECTOR_TARGET_PATHS[t],
          recordId: norms.sample[0],
          message: `${norms.count} ${t} vector(s) differ from unit length by more than 1e-3 although the config says normalized: true (e.g. ${norms.sample.slice(0, 3).join(', ')})`,
        }),
      );
    }
    targets[t] = { status: 'written', rows: table.length };
    arrowTargets.push({ target: t, path: VECTOR_TARGET_PATHS[t], spill, rows: table.slice(), ids: (dense) => collected.ids.idOf(dense) });
  }
  const status = arrowTargets.length > 0 ? 'written' : anyAdded ? 'omitted' : 'none';
  return { vectors: { status, ...(collected.vectorConfig ? { fingerprint: collected.vectorConfig.fingerprint } : {}), targets }, arrowTargets };
}
