/**
 * What a report page shows, as one JSON document: the renderer (Node) fills it from the package,
 * the page script (browser) draws it. Every string in it came from the package and is shown as
 * text, never parsed as markup. The browser bundle imports this file too: it holds nothing of Node.
 */

/** The id of the `<script type="application/json">` element that holds the page's data. */
export const DATA_ELEMENT_ID = 'octx-report-data';

/** Counts of values in ranges: `counts[i]` values fall in bin `labels[i]`. */
export interface Histogram {
  readonly labels: readonly string[];
  readonly counts: readonly number[];
}

/** One issue of the validator or a consumer profile. */
export interface ReportIssue {
  readonly code: string;
  readonly severity: string;
  readonly message: string;
  /** `path:line`, record id and field, when the issue has them. */
  readonly where: string;
}

/** The validator's verdict, as run while rendering. */
export interface ReportValidation {
  readonly valid: boolean;
  readonly fullyValidated: boolean;
  readonly formatValid: boolean;
  /** Per declared capability: `valid`, `invalid` or `not understood`. */
  readonly capabilities: readonly (readonly [name: string, verdict: string])[];
  /** The first issues (at most `issuesShown`). */
  readonly issues: readonly ReportIssue[];
  /** Issues the validator found in all (kept + dropped). */
  readonly issueCount: number;
  /** With a consumer profile: its name, verdict (`compatible`, `incompatible`, `not checked`) and issues. */
  readonly consumer?: { readonly name: string; readonly verdict: string; readonly issues: readonly ReportIssue[]; readonly issueCount: number };
}

/** A document row of the documents table. */
export interface ReportDocument {
  readonly path: string;
  readonly title: string;
  /** `concept` or `reserved` (`index.md`, `log.md`). */
  readonly kind: string;
  /** Bytes of the file. */
  readonly size: number;
  readonly chunks: number;
  /** Distinct events linked to the document's chunks. */
  readonly events: number;
  /** Chunks of the document that no event is linked to. */
  readonly chunksWithoutEvents: number;
  /** The Markdown, when the page's text budget had room for it (else `null`). */
  readonly text: string | null;
  /** Bytes of the Markdown left out: the document was longer than the per-document budget. */
  readonly textCut: number;
}

/** A graph node: an event or an entity. */
export interface ReportNode {
  /** `event` or `entity`. */
  readonly kind: string;
  readonly id: string;
  /** An event's title, an entity's name. */
  readonly label: string;
  /** An entity's type; `event` for events. */
  readonly type: string;
  /** Links in the whole package (events of an entity, entities of an event). */
  readonly degree: number;
  readonly x: number;
  readonly y: number;
  readonly size: number;
  readonly color: string;
  /** For events: the first chunks it comes from, as `[document, ordinal]` pairs (`document`: an index into {@link ReportGraph.documents}). */
  readonly chunks?: readonly (readonly [document: number, ordinal: number])[];
  /** For events: chunk links in all. */
  readonly chunkCount?: number;
}

/** The entity graph as drawn. */
export interface ReportGraph {
  /** Events and entities in the package. */
  readonly totalNodes: number;
  /** Event-entity links in the package. */
  readonly totalEdges: number;
  readonly nodes: readonly ReportNode[];
  /** Edges as pairs of indices into `nodes`. */
  readonly edges: readonly (readonly [number, number])[];
  /** The node budget: past it, the entities of highest degree and the events most linked to them are drawn. */
  readonly maxNodes: number;
  readonly maxEdges: number;
  /** Paths of the documents the events' chunks belong to (`chunks` index into it). */
  readonly documents: readonly string[];
  /** Links among the drawn nodes in the package (at most `maxEdges` of them are drawn). */
  readonly edgesAmongNodes: number;
  /** Entity types and their colours, most frequent first (`event` first). */
  readonly legend: readonly (readonly [type: string, color: string])[];
}

/** One vector target. */
export interface ReportVectors {
  readonly target: string;
  readonly path: string;
  readonly rows: number;
  /** Norms seen: all rows, or a sample of them. */
  readonly normsSampled: number;
  readonly norms: Histogram;
  readonly minNorm: number | null;
  readonly maxNorm: number | null;
  /** A problem reading the file (the validator says more), or `null`. */
  readonly error: string | null;
}

/** The vector configuration (`vectors/config.json`) as declared. */
export interface ReportVectorConfig {
  readonly model: string | null;
  readonly dimensions: number | null;
  readonly normalized: boolean | null;
  readonly fingerprint: string | null;
}

/** The release diff against a previous package. */
export interface ReportDiff {
  readonly previous: { readonly name: string; readonly version: string | null; readonly packageDigest: string | null; readonly assetId: string | null };
  readonly relation: string;
  readonly hasChanges: boolean;
  /** `added`, `removed`, `changed`, `moved`: the first documents of each (paths; `from → to` for moves) and how many in all. */
  readonly documents: readonly (readonly [category: string, count: number, first: readonly string[]])[];
  readonly unchangedDocuments: number;
  /** Per record kind (spec file name): added, removed, changed, unchanged. */
  readonly records: readonly (readonly [kind: string, added: number, removed: number, changed: number, unchanged: number])[];
}

/** Everything the page shows. */
export interface ReportData {
  /** The file name of the package (not its folder: a report travels). */
  readonly packageName: string;
  /** Bytes of the `.octx` file (`null` for an unpacked folder). */
  readonly packageSize: number | null;
  readonly asset: {
    readonly name: string | null;
    readonly id: string | null;
    readonly version: string | null;
    readonly createdAt: string | null;
    readonly packageDigest: string | null;
    readonly format: string | null;
    readonly derivedFrom: { readonly assetId: string | null; readonly version: string | null; readonly packageDigest: string | null } | null;
  };
  readonly capabilities: readonly (readonly [name: string, version: string])[];
  readonly validation: ReportValidation;
  readonly diff: ReportDiff | null;
  readonly documents: {
    /** Knowledge documents the manifest lists. */
    readonly total: number;
    readonly rows: readonly ReportDocument[];
    readonly textBudget: number;
    /** `path: CODE` when the documents could not all be read. */
    readonly unreadable: readonly string[];
  };
  readonly structure: {
    /** Per record kind (spec path): records in the package. */
    readonly counts: readonly (readonly [path: string, count: number])[];
    readonly eventsPerChunk: Histogram;
    readonly chunksPerEvent: Histogram;
    readonly entitiesPerEvent: Histogram;
    /** Entities per type, most first; types past the type budget are summed as one row. */
    readonly entityTypes: readonly (readonly [type: string, count: number])[];
    readonly topEntities: readonly (readonly [name: string, type: string, degree: number])[];
    /** Records whose id the tables could not use (not a UUIDv7, repeated, or a link to nothing); the validator says which. */
    readonly unresolved: number;
    /** Files that could not be read to their end (the validator says why): `path: CODE`. */
    readonly unreadable: readonly string[];
  } | null;
  readonly graph: ReportGraph | null;
  readonly vectorConfig: ReportVectorConfig | null;
  readonly vectors: readonly ReportVectors[];
  /** `octx-export <version>` */
  readonly generator: string;
  /** When the page was rendered (ISO 8601), only with the `timestamp` option. */
  readonly renderedAt: string | null;
}
