/**
 * `renderReport`: one self-contained HTML page that shows what a package holds — who it is, the
 * validator's verdict, its documents, its structure and entity graph, its vectors, and what
 * changed since a previous release. The package is streamed through the reader (every byte
 * checked against its digest) in a fixed number of passes, keeping numbers per record and text
 * only for what the page shows, within budgets the page states; the same package and options
 * give the same bytes.
 */
import { basename } from 'node:path';
import { stat, writeFile } from 'node:fs/promises';
import { consumerProfile, type ConsumerName } from '../consumers/index.js';
import { OctxError, type OctxIssue } from '../model/errors.js';
import { fsFailure } from '../model/fs-errors.js';
import type { ArchiveLimits } from '../model/limits.js';
import { assertKnownKeys, keysOf } from '../model/option-keys.js';
import type { ProgressListener } from '../model/progress.js';
import { RECORD_KINDS, RECORD_KIND_ORDER } from '../model/record-kinds.js';
import { AtomicOutput } from '../package/atomic-output.js';
import { diffPackages } from '../read/diff/diff-packages.js';
import { IdSpace } from '../read/id-space.js';
import { openPackage } from '../read/open-package.js';
import { validatePackage } from '../read/validate-package.js';
import { collectDocuments, type DocumentTable } from './collect-documents.js';
import { collectStructure, MAX_ENTITY_TYPES, type StructureTables } from './collect-structure.js';
import { collectVectorConfig, collectVectors } from './collect-vectors.js';
import { graphDocuments, selectGraph, type SelectedGraph } from './graph-select.js';
import { countHistogram } from './histogram.js';
import { reportHtml } from './html-page.js';
import { layoutGraph } from './layout.js';
import { readPageScript } from './page-script.js';
import type { ReportData, ReportDiff, ReportDocument, ReportGraph, ReportIssue, ReportValidation } from './report-data.js';

/** Options of {@link renderReport}. */
export interface RenderReportOptions {
  /** Write the page here (atomically: a temporary file, then a rename). Without it, only the result's `html`. */
  readonly output?: string;
  /** Replace an existing `output` (default false: `OCTX_OUTPUT_EXISTS`). */
  readonly overwrite?: boolean;
  /** A previous release (or the source of a derived asset): the page opens with the diff against it. */
  readonly previous?: string;
  /** Also show what this consumer profile makes of the package (`sag-1.7`). */
  readonly consumer?: ConsumerName;
  /** Resource limits for reading the package(s); missing fields take the reference defaults. */
  readonly limits?: Partial<ArchiveLimits>;
  /** Graph nodes drawn at most (default 5,000): past it, the entities of highest degree and the events most linked to them. */
  readonly maxNodes?: number;
  /** Graph edges drawn at most (default 20,000). */
  readonly maxEdges?: number;
  /** Rows of the documents table (default 2,000): past it, an evenly spaced sample. */
  readonly maxDocuments?: number;
  /** Bytes of Markdown inlined for the documents table (default 2 MiB, at most 64 KiB per document). */
  readonly textBudget?: number;
  /**
   * Put the time of rendering on the page (default false: the same package and options give the
   * same bytes). `true` uses the current time.
   */
  readonly timestamp?: boolean | Date;
  /** Progress of the validation (`validate`) and of the diff (`diff`). */
  readonly onProgress?: ProgressListener;
}

/** What {@link renderReport} made. */
export interface ReportResult {
  /** The page. */
  readonly html: string;
  /** Its size in UTF-8 bytes. */
  readonly bytes: number;
  /** The absolute path written, with `output`. */
  readonly output?: string;
  /** What the page shows, as data (the JSON inside the page). */
  readonly data: ReportData;
}

const OPTION_KEYS = keysOf<RenderReportOptions>({
  output: true,
  overwrite: true,
  previous: true,
  consumer: true,
  limits: true,
  maxNodes: true,
  maxEdges: true,
  maxDocuments: true,
  textBudget: true,
  timestamp: true,
  onProgress: true,
});

/** Issues listed on the page per verdict. */
const ISSUES_SHOWN = 200;
/** Documents listed per diff category. */
const DIFF_LISTED = 100;
/** Entities in the top-by-degree table. */
const TOP_ENTITIES = 25;
/** Colours of entity types, most frequent type first; the rest share the last. */
const PALETTE = ['#4e79a7', '#f28e2b', '#59a14f', '#e15759', '#b07aa1', '#76b7b2', '#edc948', '#ff9da7', '#9c755f', '#2f8f9d', '#d37295', '#8cd17d'];
const OTHER_COLOUR = '#a0a7b4';
const EVENT_COLOUR = '#6b7280';

/** A positive integer option, or its default. */
function count(options: RenderReportOptions, field: 'maxNodes' | 'maxEdges' | 'maxDocuments' | 'textBudget', fallback: number): number {
  const v = options[field];
  if (v === undefined) return fallback;
  if (!Number.isSafeInteger(v) || v < 0) throw OctxError.of({ code: 'OCTX_OPTIONS_INVALID', field, message: `${field} must be an integer ≥ 0 (got ${String(v)})` });
  return v;
}

function checkOptions(options: RenderReportOptions): void {
  assertKnownKeys(options, OPTION_KEYS, 'renderReport options');
  for (const field of ['output', 'previous'] as const) {
    const v = options[field];
    if (v !== undefined && (typeof v !== 'string' || v === '')) throw OctxError.of({ code: 'OCTX_OPTIONS_INVALID', field, message: `${field} must be a non-empty path` });
  }
  if (options.consumer !== undefined) consumerProfile(options.consumer);
  const ts = options.timestamp;
  if (ts !== undefined && typeof ts !== 'boolean' && !(ts instanceof Date && Number.isFinite(ts.getTime()))) {
    throw OctxError.of({ code: 'OCTX_OPTIONS_INVALID', field: 'timestamp', message: 'timestamp must be a boolean or a valid Date' });
  }
  if (options.onProgress !== undefined && typeof options.onProgress !== 'function') {
    throw OctxError.of({ code: 'OCTX_OPTIONS_INVALID', field: 'onProgress', message: 'onProgress must be a function' });
  }
}

/** An issue for the page. */
function issueView(i: OctxIssue): ReportIssue {
  const where = [i.path !== undefined ? `${i.path}${i.line !== undefined ? `:${i.line}` : ''}` : '', i.recordId ?? '', i.field !== undefined ? `field ${i.field}` : '']
    .filter(Boolean)
    .join(' · ');
  return { code: i.code, severity: i.severity, message: i.message, where };
}

async function validation(pkg: Awaited<ReturnType<typeof openPackage>>, options: RenderReportOptions): Promise<ReportValidation> {
  const r = await validatePackage(pkg, {
    ...(options.consumer !== undefined ? { consumer: options.consumer } : {}),
    ...(options.onProgress ? { onProgress: options.onProgress } : {}),
  });
  const c = r.consumer;
  return {
    valid: r.valid,
    fullyValidated: r.fullyValidated,
    formatValid: r.format.valid,
    capabilities: Object.entries(r.capabilities).map(([name, l]) => [name, l.valid === null ? 'not understood' : l.valid ? 'valid' : 'invalid'] as const),
    issues: r.issues.slice(0, ISSUES_SHOWN).map(issueView),
    issueCount: r.issues.length + r.droppedIssues,
    ...(c
      ? {
          consumer: {
            name: c.name,
            verdict: c.compatible === null ? 'not checked' : c.compatible ? 'compatible' : 'incompatible',
            issues: c.issues.slice(0, ISSUES_SHOWN).map(issueView),
            issueCount: c.issues.length,
          },
        }
      : {}),
  };
}

async function releaseDiff(previous: string, path: string, options: RenderReportOptions): Promise<ReportDiff> {
  const d = await diffPackages(previous, path, {
    sampleSize: 0,
    ...(options.limits ? { limits: options.limits } : {}),
    ...(options.onProgress ? { onProgress: options.onProgress } : {}),
  });
  const ref = (x: { path: string }): string => x.path;
  const docs = d.documents;
  return {
    previous: { name: basename(d.old.path), version: d.old.version, packageDigest: d.old.packageDigest, assetId: d.old.assetId },
    relation: d.relation,
    hasChanges: d.hasChanges,
    documents: [
      ['added', docs.added.length, docs.added.slice(0, DIFF_LISTED).map(ref)],
      ['removed', docs.removed.length, docs.removed.slice(0, DIFF_LISTED).map(ref)],
      ['changed', docs.changed.length, docs.changed.slice(0, DIFF_LISTED).map(ref)],
      ['moved', docs.moved.length, docs.moved.slice(0, DIFF_LISTED).map((m) => `${m.from} → ${m.to}`)],
    ],
    unchangedDocuments: docs.unchanged,
    // Keys of the diff are the spec's file names (`chunk_events`), one per row of RECORD_KINDS.
    records: RECORD_KIND_ORDER.map((kind) => {
      const key = basename(RECORD_KINDS[kind].path, '.jsonl').replace(/-/g, '_') as keyof typeof d.records;
      const c = d.records[key];
      return [RECORD_KINDS[kind].path, c.added, c.removed, c.changed, c.unchanged] as const;
    }),
  };
}

function documentRows(docs: DocumentTable, t: StructureTables | undefined): ReportDocument[] {
  return docs.shown
    .filter((row) => row < docs.paths.length)
    .map((row) => {
      const text = docs.texts.get(row);
      return {
        path: docs.paths[row]!,
        title: docs.titles[row]!,
        kind: docs.kinds[row]!,
        size: docs.sizes[row]!,
        chunks: t?.rowChunks[row] ?? 0,
        events: t?.rowEvents[row] ?? 0,
        chunksWithoutEvents: t?.rowUncovered[row] ?? 0,
        text: text?.text ?? null,
        textCut: text?.cut ?? 0,
      };
    });
}

/** Entity types most frequent first (ties by name), the types past the budget as one row. */
function rankedTypes(t: StructureTables): [string, number][] {
  const order = t.types.map((_, i) => i).sort((a, b) => t.typeCounts[b]! - t.typeCounts[a]! || (t.types[a]! < t.types[b]! ? -1 : t.types[a]! > t.types[b]! ? 1 : 0));
  const out = order.map((i) => [t.types[i]!, t.typeCounts[i]!] as [string, number]);
  if (t.otherTypes > 0) out.push([`(${t.otherTypes} entities of types past the first ${MAX_ENTITY_TYPES})`, t.otherTypes]);
  return out;
}

function graphData(g: SelectedGraph, t: StructureTables, docs: DocumentTable, maxNodes: number, maxEdges: number): ReportGraph {
  const ranked = rankedTypes(t);
  const colourOfType = new Map<number, string>();
  ranked.slice(0, PALETTE.length).forEach(([name], k) => colourOfType.set(t.types.indexOf(name), PALETTE[k]!));
  const positions = layoutGraph(g.kinds.length, g.edges);
  const maxDegree = Math.max(1, ...g.degrees);
  const { paths, indexOfRow } = graphDocuments(g, docs);
  const nodes = g.kinds.map((kind, i) => {
    const chunks = kind === 'event' ? (g.chunks.get(i) ?? []) : undefined;
    return {
      kind,
      id: g.ids[i]!,
      label: g.labels[i]!,
      type: kind === 'event' ? 'event' : (t.types[g.typeOf[i]!] ?? ''),
      degree: g.degrees[i]!,
      x: positions[2 * i]!,
      y: positions[2 * i + 1]!,
      size: Math.round((3 + 12 * Math.sqrt(g.degrees[i]! / maxDegree)) * 10) / 10,
      color: kind === 'event' ? EVENT_COLOUR : (colourOfType.get(g.typeOf[i]!) ?? OTHER_COLOUR),
      ...(chunks ? { chunks: chunks.map(([row, ordinal]) => [indexOfRow.get(row) ?? -1, ordinal] as const), chunkCount: t.chunksPerEvent[g.records[i]!]! } : {}),
    };
  });
  const legend: [string, string][] = [['event', EVENT_COLOUR], ...ranked.slice(0, PALETTE.length).map(([name], k): [string, string] => [name, PALETTE[k]!])];
  if (ranked.length > PALETTE.length) legend.push(['other types', OTHER_COLOUR]);
  return {
    totalNodes: t.entitiesPerEvent.length + t.eventsPerEntity.length,
    totalEdges: t.counts['event-entity'],
    nodes,
    edges: g.edges,
    maxNodes,
    maxEdges,
    documents: paths,
    edgesAmongNodes: g.edgesAmongNodes,
    legend,
  };
}

/**
 * Renders the report of the package at `path` (a `.octx` file or an unpacked package folder).
 * The validator runs while rendering, so a broken package still gets a page that says what is
 * wrong with it; a package that cannot be opened at all is an error.
 * @throws OctxError `OCTX_OPEN_ERROR` and the other errors of `openPackage` (for `path` and
 *   `previous`), `OCTX_OPTIONS_INVALID`, `OCTX_OUTPUT_EXISTS` / `OCTX_OUTPUT_INVALID` /
 *   `OCTX_IO_ERROR` for `output`, `OCTX_REPORT_SCRIPT_MISSING` for an unbuilt source checkout
 */
export async function renderReport(path: string, options: RenderReportOptions = {}): Promise<ReportResult> {
  checkOptions(options);
  const maxNodes = count(options, 'maxNodes', 5000);
  const maxEdges = count(options, 'maxEdges', 20_000);
  const maxDocuments = count(options, 'maxDocuments', 2000);
  const textBudget = count(options, 'textBudget', 2 * 1024 * 1024);
  const script = readPageScript();
  // Refused before any reading: an existing output without overwrite.
  const out = options.output !== undefined ? await AtomicOutput.prepare(options.output, options.overwrite === true) : undefined;
  try {
    const pkg = await openPackage(path, options.limits ? { limits: options.limits } : {});
    let data: ReportData;
    try {
      const info = pkg.info;
      const verdict = await validation(pkg, options);
      const diff = options.previous !== undefined ? await releaseDiff(options.previous, path, options) : null;
      const ids = new IdSpace();
      const docs = await collectDocuments(pkg, ids, { maxRows: maxDocuments, textBudget, textPerDocument: 64 * 1024 });
      const listed = new Set(pkg.listedFiles().map((f) => f.path));
      const hasStructure = RECORD_KIND_ORDER.some((k) => listed.has(RECORD_KINDS[k].path));
      const t = hasStructure ? await collectStructure(pkg, ids, docs) : undefined;
      let graph: ReportGraph | null = null;
      let topEntities: (readonly [string, string, number])[] = [];
      if (t && t.entitiesPerEvent.length + t.eventsPerEntity.length > 0) {
        const g = await selectGraph(pkg, ids, t, { maxNodes, maxEdges, topEntities: TOP_ENTITIES });
        graph = graphData(g, t, docs, maxNodes, maxEdges);
        topEntities = g.topEntities.map(([name, type, degree]) => [name, t.types[type] ?? '', degree] as const);
      }
      const st = await stat(path);
      const renderedAt = options.timestamp === undefined || options.timestamp === false ? null : (options.timestamp === true ? new Date() : options.timestamp).toISOString();
      data = {
        packageName: basename(path),
        packageSize: st.isDirectory() ? null : st.size,
        asset: {
          name: info.assetName ?? null,
          id: info.assetId ?? null,
          version: info.version ?? null,
          createdAt: info.createdAt ?? null,
          packageDigest: info.packageDigest ?? null,
          format: info.format !== undefined ? `${info.format} ${info.formatVersion ?? '?'}` : null,
          derivedFrom: info.derivedFrom
            ? { assetId: info.derivedFrom.assetId ?? null, version: info.derivedFrom.version ?? null, packageDigest: info.derivedFrom.packageDigest ?? null }
            : null,
        },
        capabilities: Object.entries(info.capabilities).map(([n, v]) => [n, v ?? '?'] as const),
        validation: verdict,
        diff,
        documents: { total: docs.listed, rows: documentRows(docs, t), textBudget, unreadable: docs.unreadable },
        structure: t
          ? {
              counts: RECORD_KIND_ORDER.map((k) => [RECORD_KINDS[k].path, t.counts[k]] as const),
              eventsPerChunk: countHistogram(t.eventsPerChunk),
              chunksPerEvent: countHistogram(t.chunksPerEvent),
              entitiesPerEvent: countHistogram(t.entitiesPerEvent),
              entityTypes: rankedTypes(t),
              topEntities,
              unresolved: t.unresolved,
              unreadable: t.unreadable,
            }
          : null,
        graph,
        vectorConfig: await collectVectorConfig(pkg),
        vectors: await collectVectors(pkg),
        generator: 'octx-export',
        renderedAt,
      };
    } finally {
      await pkg.close();
    }
    const html = reportHtml(data, script);
    const bytes = Buffer.byteLength(html);
    if (!out) return { html, bytes, data };
    try {
      await writeFile(out.tempPath, html, { flag: 'wx' });
    } catch (e) {
      throw fsFailure(e, { path: out.path, field: 'output', action: 'write the report', invalidCode: 'OCTX_OUTPUT_INVALID' });
    }
    await out.commit();
    return { html, bytes, output: out.path, data };
  } catch (e) {
    await out?.discard();
    throw e;
  }
}
